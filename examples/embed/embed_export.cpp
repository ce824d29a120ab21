// embed_export: a program that already has libtorch loads a TorchScript model itself and exports it
// to ONNX in-process with the torch2onnx library (torch2onnx/torch2onnx.hpp).
//
//   embed_export MODEL.pt OUT.onnx --input TYPE[DIMS]... [--opset N] [--time] [--repeat N] [--file]
//
// --time prints the seconds the library call alone took (the model is already loaded, libtorch and the
// packs already initialised; with --file, the call loads the file itself: export_model, lazy weights as
// the library's default), as "export_seconds: S" on stdout: the in-process time bench/run_bench.py
// compares with torch.onnx.export's. --repeat N exports N times and reports the fastest.
#include <torch2onnx/torch2onnx.hpp>

#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace {

int usage() {
  std::cerr << "usage: embed_export MODEL.pt OUT.onnx --input TYPE[DIMS]... [--opset N] [--time] [--repeat N] [--file]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path, out_path;
  t2o::ExportOptions options;  // the library's lazy weights: no signal handler (lazy_weights_handler off)
  bool time = false, from_file = false;
  int repeat = 1;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--input" && i + 1 < argc) options.inputs.push_back(t2o::parse_input_spec(argv[++i]));
      else if (arg == "--opset" && i + 1 < argc) options.opset = std::atoi(argv[++i]);
      else if (arg == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
      else if (arg == "--time") time = true;
      else if (arg == "--file") from_file = true;
      else if (!arg.empty() && arg[0] == '-') return usage();
      else if (model_path.empty()) model_path = arg;
      else if (out_path.empty()) out_path = arg;
      else return usage();
    }
    if (model_path.empty() || out_path.empty() || options.inputs.empty()) return usage();

    options.warn = [](const std::string& line) { std::cerr << "embed_export: warning: " << line << "\n"; };
    // EMBED_PROGRESS=1 names each phase as it starts, with the seconds since the call began.
    std::string last_phase;
    auto call_start = std::chrono::steady_clock::now();
    options.progress = [&last_phase, &call_start](const std::string& phase, uint64_t, uint64_t) {
      if (phase != last_phase && std::getenv("EMBED_PROGRESS"))
        std::cerr << "embed_export: " << phase << " at "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - call_start).count() << " s\n";
      last_phase = phase;
    };

    // Start-up: the kernel libraries before the model, so a model calling torchvision's or PyTorch
    // 2.x's ops loads (as Python imports torchvision first); the exports then find them loaded.
    t2o::load_kernel_libraries(options);
    // The application's own model, loaded the application's way.
    torch::jit::Module module;
    if (!from_file) {
      module = torch::jit::load(model_path);
      module.eval();
    }

    auto packs = t2o::load_packs();
    for (const auto& refused : packs->refused())
      std::cerr << "embed_export: warning: skipped pack " << refused.path << ": " << refused.reason << "\n";

    double best = 0;
    t2o::ExportStats stats;
    for (int k = 0; k < repeat; ++k) {
      auto start = std::chrono::steady_clock::now();
      call_start = start;
      stats = from_file ? t2o::export_model(model_path, out_path, options, *packs)
                        : t2o::export_module(module, out_path, options, *packs);
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best = k == 0 ? seconds : std::min(best, seconds);
    }
    std::cout << "exported " << out_path << " with torch2onnx " << t2o::library_version() << ": "
              << stats.onnx_nodes << " ONNX nodes from " << stats.torch_nodes << " TorchScript nodes, "
              << stats.initializers << " initializers\n";
    if (time) std::cout << "export_seconds: " << best << "\n";
    return 0;
  } catch (const t2o::ExportError& e) {
    std::cerr << "embed_export: error: " << e.what() << "\n";
    if (std::getenv("T2O_DEBUG") && !e.details().empty()) std::cerr << e.details() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "embed_export: error: " << t2o::error_reason(e.what()) << "\n";
    return 1;
  }
}
