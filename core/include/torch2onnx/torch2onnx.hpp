// torch2onnx as a C++ library: export TorchScript modules to ONNX inside a program that links libtorch.
//
//   find_package(Torch2Onnx REQUIRED)                 # CMAKE_PREFIX_PATH=<torch2onnx prefix>
//   target_link_libraries(app PRIVATE Torch2Onnx::core)  # brings libtorch's usage requirements too
//
//   #include <torch2onnx/torch2onnx.hpp>
//
//   auto packs = t2o::load_packs();                    // the bundled op packs (+ TORCH2ONNX_PLUGIN_PATH)
//   t2o::ExportOptions options;
//   options.opset = 17;
//   options.inputs = {t2o::parse_input_spec("float32[1,3,224,224]")};
//   options.warn = [](const std::string& line) { std::cerr << "warning: " << line << "\n"; };
//   options.progress = [](const std::string& phase, uint64_t done, uint64_t total) { ... };
//   try {
//     torch::jit::Module module = torch::jit::load("resnet18.pt");   // or any module in memory
//     t2o::ExportStats stats = t2o::export_module(module, "resnet18.onnx", options, *packs);
//   } catch (const t2o::ExportError& e) {
//     std::cerr << e.what() << "\n";      // one line: what went wrong and where
//     // e.details(): libtorch's whole message with its TorchScript traceback, when there was one
//   }
//
// What you get:
//  - export_module(module, out, options, packs): a module in memory. It is not modified (a copy that
//    shares its weights, which nothing writes, is frozen and converted), so export it while the program
//    keeps using it.
//  - export_model(path, out, options, packs): a TorchScript file, as `torch2onnx export` does.
//  - check_model(path, options, packs): `torch2onnx check`: every op that cannot be converted, at once.
//  - load_kernel_libraries(options): the kernel libraries (torchvision's, PyTorch 2.x compatibility) loaded
//    now, before the program's own torch::jit::load, so its models may call their ops; exports then skip it.
//  - ExportOptions (core/exporter.hpp): every `torch2onnx export` option (opset, inputs, names, dynamic axes,
//    operator export type, external data, custom opsets, kernel libraries), plus the callbacks `progress`
//    (phase name: load, prepare, run, convert (done/total nodes), check, write (done/total bytes)) and `warn`
//    (one line per warning; unset: warnings are dropped), and `lazy_weights` (export_model: weights stay in
//    the .pt as private mappings of it, no process-wide handler unless `lazy_weights_handler`; exporter.hpp).
//  - Errors are exceptions: ExportError (one line; details() keeps libtorch's full text). No partial file is
//    ever left at the output path. Bad packs are not errors: they are listed in packs->refused().
//  - error_reason(text): the informative line of any libtorch error message (core/error_reason.hpp).
//
// Exports run one at a time in a process (the converter keeps process-wide state while it runs); the
// packs' registry may be loaded once and reused for every export.
#ifndef TORCH2ONNX_TORCH2ONNX_HPP
#define TORCH2ONNX_TORCH2ONNX_HPP

#include <torch2onnx/core/error_reason.hpp>
#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/registry.hpp>
#include <torch2onnx/version.h>

#include <torch/script.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace t2o {

using core::CheckReport;
using core::check_model;
using core::DynamicAxes;
using core::error_reason;
using core::export_model;
using core::export_module;
using core::ExportError;
using core::ExportOptions;
using core::ExportStats;
using core::InputSpec;
using core::load_kernel_libraries;
using core::OperatorExportType;
using core::parse_dynamic_axes;
using core::parse_input_spec;
using registry::Registry;

// Loads the op packs an export dispatches to: the bundled packs installed with this library
// (<prefix>/lib/torch2onnx/plugins, found relative to libtorch2onnx_core.so), unless `bundled` is false; then
// the directories of TORCH2ONNX_PLUGIN_PATH; then `plugin_paths` (directories or single pack files), which
// take precedence over bundled packs as --plugin-path does. Packs that cannot be used are recorded in
// refused() with the reason, never thrown.
std::unique_ptr<Registry> load_packs(const std::vector<std::string>& plugin_paths = {}, bool bundled = true);

// The directory of an optional pack shipped with torch2onnx (e.g. "com.microsoft"), for `plugin_paths`;
// throws ExportError listing the available names when there is none of that name.
std::string optional_pack(const std::string& name);

// The version of the library this program runs with (T2O_VERSION_STRING is the headers' version).
const char* library_version();

}  // namespace t2o

#endif
