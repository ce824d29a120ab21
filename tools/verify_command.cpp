// torch2onnx verify: does the ONNX model compute what the TorchScript model computes, and if not,
// which TorchScript node is the first whose ONNX result differs. The options are read here; the
// core does the rest (t2o::core::verify_model, core/src/tools/) and returns the report printed.
#include "commands.hpp"
#include "export_options.hpp"

#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/verify.hpp>

#include <cstdlib>
#include <iostream>
#include <stdexcept>

namespace t2o::cli {

namespace {

struct VerifyOptions {
  ConversionArgs conv;  // export's options (tools/export_options); -o also writes the exported model
  t2o::core::VerifyRequest request;  // the rest; model, options and output are conv's
  bool json = false;
};

double parse_double(const std::string& option, const std::string& text) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw UsageError(option + " expects a number, got '" + text + "'");
  }
}

t2o::core::ValueRange parse_range(const std::string& text) {
  auto colon = text.find(':', text[0] == '-' ? 1 : 0);
  if (colon == std::string::npos) throw UsageError("--input-range expects [NAME=]LO:HI, got '" + text + "'");
  double lo = parse_double("--input-range", text.substr(0, colon));
  double hi = parse_double("--input-range", text.substr(colon + 1));
  if (!(hi > lo)) throw UsageError("--input-range " + text + ": HI must be greater than LO");
  return {lo, hi};
}

void parse(Args& args, VerifyOptions& o) {
  t2o::core::VerifyRequest& r = o.request;
  std::string value;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << verify_help();
      std::exit(0);
    }
    if (args.option("--onnx", value)) r.onnx = value;
    else if (args.option("--rtol", value)) r.rtol = parse_double("--rtol", value);
    else if (args.option("--atol", value)) r.atol = parse_double("--atol", value);
    else if (args.option("--runs", value)) r.runs = parse_int("--runs", value);
    else if (args.option("--seed", value)) r.seed = parse_int("--seed", value);
    else if (args.option("--inputs", value)) r.inputs_dir = value;
    else if (args.option("--input-range", value)) {
      auto eq = value.find('=');
      if (eq == std::string::npos) r.input_range = parse_range(value);
      else r.input_range_of[value.substr(0, eq)] = parse_range(value.substr(eq + 1));
    } else if (args.flag("--find-mismatch")) r.find_mismatch = true;
    else if (args.option("--repro", value)) r.repro_dir = value;
    else if (args.flag("--json")) o.json = true;
    else if (args.option("--ort-dir", value)) r.ort_dir = value;
    else if (!parse_conversion_option(args, o.conv)) take_model(args, o.conv);
  }
  if (o.conv.model.empty()) throw UsageError("no model given (torch2onnx verify MODEL.pt --input TYPE[DIMS] ...)");
  if (!(r.rtol >= 0) || !(r.atol >= 0)) throw UsageError("--rtol and --atol must be >= 0");
  if (r.runs < 1) throw UsageError("--runs must be >= 1");
}

}  // namespace

int run_verify(Args& args) {
  VerifyOptions o;
  parse(args, o);
  t2o::core::VerifyRequest& request = o.request;
  request.model = o.conv.model;
  request.options = o.conv.options;
  request.output = o.conv.output;
  if (!o.conv.quiet) request.options.warn = [](const std::string& m) { print_warning(m); };
  if (!o.conv.quiet && !o.json)
    request.progress = [](const std::string& line) { std::cerr << "torch2onnx: " << printable(line) << std::endl; };
  request.load_packs = [&o](t2o::registry::Registry& registry) {
    load_conversion_plugins(registry, o.conv);
    if (!o.conv.quiet) warn_refused(registry);
  };
  t2o::core::VerifyReport report;
  try {
    report = t2o::core::verify_model(request);
  } catch (const t2o::core::VerifyRequestError& e) {
    throw UsageError(e.what(), e.details());  // input files, --onnx, ONNX Runtime missing: exit 2
  }
  if (o.json) std::cout << t2o::core::verify_report_json(report) << std::endl;
  else std::cout << printable_lines(t2o::core::verify_report_text(report));
  return report.match ? 0 : 1;
}

}  // namespace t2o::cli
