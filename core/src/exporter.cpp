#include "torch2onnx/core/exporter.hpp"
#include "torch2onnx/core/custom_ops.hpp"

#include "converter.hpp"
#include "model_loader.hpp"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace t2o::core {

namespace {

std::string parent_dir(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void check_output_path(const std::string& out_path) {
  if (out_path.empty()) throw ExportError("no output file given (-o OUT.onnx)");
  std::string dir = parent_dir(out_path);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) throw ExportError("output directory " + dir + " does not exist");
  if (!S_ISDIR(st.st_mode)) throw ExportError("output directory " + dir + " is not a directory");
  if (access(dir.c_str(), W_OK) != 0) throw ExportError("output directory " + dir + " is not writable");
  if (stat(out_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw ExportError(out_path + " is a directory");
}

// The checker names the offending ONNX node ("... Name: Conv_3 OpType: Conv"); say which
// TorchScript op and pack made it.
std::string attribute(const std::string& message, const Converter& conv) {
  auto pos = message.find("Name: ");
  if (pos == std::string::npos) return "";
  auto end = message.find_first_of(" \n", pos + 6);
  std::string node = message.substr(pos + 6, end == std::string::npos ? std::string::npos : end - pos - 6);
  std::string origin = conv.origin_of(node);
  return origin.empty() ? "" : " (node " + node + " from " + origin + ")";
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// Writes beside the target, then renames: readers never see a partial file.
void write_atomically(const onnx::ModelProto& model, const std::string& out_path) {
  std::string tmp = out_path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw ExportError("cannot create " + tmp);
    bool ok = model.SerializeToOstream(&out);
    out.close();
    if (!ok || !out) {
      std::remove(tmp.c_str());
      throw ExportError("writing " + out_path + " failed (disk full, or the model exceeds protobuf's 2 GB limit)");
    }
  }
  if (std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw ExportError("cannot rename " + tmp + " to " + out_path);
  }
}

}  // namespace

ExportStats export_model(const std::string& model_path, const std::string& out_path, const ExportOptions& options,
                         const t2o::registry::Registry& registry) {
  if (options.opset < kMinOpset || options.opset > kMaxOpset)
    throw ExportError("--opset " + std::to_string(options.opset) + " is out of range: supported opsets are " +
                      std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  check_output_path(out_path);
  declare_custom_ops(registry, options.warn);  // before loading: the model may call the packs' custom ops
  auto module = load_torchscript(model_path);
  auto prepared = prepare(std::move(module), model_path);
  Converter conv(registry, options, prepared, model_path);
  {
    CustomOpExampleRun example_run;  // placeholder kernels of custom ops follow their shape rule here only
    conv.record_types();
  }
  conv.convert();
  onnx::ModelProto model = conv.build_model();
  // The frozen module's weights now live in the model; release the module before checking and writing.
  prepared = PreparedModel();

  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw ExportError("the ONNX checker rejected the result: " + one_line(first_line(e.what())) + attribute(e.what(), conv));
  }
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    throw ExportError("ONNX shape inference failed: " + one_line(first_line(e.what())) + attribute(e.what(), conv));
  }
  auto specialized = conv.specialization_warnings(model);
  if (options.warn) {
    for (size_t i = 0; i < specialized.size() && i < 5; ++i) options.warn("size specialized: " + specialized[i]);
    if (specialized.size() > 5)
      options.warn("size specialized: and " + std::to_string(specialized.size() - 5) + " more op(s)");
  }
  write_atomically(model, out_path);
  return conv.stats();
}

}  // namespace t2o::core
