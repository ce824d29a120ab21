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
  } else if (args.flag("--no-weights") || args.flag("--weights-as-inputs")) {
    options.export_params = false;
  } else if (args.flag("--keep-initializers-as-inputs")) {
    options.keep_initializers_as_inputs = true;
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

void load_conversion_plugins(t2o::registry::Registry& registry, const ConversionArgs& conv) {
  load_plugins(registry, conv.plugin_dirs);
}

std::string conversion_options_help() {
  using namespace t2o::core;
  return
    "  -o, --output FILE        the ONNX file to write (written whole or not at all)\n"
    "  --opset N                target ONNX opset, " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
    " (default " + std::to_string(kDefaultOpset) + "; fully validated up to " + std::to_string(kMaxValidatedOpset) +
    ")\n"
    "  --input SPEC             each forward() argument, in order (not needed for a .pt saved by\n"
    "                           torch2onnx.save). SPEC is one of:\n"
    "                             TYPE[DIMS]      a tensor: float32[1,3,224,224], int64[2,16]; int64[] is 0-d\n"
    "                             (SPEC,...)      a tuple or list argument, nested freely: one graph input\n"
    "                                             per tensor inside, e.g. '(float32[1,3,20],float32[1,3,20])'\n"
    "                             {KEY:SPEC,...}  a Dict[str, ...] argument: '{a:float32[2],b:int64[3]}'\n"
    "                             none            None for an Optional argument (also inside tuples)\n"
    "                             int=3 float=0.5 bool=true str=TEXT   a constant baked into the graph\n"
    "                           For an int/float/bool argument of a scripted model, int64[], float32[]\n"
    "                           or bool[] makes it a 0-d graph input whose value may change at run\n"
    "                           time. Trailing arguments with defaults may be left out\n"
    "  --example-inputs DIR     values for the example run: one .npy or ONNX TensorProto .pb file per\n"
    "                           graph input (the flattened tensors), in name order; without --input\n"
    "                           their dtypes and shapes give the specs\n"
    "  --input-range LO:HI      integer inputs without example values drawn from LO..HI, both included\n"
    "                           (default: all 1)\n"
    "  --input-names a,b        graph input names, one per flattened tensor (default: forward()'s\n"
    "                           argument names; hx.0, hx.1 for a tuple hx's tensors, x.key for a dict's)\n"
    "  --output-names y         graph output names (default: output_0, output_1, ...)\n"
    "  --dynamic-axes NAME=AXES axes of an input or output that may vary at run time (repeatable):\n"
    "                           input_ids=0,1 or input_ids=0:batch,1:seq (named dims)\n"
    "  --dynamic-input TYPE[DIMS] example shape of each input for the run that finds the dynamic\n"
    "                           dims (one per --input; default: each dynamic axis one larger); for\n"
    "                           models that resize internally, e.g. detection models\n"
    "  --operator-export-type onnx|aten-fallback|fallthrough|aten\n"
    "                           ops no pack converts: fail (onnx, the default), emit an ATen node in\n"
    "                           domain org.pytorch.aten, or emit the op in its own namespace's domain;\n"
    "                           aten (torch.onnx's ONNX_ATEN): every aten:: op with tensor results is\n"
    "                           an ATen node, converted or not\n"
    "  --plugin-path DIR        also load op packs from DIR (repeatable; explicit packs take precedence\n"
    "                           over bundled ones); DIR may also name one pack file (.so or .json)\n"
    "  --load-library PATH      load a library of TorchScript kernels before the model, as\n"
    "                           torch.ops.load_library does (repeatable); torchvision's is loaded\n"
    "                           automatically where installed\n"
    "  --no-default-libraries   do not load the kernel libraries found automatically\n"
    "  --enable-pack NAME       load an optional pack shipped with torch2onnx, e.g. com.microsoft\n"
    "                           (ONNX Runtime's contrib ops: Gelu, FastGelu)\n"
    "  --custom-opset DOMAIN=V  target version V of custom ONNX domain DOMAIN (repeatable); selects\n"
    "                           the packs' symbolics for that domain as --opset does for the default\n"
    "                           domain; the domain's opset_import says V\n"
    "  --default-dtype float32|float64\n"
    "                           torch.get_default_dtype() the model was traced or scripted under (what\n"
    "                           integer true division, Python floats and float factories give;\n"
    "                           default: the one torch2onnx.save recorded, else float32)\n"
    "  --no-constant-folding    keep every op as the model has it (default: in eval mode, BatchNorm\n"
    "                           after a convolution or linear layer is folded into its weights, as\n"
    "                           torch.onnx's do_constant_folding does)\n"
    "  --external-data          weights in OUT.onnx.data beside the model (automatic above 2 GB)\n"
    "  --no-weights             the module's weights become graph inputs (named after their\n"
    "                           attributes, after the model's inputs) instead of initializers, as\n"
    "                           torch.onnx's export_params=False; no constant folding. Alias:\n"
    "                           --weights-as-inputs\n"
    "  --keep-initializers-as-inputs\n"
    "                           every initializer is also listed as a graph input (IR < 4 style)\n"
    "  --export-modules-as-functions[=TYPE,...]\n"
    "                           each call of a module (of every type, or of the qualified types\n"
    "                           given, e.g. torch.nn.modules.transformer.TransformerEncoderLayer)\n"
    "                           becomes a call of an ONNX local function, as torch.onnx's\n"
    "                           export_modules_as_functions (opset 15 and later)\n"
    "  -q, --quiet              no warnings, progress or summary\n"
    "  --timings                print the wall time of each phase on stderr (also with --quiet)\n"
    "  --verbose                after an error's one line, print the whole message it was chosen from\n"
    "                           (libtorch's, with the TorchScript traceback); also T2O_DEBUG=1\n";
}

}  // namespace t2o::cli
