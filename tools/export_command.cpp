#include "commands.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace t2o::cli {

namespace {

// A progress line on a terminal's stderr, shown only once an export has taken a second: phases, nodes
// converted, megabytes written. Redrawn in place; cleared before any other message.
class ProgressLine {
 public:
  void update(const std::string& phase, uint64_t done, uint64_t total) {
    auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    if (phase == last_phase_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    last_phase_ = phase;
    std::string text = "torch2onnx: " + phase;
    if (total && phase == "write")
      text += " " + std::to_string(done >> 20) + "/" + std::to_string(total >> 20) + " MB";
    else if (total)
      text += " " + std::to_string(done) + "/" + std::to_string(total) + " nodes";
    std::cerr << "\r" << text << std::string(width_ > text.size() ? width_ - text.size() : 0, ' ') << std::flush;
    width_ = text.size();
  }
  void clear() {
    if (!width_) return;
    std::cerr << "\r" << std::string(width_, ' ') << "\r" << std::flush;
    width_ = 0;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_;
  std::string last_phase_;
  size_t width_ = 0;
};

// --timings: wall time per phase (start-up before main, plugin loading, then the exporter's phases),
// one line on stderr; for finding where an export's time goes without a profiler.
class PhaseTimes {
 public:
  PhaseTimes() { add("start-up", seconds_since_process_start()); }
  void enter(const std::string& phase) {
    if (phase == current_) return;
    close();
    current_ = phase;
  }
  void close() {
    auto now = std::chrono::steady_clock::now();
    if (!current_.empty()) add(current_, std::chrono::duration<double>(now - since_).count());
    since_ = now;
    current_.clear();
  }
  std::string line() const {
    std::ostringstream os;
    os << "torch2onnx: timings:";
    double total = 0;
    for (const auto& [name, s] : phases_) {
      os << " " << name << " " << std::fixed << std::setprecision(3) << s << " s,";
      total += s;
    }
    os << " total " << std::fixed << std::setprecision(3) << total << " s";
    return os.str();
  }

 private:
  void add(const std::string& name, double s) { phases_.emplace_back(name, s); }
  // Time from exec to now: libtorch's static initialisers run before main and are a large part of a
  // small model's export.
  static double seconds_since_process_start() {
    std::ifstream stat("/proc/self/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto paren = text.rfind(')');
    if (paren == std::string::npos) return 0;
    std::istringstream fields(text.substr(paren + 2));
    std::string field;
    unsigned long long start_ticks = 0;
    for (int i = 3; i <= 22 && fields >> field; ++i)
      if (i == 22) start_ticks = std::stoull(field);
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    double started = double(start_ticks) / double(sysconf(_SC_CLK_TCK));
    double elapsed = double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - started;
    return elapsed > 0 ? elapsed : 0;
  }
  std::vector<std::pair<std::string, double>> phases_;
  std::string current_;
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
};

// The text of --help; the opset range comes from the core's constants.
std::string export_help() {
  using namespace t2o::core;
  return
    "usage: torch2onnx export MODEL.pt -o OUT.onnx [options]\n"
    "\n"
    "Converts a TorchScript model (torch.jit.script/trace, then .save()) to ONNX.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE        the ONNX file to write (written whole or not at all)\n"
    "  --opset N                target ONNX opset, " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
    " (default " + std::to_string(kDefaultOpset) + "; fully validated up to " + std::to_string(kMaxValidatedOpset) +
    ")\n"
    "  --input TYPE[DIMS]       dtype and example shape of each forward() argument, in order,\n"
    "                           e.g. --input float32[1,3,224,224] --input int64[2,16]; float32[] is a scalar;\n"
    "                           none gives an Optional argument None; trailing arguments with\n"
    "                           defaults may be left out\n"
    "  --input-names a,b        graph input names (default: forward()'s argument names)\n"
    "  --output-names y         graph output names (default: output_0, output_1, ...)\n"
    "  --dynamic-axes NAME=AXES axes of an input or output that may vary at run time (repeatable):\n"
    "                           input_ids=0,1 or input_ids=0:batch,1:seq (named dims)\n"
    "  --dynamic-input TYPE[DIMS] example shape of each input for the run that finds the dynamic\n"
    "                           dims (one per --input; default: each dynamic axis one larger); for\n"
    "                           models that resize internally, e.g. detection models\n"
    "  --operator-export-type onnx|aten-fallback|fallthrough\n"
    "                           ops no pack converts: fail (onnx, the default), emit an ATen node in\n"
    "                           domain org.pytorch.aten, or emit the op in its own namespace's domain\n"
    "  --plugin-path DIR        also load op packs from DIR (repeatable; explicit packs take precedence\n"
    "                           over bundled ones); DIR may also name one pack file (.so or .json)\n"
    "  --load-library PATH      load a library of TorchScript kernels before the model, as\n"
    "                           torch.ops.load_library does (repeatable); torchvision's is loaded\n"
    "                           automatically where installed\n"
    "  --no-default-libraries   do not load the kernel libraries found automatically\n"
    "  --enable-pack NAME       load an optional pack shipped with torch2onnx, e.g. com.microsoft\n"
    "                           (ONNX Runtime's contrib ops: Gelu, FastGelu)\n"
    "  --custom-opset DOMAIN=V  target version V of custom ONNX domain DOMAIN (repeatable); selects\n"
    "                           the packs' symbolics for that domain as --opset does for the default\n"
    "                           domain; the domain's opset_import says V\n"
    "  --external-data          weights in OUT.onnx.data beside the model (automatic above 2 GB)\n"
    "  -q, --quiet              no warnings, progress or summary\n"
    "  --timings                print the wall time of each phase on stderr (also with --quiet)\n";
}

}  // namespace

int run_export(Args& args) {
  std::string model, out, value;
  std::vector<std::string> plugin_dirs;
  t2o::core::ExportOptions options;
  bool quiet = false;
  bool timings = false;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << export_help();
      return 0;
    } else if (args.option("-o", value) || args.option("--output", value)) {
      out = value;
    } else if (args.option("--opset", value)) {
      options.opset = parse_int("--opset", value);
    } else if (args.option("--input", value)) {
      options.inputs.push_back(t2o::core::parse_input_spec(value));
    } else if (args.option("--input-names", value)) {
      options.input_names = split_commas(value);
    } else if (args.option("--output-names", value)) {
      options.output_names = split_commas(value);
    } else if (args.option("--dynamic-axes", value)) {
      options.dynamic_axes.push_back(t2o::core::parse_dynamic_axes(value));
    } else if (args.option("--operator-export-type", value)) {
      options.operator_export_type = t2o::core::parse_operator_export_type(value);
    } else if (args.option("--plugin-path", value)) {
      plugin_dirs.push_back(value);
    } else if (args.option("--dynamic-input", value)) {
      options.dynamic_inputs.push_back(t2o::core::parse_input_spec(value));
    } else if (args.option("--load-library", value)) {
      options.kernel_libraries.push_back(value);
    } else if (args.flag("--no-default-libraries")) {
      options.default_kernel_libraries = false;
    } else if (args.option("--enable-pack", value)) {
      plugin_dirs.push_back(optional_pack_path(value));
    } else if (args.option("--custom-opset", value)) {
      auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 >= value.size())
        throw UsageError("--custom-opset expects DOMAIN=VERSION (e.g. com.microsoft=1), got '" + value + "'");
      std::string domain = value.substr(0, eq);
      if (domain == "ai.onnx")
        throw UsageError("--custom-opset: use --opset for the default domain (ai.onnx)");
      int64_t version = parse_int("--custom-opset " + domain, value.substr(eq + 1));
      if (version < 1) throw UsageError("--custom-opset " + domain + ": the version must be >= 1");
      options.custom_opsets[domain] = version;
    } else if (args.flag("--external-data")) {
      options.external_data = true;
    } else if (args.flag("--timings")) {
      timings = true;
    } else if (args.flag("-q") || args.flag("--quiet")) {
      quiet = true;
    } else {
      std::string p = args.positional();
      if (!model.empty()) throw UsageError("more than one model given ('" + model + "' and '" + p + "')");
      model = p;
    }
  }
  if (model.empty()) throw UsageError("no model given (torch2onnx export MODEL.pt -o OUT.onnx)");
  if (out.empty()) throw UsageError("no output given (-o OUT.onnx)");

