#include "signature/program_signature.hpp"

#include "program/pt2_archive.hpp"

#include <nlohmann/json.hpp>

namespace t2o::core {

bool is_exported_program_file(const std::string& path) {
  switch (program::archive_kind(path)) {
    case program::ArchiveKind::Program: return true;
    case program::ArchiveKind::Foreign:
      throw ExportError(path + ": a zip archive that is neither a TorchScript model (no <folder>/data.pkl) nor an "
                               "exported program (no serialized_exported_program.json, no <folder>/models/<name>.json)");
    case program::ArchiveKind::Other: break;
  }
  return false;
}

OpenedProgram open_exported_program(const std::string& path, const ExportOptions& given) {
  program::LoadedProgram p = program::load_exported_program(path, given.program_name);
  if (given.warn)
    for (const auto& w : p.warnings) given.warn(w);
  OpenedProgram out;
  out.label = p.label;
  ExportOptions& o = out.signature.options;
  o = given;
  // The user's names replace the program's, by position; the dynamic axes follow the rename.
  std::vector<std::string> names = p.input_names;
  if (!given.input_names.empty()) {
    for (size_t i = 0; i < names.size() && i < given.input_names.size(); ++i) {
      for (auto& axes : p.dynamic_axes)
        if (axes.name == names[i]) axes.name = given.input_names[i];
      names[i] = given.input_names[i];
    }
  }
  if (given.inputs.empty()) {
    o.inputs = p.inputs;
    if (given.dynamic_axes.empty()) {
      o.dynamic_axes = p.dynamic_axes;
      if (given.dynamic_inputs.empty()) o.dynamic_inputs = p.dynamic_inputs;
    }
  }
  // Names given for the first inputs or outputs only: the program's names for the rest.
  o.input_names = names;
  if (!p.output_names.empty()) {
    for (size_t i = 0; i < given.output_names.size() && i < p.output_names.size(); ++i)
      for (auto& axes : p.output_axes)
        if (axes.name == p.output_names[i]) axes.name = given.output_names[i];
    for (size_t i = o.output_names.size(); i < p.output_names.size(); ++i) o.output_names.push_back(p.output_names[i]);
  }
  if (given.dynamic_axes.empty() && given.inputs.empty())
    o.dynamic_axes.insert(o.dynamic_axes.end(), p.output_axes.begin(), p.output_axes.end());
  if (given.inputs.empty()) out.signature.output_sizes = p.output_sizes;
  if (!given.example_inputs_dir.empty()) {
    out.signature.examples = read_example_dir(given.example_inputs_dir);
    out.signature.examples_source = "--example-inputs " + given.example_inputs_dir;
  } else if (given.inputs.empty() && !p.examples.empty()) {
    out.signature.examples = std::move(p.examples);
    out.signature.examples_source = path + " (the program's sample inputs)";
  }
  // The range of each symbol of the inputs' dims, as the program constrains it (verify draws other
  // sizes inside them): {"s0": [1, 64], "s1": [2, null]}, null where unbounded.
  if (!p.ranges.empty()) {
    nlohmann::json ranges = nlohmann::json::object();
    for (const auto& [symbol, r] : p.ranges)
      ranges[symbol] = {r.min ? nlohmann::json(*r.min) : nlohmann::json(), r.max ? nlohmann::json(*r.max) : nlohmann::json()};
    o.metadata_props.emplace_back("torch.export.range_constraints", ranges.dump());
  }
  o.metadata_props.emplace_back("torch.export.program", p.writer);
  out.module = std::move(p.module);
  return out;
}

}  // namespace t2o::core
