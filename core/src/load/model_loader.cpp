#include "load/model_loader.hpp"

#include "load/archive_bounds.hpp"
#include "load/archive_scan.hpp"
#include "load/kernel_libraries.hpp"
#include "load/lazy_weights.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <caffe2/serialize/inline_container.h>

#include <cctype>
#include <fstream>
#include <sys/stat.h>

#ifndef T2O_LIBTORCH_VERSION
#define T2O_LIBTORCH_VERSION "1.13"
#endif

namespace t2o::core {

namespace {

bool builtin_namespace(const std::string& op) {
  return op.rfind("aten::", 0) == 0 || op.rfind("prim::", 0) == 0;
}

// "aten::name" (overload dropped) at `at` in `text`, or "".
std::string op_name_at(const std::string& text, size_t at) {
  size_t end = text.find("::", at);
  if (end == std::string::npos) return {};
  end += 2;
  while (end < text.size() && (std::isalnum((unsigned char)text[end]) || text[end] == '_')) ++end;
  return text.substr(at, end - at);
}

// Where TorchScript's message points: ` (code/__torch__/model.py:12)`, or "".
std::string call_site(const std::string& message) {
  const std::string file = "File \"";
  size_t f = message.find(file);
  if (f == std::string::npos) return {};
  size_t name_end = message.find('"', f + file.size());
  size_t line = message.find(", line ", name_end);
  if (name_end == std::string::npos || line == std::string::npos || line != name_end + 1) return {};
  size_t digits = line + 7, end = digits;
  while (end < message.size() && std::isdigit((unsigned char)message[end])) ++end;
  return " (" + message.substr(f + file.size(), name_end - f - file.size()) + ":" +
         message.substr(digits, end - digits) + ")";
}

// libtorch resolves every call of a TorchScript file's code again at load, by op name and arguments:
// an op added after libtorch 1.13 fails as "Unknown builtin op: aten::X." and a new overload or
// argument as "Arguments for call are not valid." (or "aten::X(…) -> …:\nExpected at most N
// arguments …") followed by every variant's schema. Either becomes one line naming the op; "" when
// the message is neither.
std::string newer_pytorch_op(const std::string& message) {
  const std::string newer = "PyTorch newer than the libtorch torch2onnx was built with (libtorch " T2O_LIBTORCH_VERSION ")";
  // Most such ops are in the compatibility library (compat/), a default kernel library.
  bool compat = false;
  for (const auto& path : loaded_kernel_libraries())
    compat |= path.size() >= 23 && path.compare(path.size() - 23, 23, "libtorch2onnx_compat.so") == 0;
  const std::string hint = compat ? "" : "; torch2onnx's library of PyTorch 2.x ops, libtorch2onnx_compat.so, is not loaded";
  const std::string unknown = "Unknown builtin op: ";
  size_t at = message.find(unknown);
  if (at != std::string::npos) {
    std::string op = op_name_at(message, at + unknown.size());
    if (!builtin_namespace(op)) return {};
    return "the model calls " + op + call_site(message) + ", an op of a " + newer +
           " that no loaded kernel library provides" + hint;
  }
  // The first schema the message lists: the variants of the op the call names.
  size_t schema = std::string::npos;
  for (size_t line = 0; line < message.size(); line = message.find('\n', line) + 1) {
    size_t first = message.find_first_not_of(" \t", line);
    if (first == std::string::npos) break;
    if (message.compare(first, 6, "aten::") == 0 || message.compare(first, 6, "prim::") == 0) {
      schema = first;
      break;
    }
    if (message.find('\n', line) == std::string::npos) break;
  }
  const bool invalid = message.find("Arguments for call are not valid") != std::string::npos;
  const bool too_many = schema != std::string::npos && message.find("Expected at most ", schema) != std::string::npos &&
                        message.find(" positional arguments", schema) != std::string::npos;
  if (schema == std::string::npos || (!invalid && !too_many)) return {};
  return "the model calls " + op_name_at(message, schema) + call_site(message) +
         " with arguments that none of its libtorch " T2O_LIBTORCH_VERSION " overloads takes: an overload or argument of a " +
         newer + hint;
}

// Whether loading the archive runs code that may read its weights: a __setstate__ of a scripted class
// or a custom class's (e.g. quantized packed parameters, which pack the weights as they load).
bool load_runs_code(caffe2::serialize::PyTorchStreamReader& reader) {
  for (const auto& name : reader.getAllRecords()) {
    const bool code = name.rfind("code/", 0) == 0 && name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0;
    const bool pickle = name == "data.pkl" || name == "constants.pkl";
    if (!code && !pickle) continue;
    auto [data, size] = reader.getRecord(name);
    const std::string_view text(static_cast<const char*>(data.get()), size);
    if (text.find(code ? "__setstate__" : "torch.classes") != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

torch::jit::Module load_torchscript(const std::string& path, bool lazy_weights, bool signal_handler) {
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

  // Look inside first, to tell a torch.save()d object (state_dict) from a TorchScript module, and (for
  // lazy weights without the signal handler) whether its load runs code.
  lazy_weights = lazy_weights && lazy_weights::enabled();
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    bool has_code = false, has_constants = reader.hasRecord("constants.pkl");
    for (const auto& r : reader.getAllRecords())
      if (r.rfind("code/", 0) == 0) { has_code = true; break; }
    if (!has_code || !has_constants)
      throw ExportError(path + ": saved with torch.save (e.g. a state_dict), not TorchScript; save the module with torch.jit.script(m).save() or torch.jit.trace(m, x).save()");
    // Without the signal handler, only archives whose load runs no code leave records in the file.
    if (lazy_weights && !signal_handler && load_runs_code(reader)) lazy_weights = false;
  } catch (const ExportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExportError(path + ": corrupt or truncated TorchScript archive: " + error_reason(e.what()), e.what());
  }

  choose_quantized_engine();
  try {
    // (The archive keeps no "wrapped number" flag on traced Python numbers at all: prepare()
    // restores them, see unwrap_number_constants.)
    auto load = [&path, lazy_weights, signal_handler] {
      if (!lazy_weights) return torch::jit::load(path);
      auto reader = std::make_shared<lazy_weights::Reader>(path);
      torch::jit::Module module;
      {
        lazy_weights::LoadScope large_records_stay_in_the_file(signal_handler);
        module = torch::jit::load(reader);
      }
      lazy_weights::settle(module);
      return module;
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
    std::string newer = newer_pytorch_op(e.what());
    if (!newer.empty()) throw ExportError(path + ": cannot load TorchScript: " + newer, e.what());
    // Errors raised inside TorchScript code the loader runs (a quantized module's __setstate__
    // packing its weights) come with a traceback: error_reason picks the reason out of it.
    throw ExportError(path + ": cannot load TorchScript: " + error_reason(e.what()), e.what());
  }
}

}  // namespace t2o::core
