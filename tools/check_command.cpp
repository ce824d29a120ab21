// torch2onnx check: every op of a model that cannot be converted, at once.
#include "commands.hpp"
#include "export_options.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace t2o::cli {

namespace {

constexpr int kCheckSchemaVersion = 1;

std::string reason_text(const t2o::core::UnconvertibleOp& op) {
  if (op.reason == "no_symbolic") return "no pack converts it";
  if (op.reason == "needs_opset") return "needs --opset " + std::to_string(op.min_opset.value_or(0));
  if (op.reason == "symbolic_refused") return "refused: " + op.message;
  if (op.reason == "symbolic_failed") return "failed: " + op.message;
  if (op.reason == "unknown_custom_op") return "custom op no pack declares (model cannot be loaded)";
  if (op.reason == "onnx_checker") return op.message;
  return op.message;
}

nlohmann::json to_json(const t2o::core::CheckReport& r) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& op : r.ops) {
    std::vector<std::string> locations;
    for (const auto& l : op.locations) locations.push_back(printable(l));
    // Every string is escaped as the table's are: the JSON stays valid UTF-8 for any model.
    ops.push_back({{"op", printable(op.op)},
                   {"overload", printable(op.overload)},
                   {"schema", printable(op.schema, std::string::npos)},
                   {"count", op.count},
                   {"reason", op.reason},
                   {"message", printable(op.message)},
                   {"min_opset", op.min_opset ? nlohmann::json(*op.min_opset) : nlohmann::json(nullptr)},
                   {"locations", locations}});
  }
  return {{"schema_version", kCheckSchemaVersion},
          {"model", printable(r.model)},
          {"opset", r.opset},
          {"loaded", r.loaded},
          {"symbolics_run", r.symbolics_run},
          {"convertible", r.ops.empty()},
          {"nodes", r.nodes},
          {"unconvertible_nodes", r.unconvertible_nodes},
          {"ops", ops}};
}

void print_table(const t2o::core::CheckReport& r) {
  if (!r.ops.empty()) {
    size_t op_width = 2;
    auto name_of = [](const t2o::core::UnconvertibleOp& op) {
      return printable(op.op + (op.overload.empty() ? "" : "." + op.overload));
    };
    for (const auto& op : r.ops) op_width = std::max(op_width, name_of(op).size());
    std::cout << std::right << std::setw(6) << "count" << "  " << std::left << std::setw((int)op_width) << "op"
              << "  reason / first locations\n";
    for (const auto& op : r.ops) {
      std::string name = name_of(op);
      std::cout << std::right << std::setw(6) << op.count << "  " << std::left << std::setw((int)op_width) << name
                << "  " << printable(reason_text(op)) << "\n";
      std::string locs;
      for (const auto& l : op.locations) locs += (locs.empty() ? "" : "; ") + printable(l);
      if (op.count > op.locations.size()) locs += "; ...";
      if (!locs.empty()) std::cout << std::setw(6) << "" << "  " << std::setw((int)op_width) << "" << "  at " << locs << "\n";
    }
  }
  std::ostringstream summary;
  if (!r.loaded) {
    summary << printable(r.model) << ": cannot be loaded: " << r.ops.size() << " custom op kind(s) (" << r.unconvertible_nodes
            << " call(s)) no loaded pack declares";
  } else if (r.ops.empty()) {
    summary << printable(r.model) << ": all " << r.nodes << " nodes convert at opset " << r.opset;
  } else {
    summary << printable(r.model) << ": " << r.ops.size() << " op kind(s), " << r.unconvertible_nodes << " of " << r.nodes
            << " nodes, cannot be converted at opset " << r.opset;
  }
  if (r.loaded && !r.symbolics_run) summary << " (symbolics not run: give --input to check their arguments too)";
  std::cout << summary.str() << "\n";
}

}  // namespace

int run_check(Args& args) {
  ConversionArgs conv;
  bool json = false;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << check_help();
      return 0;
    } else if (args.flag("--json")) {
      json = true;
    } else if (!parse_conversion_option(args, conv)) {
      take_model(args, conv);
    }
  }
  if (conv.model.empty()) throw UsageError("no model given (torch2onnx check MODEL.pt)");
  auto& options = conv.options;
  const bool quiet = conv.quiet || json;
  t2o::registry::Registry registry;
  load_conversion_plugins(registry, conv);
  if (!quiet) warn_refused(registry);
  if (!quiet) options.warn = print_warning;
  t2o::core::CheckReport report;
  try {
    report = t2o::core::check_model(conv.model, options, registry);
  } catch (const t2o::core::ExportError& e) {
    throw UsageError(e.what(), e.details());  // an unreadable model or bad --input: exit 2
  }
  if (json) std::cout << to_json(report).dump(2) << std::endl;
  else print_table(report);
  return report.ops.empty() ? 0 : 1;
}

}  // namespace t2o::cli
