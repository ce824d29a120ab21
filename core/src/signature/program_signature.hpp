// The second entrance: an exported program (.pt2, core/src/program/) opened as the module and
// signature the pipeline converts, the options completed by what the program records (the user's
// options win: --input, --input-names, --output-names, --dynamic-axes, --example-inputs).
#ifndef TORCH2ONNX_CORE_PROGRAM_SIGNATURE_HPP
#define TORCH2ONNX_CORE_PROGRAM_SIGNATURE_HPP

#include "program/exported_program.hpp"
#include "signature/example_inputs.hpp"

#include <string>

namespace t2o::core {

// Whether `path` is an exported program (decided by the archive's members, not the file name).
// Throws ExportError for a zip that is neither a TorchScript archive nor a program.
bool is_exported_program_file(const std::string& path);

struct OpenedProgram {
  torch::jit::Module module;
  ResolvedSignature signature;
  std::string label;  // "m.pt2 (PT2 archive, PyTorch 2.14.1, schema 8.20)"
};

// Reads the program (ExportOptions::program_name, or the only one) and resolves its signature; its
// warnings go to given.warn. The kernel libraries must be loaded first (load_kernel_libraries):
// the program's ops are looked up in libtorch as it is read.
OpenedProgram open_exported_program(const std::string& path, const ExportOptions& given);

}  // namespace t2o::core

#endif