  PhaseTimes times;
  times.enter("plugins");
  t2o::registry::Registry registry;
  load_plugins(registry, plugin_dirs);
  if (!quiet) warn_refused(registry);
  ProgressLine progress;
  if (!quiet) {
    options.warn = [&progress](const std::string& m) {
      progress.clear();
      print_warning(m);
    };
  }
  const bool show_progress = !quiet && isatty(2);
  if (show_progress || timings)
    options.progress = [&, show_progress](const std::string& phase, uint64_t done, uint64_t total) {
      if (timings) times.enter(phase);
      if (show_progress) progress.update(phase, done, total);
    };
  auto stats = t2o::core::export_model(model, out, options, registry);
  progress.clear();
  times.close();
  if (timings) std::cerr << times.line() << std::endl;
  if (!quiet && stats.external_data)
    std::cerr << "torch2onnx: weights written to " << stats.data_path << " (ONNX external data)" << std::endl;
  if (!quiet)
    std::cerr << "torch2onnx: wrote " << out << " (opset " << options.opset << ", " << stats.onnx_nodes
              << " nodes from " << stats.torch_nodes << " TorchScript nodes, " << stats.initializers
              << " initializers, " << stats.initializer_bytes / 1024 << " KiB of weights)" << std::endl;
  return 0;
}

}  // namespace t2o::cli
