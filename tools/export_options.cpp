#include "export_options.hpp"

#include "commands.hpp"

namespace t2o::cli {

namespace {

void parse_custom_opset(const std::string& value, t2o::core::ExportOptions& options) {
  auto eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= value.size())
    throw UsageError("--custom-opset expects DOMAIN=VERSION (e.g. com.microsoft=1), got '" + value + "'");
  std::string domain = value.substr(0, eq);
  if (domain == "ai.onnx") throw UsageError("--custom-opset: use --opset for the default domain (ai.onnx)");
  int64_t version = parse_int("--custom-opset " + domain, value.substr(eq + 1));
  if (version < 1) throw UsageError("--custom-opset " + domain + ": the version must be >= 1");
  options.custom_opsets[domain] = version;
}

// The spec parsers of the core throw ExportError; on the command line they are usage mistakes.
template <typename F>
auto as_usage(F&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const t2o::core::ExportError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

bool parse_library_option(Args& args, std::vector<std::string>& libraries, bool& default_libraries) {
  std::string value;
  if (args.option("--load-library", value)) {
    libraries.push_back(value);
    return true;
  }
  if (args.flag("--no-default-libraries")) {
    default_libraries = false;
    return true;
  }
  return false;
}

bool parse_conversion_option(Args& args, ConversionArgs& conv) {
  auto& options = conv.options;
  std::string value;
  if (args.option("-o", value) || args.option("--output", value)) {
    conv.output = value;
  } else if (args.option("--opset", value)) {
    options.opset = parse_int("--opset", value);
    if (options.opset < t2o::core::kMinOpset || options.opset > t2o::core::kMaxOpset)
      throw UsageError("--opset " + value + " is out of range: supported opsets are " +
                       std::to_string(t2o::core::kMinOpset) + " to " + std::to_string(t2o::core::kMaxOpset));
  } else if (args.option("--input", value)) {
    options.inputs.push_back(as_usage([&] { return t2o::core::parse_input_spec(value); }));
  } else if (args.option("--input-names", value)) {
    options.input_names = split_commas(value);
  } else if (args.option("--output-names", value)) {
    options.output_names = split_commas(value);
  } else if (args.option("--dynamic-axes", value)) {
    options.dynamic_axes.push_back(as_usage([&] { return t2o::core::parse_dynamic_axes(value); }));
  } else if (args.option("--model", value)) {
    options.program_name = value;
  } else if (args.option("--example-inputs", value)) {
    options.example_inputs_dir = value;
  } else if (args.option("--input-range", value)) {
    options.input_range = as_usage([&] { return t2o::core::parse_input_range(value); });
  } else if (args.option("--dynamic-input", value)) {
    options.dynamic_inputs.push_back(as_usage([&] { return t2o::core::parse_input_spec(value); }));
  } else if (args.option("--operator-export-type", value)) {
    options.operator_export_type = as_usage([&] { return t2o::core::parse_operator_export_type(value); });
  } else if (args.option("--plugin-path", value)) {
    conv.plugin_dirs.push_back(value);
  } else if (args.option("--enable-pack", value)) {
    conv.plugin_dirs.push_back(optional_pack_path(value));
  } else if (args.option("--custom-opset", value)) {
    parse_custom_opset(value, options);
  } else if (parse_library_option(args, options.kernel_libraries, options.default_kernel_libraries)) {
  } else if (args.option("--default-dtype", value)) {
    options.default_dtype = as_usage([&] { return t2o::core::parse_default_dtype(value); });
  } else if (args.flag("--no-constant-folding")) {
    options.constant_folding = false;
    options.constant_folding_given = true;
  } else if (args.flag("--constant-folding")) {
    options.constant_folding = true;
    options.constant_folding_given = true;
  } else if (args.option("--training", value)) {
    options.training = as_usage([&] { return t2o::core::parse_training_mode(value); });
  } else if (args.flag("--no-weights") || args.flag("--weights-as-inputs")) {
    options.export_params = false;
  } else if (args.flag("--keep-initializers-as-inputs")) {
    options.keep_initializers_as_inputs = true;
  } else if (args.flag("--dequantized-io")) {
    options.dequantized_io = true;
  } else if (args.flag("--export-modules-as-functions")) {
    options.modules_as_functions = true;
  } else if (args.option("--export-modules-as-functions", value)) {
    options.modules_as_functions = true;
    options.function_module_types = split_commas(value);
    if (options.function_module_types.empty())
      throw UsageError("--export-modules-as-functions= expects module type names, e.g. "
                       "torch.nn.modules.transformer.TransformerEncoderLayer");
  } else if (args.flag("--external-data")) {
    options.external_data = true;
  } else if (args.flag("--timings")) {
    conv.timings = true;
  } else if (args.flag("-q") || args.flag("--quiet")) {
    conv.quiet = true;
  } else {
    return false;
  }
  return true;
}

void take_model(Args& args, ConversionArgs& conv) {
  std::string p = args.positional();
  if (!conv.model.empty()) throw UsageError("more than one model given ('" + conv.model + "' and '" + p + "')");
  conv.model = p;
}

void load_conversion_plugins(t2o::registry::Registry& registry, const ConversionArgs& conv,
                             const std::function<void(const char*)>& phase) {
  load_plugins(registry, conv.plugin_dirs, phase);
}

}  // namespace t2o::cli
