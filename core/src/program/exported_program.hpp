// The torch.export front end: a .pt2 file read into what the TorchScript front end (load/ and
// signature/) gives the pipeline, a module whose forward() is the program's graph and the signature
// it is called with, so the same prepare, run, convert and assemble stages convert it.
//   module:    forward(self, <user inputs>) built from the program's nodes (program_graph); the
//              parameters, buffers and lifted constants as attributes of submodules at their
//              state-dict paths, so initializers keep their state-dict names;
//   signature: the user inputs' dtypes and example sizes, the program's names for inputs and
//              outputs, every symbolic dim as a named dynamic axis with sizes for the second example
//              run drawn inside its range constraints, the program's own sample inputs.
#pragma once

#include "program/program_graph.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <torch/script.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core::program {

struct SymbolRange {
  std::optional<int64_t> min, max;  // absent: unbounded
};

struct LoadedProgram {
  torch::jit::Module module;
  std::vector<InputSpec> inputs;          // one per user input, at the example sizes
  std::vector<std::string> input_names;   // the program's names of the user inputs
  std::vector<std::string> output_names;  // the program's names of the user outputs ("" where none)
  std::vector<DynamicAxes> dynamic_axes;  // symbolic dims of the inputs, named after their symbols
  // Symbolic dims of the outputs as the program records them (u0 for a nonzero count, s0 where it
  // follows an input): the dims the example runs cannot tell from a coincidence.
  std::vector<DynamicAxes> output_axes;
  // Each user output's sizes as the program records them: the fixed ones, -1 where symbolic. A size
  // fixed for every input the program accepts, which the example runs may take as varying (computed
  // from a number read from the data), is declared fixed.
  std::vector<std::vector<int64_t>> output_sizes;
  std::vector<InputSpec> dynamic_inputs;  // the second example run's sizes, inside the ranges
  std::vector<std::pair<std::string, at::Tensor>> examples;  // the program's sample inputs, if saved
  std::map<std::string, SymbolRange> ranges;  // range_constraints of the symbols the inputs use
  std::vector<std::string> warnings;
  std::string writer;  // "a PT2 archive, PyTorch 2.14.1, schema 8.20"
  std::string label;   // "m.pt2 (a PT2 archive, PyTorch 2.14.1, schema 8.20)"
};

// Reads program `model_name` ("" = the only one) of the .pt2 at `path`. The kernel libraries (the
// compatibility library above all) must be loaded first: op overloads are looked up in libtorch as
// the graph is built. Throws ExportError with one line (UnknownProgramOpsError for ops nothing
// implements, all of them at once).
LoadedProgram load_exported_program(const std::string& path, const std::string& model_name = "");

}  // namespace t2o::core::program
