#include "load/model_loader.hpp"

#include "load/archive_bounds.hpp"
#include "load/archive_scan.hpp"
#include "load/lazy_weights.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <caffe2/serialize/inline_container.h>

#include <fstream>
#include <sys/stat.h>

namespace t2o::core {

torch::jit::Module load_torchscript(const std::string& path, bool lazy_weights) {
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
  check_archive_bounds(path);  // what the zip and its pickles claim, before libtorch allocates it

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
    throw ExportError(path + ": corrupt or truncated TorchScript archive: " + error_reason(e.what()), e.what());
  }

  choose_quantized_engine();
  try {
    // (The archive keeps no "wrapped number" flag on traced Python numbers at all: prepare()
    // restores them, see unwrap_number_constants.)
    auto load = [&path, lazy_weights] {
      if (!lazy_weights || !lazy_weights::enabled()) return torch::jit::load(path);
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
    // Errors raised inside TorchScript code the loader runs (a quantized module's __setstate__
    // packing its weights) come with a traceback: error_reason picks the reason out of it.
    throw ExportError(path + ": cannot load TorchScript: " + error_reason(e.what()), e.what());
  }
}

}  // namespace t2o::core
