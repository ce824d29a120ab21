#include "model_loader.hpp"

#include "archive_scan.hpp"
#include "lazy_weights.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <caffe2/serialize/inline_container.h>

#include <fstream>
#include <sys/stat.h>

namespace t2o::core {

std::string first_line(const std::string& message) {
  std::string line;
  size_t start = 0;
  // libtorch messages may open with an empty line or a backtrace header; take the first line
  // that says something.
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    line = message.substr(start, end == std::string::npos ? std::string::npos : end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line.rfind("Exception raised from", 0) != 0) break;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return line;
}

namespace {

// The reason a load failed. Errors raised inside TorchScript code the loader runs (a quantized
// module's __setstate__ packing its weights) open with "The following operation failed in the
// TorchScript interpreter." and a traceback: the reason is the last "…Error: " line.
std::string load_failure_reason(const std::string& message) {
  if (message.find("The following operation failed in the TorchScript interpreter") == std::string::npos)
    return first_line(message);
  std::string reason;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    std::string line = message.substr(start, end == std::string::npos ? std::string::npos : end - start);
    auto colon = line.find("Error: ");
    if (colon != std::string::npos && line.find(' ') > colon) reason = line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return reason.empty() ? first_line(message) : first_line(reason);
}

}  // namespace

torch::jit::Module load_torchscript(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw ExportError(path + ": no such file");
  if (S_ISDIR(st.st_mode)) throw ExportError(path + ": is a directory, not a TorchScript file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExportError(path + ": cannot be opened for reading");
  char magic[4] = {0, 0, 0, 0};
  in.read(magic, 4);
  if (in.gcount() < 4 || magic[0] != 'P' || magic[1] != 'K') {
    if (in.gcount() >= 1 && (unsigned char)magic[0] == 0x80)
      throw ExportError(path + ": a pickle saved by torch.save (legacy format), not TorchScript; save the module with torch.jit.script(m).save() or torch.jit.trace(m, x).save()");
    throw ExportError(path + ": not a TorchScript archive (not a zip file)");
  }
  in.close();

  // Look inside first, to tell a torch.save()d object (state_dict) from a TorchScript module.
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    bool has_code = false, has_constants = reader.hasRecord("constants.pkl");
    for (const auto& r : reader.getAllRecords())
      if (r.rfind("code/", 0) == 0) { has_code = true; break; }
    if (!has_code || !has_constants)
      throw ExportError(path + ": saved with torch.save (e.g. a state_dict), not TorchScript; save the module with torch.jit.script(m).save() or torch.jit.trace(m, x).save()");
  } catch (const ExportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExportError(path + ": corrupt or truncated TorchScript archive: " + first_line(e.what()));
  }

  choose_quantized_engine();
  try {
    // (The archive keeps no "wrapped number" flag on traced Python numbers at all: prepare()
    // restores them, see unwrap_number_constants.)
    auto load = [&path] {
      if (!lazy_weights::enabled()) return torch::jit::load(path);
      auto reader = std::make_shared<lazy_weights::Reader>(path);
      lazy_weights::LoadScope large_records_stay_in_the_file;
      return torch::jit::load(reader);
    };
    torch::jit::Module module = load();
    return engine_for_3d_convs(module) ? load() : module;
  } catch (const std::exception& e) {
    // The loader stops at the first op it doesn't know: name every unknown custom op at once.
    std::vector<CustomOpUse> unknown;
    try {
      unknown = unknown_custom_ops(path);
    } catch (const std::exception&) {
    }
    if (!unknown.empty()) throw UnknownCustomOpsError(path, std::move(unknown));
    throw ExportError(path + ": cannot load TorchScript: " + load_failure_reason(e.what()));
  }
}

}  // namespace t2o::core
