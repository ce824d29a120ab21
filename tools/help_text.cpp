// Every help text of the program and its --version line. Nothing here needs libtorch: the launcher
// (launcher.cpp) prints them without loading the command library, and the commands print the same.
#include "help_text.hpp"

#include <torch2onnx/core/exporter.hpp>  // the opset range (constants only)
#include <torch2onnx/plugin.h>
#include <torch2onnx/version.h>

namespace t2o::cli {

std::string usage_text() {
  return
    "usage: torch2onnx <command> [options]\n"
    "\n"
    "commands:\n"
    "  export MODEL.pt -o OUT.onnx [options]   convert a TorchScript model to ONNX\n"
    "  check MODEL.pt [options]                list every op that cannot be converted, at once\n"
    "  plugins [--json] [--plugin-path DIR]     list loaded op packs and refused files\n"
    "  decompose MODEL.pt -o OUT.pt             torch.onnx.ops calls -> ATen ops (runs without torch2onnx)\n"
    "  verify MODEL.pt [options]                compare the export in ONNX Runtime with libtorch; find the first\n"
    "                                           node that differs (--find-mismatch)\n"
    "  show MODEL.onnx                          print an ONNX graph (inputs, one line per node, initializers)\n"
    "\n"
    "'torch2onnx <command> --help' (or 'torch2onnx help <command>') describes a command's options.\n"
    "\n"
    "global options (anywhere on the command line):\n"
    "  --verbose     after an error's one line, print the whole message it was chosen from\n"
    "                (libtorch's, with the TorchScript traceback); T2O_DEBUG=1 does the same\n"
    "  --version     print the version and the plugin ABI\n";
}

std::string version_line() {
  return "torch2onnx " T2O_VERSION_STRING " (plugin ABI " + std::to_string(T2O_ABI_MAJOR) + "." +
         std::to_string(T2O_ABI_MINOR) + ")\n";
}

std::string conversion_options_help() {
  using namespace t2o::core;
  return
    "  -o, --output FILE        the ONNX file to write (written whole or not at all)\n"
    "  --opset N                target ONNX opset, " + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
    " (default " + std::to_string(kDefaultOpset) + "; fully validated up to " + std::to_string(kMaxValidatedOpset) +
    ")\n"
    "  --input SPEC             each forward() argument, in order (not needed for a .pt saved by\n"
    "                           torch2onnx.save, nor for a .pt2 program, which records them). SPEC is:\n"
    "                             TYPE[DIMS]      a tensor: float32[1,3,224,224], int64[2,16]; int64[] is 0-d\n"
    "                             (SPEC,...)      a tuple or list argument, nested freely: one graph input\n"
    "                                             per tensor inside, e.g. '(float32[1,3,20],float32[1,3,20])'\n"
    "                             {KEY:SPEC,...}  a Dict[str, ...] argument: '{a:float32[2],b:int64[3]}'\n"
    "                             none            None for an Optional argument (also inside tuples)\n"
    "                             int=3 float=0.5 bool=true str=TEXT   a constant baked into the graph\n"
    "                           For an int/float/bool argument of a scripted model, int64[], float32[]\n"
    "                           or bool[] makes it a 0-d graph input whose value may change at run\n"
    "                           time. Trailing arguments with defaults may be left out\n"
    "  --model NAME             which program of a .pt2 archive holding several (default: the only one)\n"
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
    "  --constant-folding       fold even when torch2onnx.save recorded do_constant_folding=False\n"
    "  --training eval|preserve|train\n"
    "                           the mode the model is exported in, as torch.onnx's training: eval\n"
    "                           (default, or what torch2onnx.save recorded), preserve (each module's\n"
    "                           own training flag), train (Dropout drops, BatchNorm uses the batch's\n"
    "                           statistics; running-statistics updates are not exported)\n"
    "  --external-data          weights in OUT.onnx.data beside the model (automatic above 2 GB)\n"
    "  --no-weights             the module's weights become graph inputs (named after their\n"
    "                           attributes, after the model's inputs) instead of initializers, as\n"
    "                           torch.onnx's export_params=False; no constant folding. Alias:\n"
    "                           --weights-as-inputs\n"
    "  --keep-initializers-as-inputs\n"
    "                           every initializer is also listed as a graph input (IR < 4 style)\n"
    "  --dequantized-io         a quantized input or result as one float32 tensor of its dequantized\n"
    "                           values, instead of torch.onnx's (integer tensor, scale, zero point)\n"
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

std::string export_help() {
  return "usage: torch2onnx export MODEL.pt -o OUT.onnx [options]\n"
         "\n"
         "Converts a TorchScript model (torch.jit.script/trace, then .save()) to ONNX.\n"
         "\n"
         "options (check and verify take the same ones):\n" +
         conversion_options_help() +
         "  --print                  print the written graph on stdout (as torch2onnx show does), each\n"
         "                           node with the TorchScript op, location and pack it came from\n"
         "                           (kept in the file as the node's doc_string)\n"
         "\n"
         "Many models in one process (libtorch and the packs start once):\n"
         "  torch2onnx export --batch JOBS [options] [--batch-report REPORT.jsonl]\n"
         "  --batch FILE             one export per line of FILE ('-': standard input), written as the\n"
         "                           words after 'torch2onnx export': MODEL.pt -o OUT.onnx [options];\n"
         "                           quotes as in a shell ('...', \"...\", \\), # starts a comment.\n"
         "                           Options on the command line apply to every line, before the line's\n"
         "                           own (a line's --opset wins; --input and other repeatable options\n"
         "                           add up); --plugin-path and --enable-pack only on the command line.\n"
         "                           One line per model on stderr; a model that fails is reported and\n"
         "                           the others are still written. Exit status 0 when every model was\n"
         "                           exported, 1 when any failed, 2 for a usage mistake in the file\n"
         "  --batch-report FILE      also write one JSON object per model, as each ends: line, model,\n"
         "                           output, status (\"ok\"|\"failed\"), exit_code (what a single export\n"
         "                           would return), error, details, warnings, seconds, nodes\n";
}

std::string check_help() {
  return "usage: torch2onnx check MODEL.pt [export's options] [--json]\n"
         "\n"
         "A dry run of export, with the same command line, that keeps going after failures and lists\n"
         "every op that cannot be converted: qualified name and overload, node count, first locations\n"
         "and the reason (no pack converts it; needs --opset M; the symbolic refused these arguments; a\n"
         "custom op no pack declares). Without --input only the presence of symbolics is checked; with\n"
         "it, every symbolic runs on the real argument types and, when all convert, the model is\n"
         "assembled and checked as export would (names, dynamic axes, the ONNX checker). Nothing is\n"
         "written.\n"
         "\n"
         "Exit status: 0 the model converts fully, 1 it does not, 2 bad usage or an unreadable model.\n"
         "\n"
         "options:\n"
         "  --json                   print the report as JSON (schema_version 1, documented in the README)\n" +
         conversion_options_help();
}

std::string plugins_help() {
  return
    "usage: torch2onnx plugins [--json] [--matrix] [--strict] [--plugin-path DIR]... [--enable-pack NAME]...\n"
    "\n"
    "Lists the op packs found (bundled, TORCH2ONNX_PLUGIN_PATH, --plugin-path): file, name,\n"
    "version, ABI and how many ops each registers per opset; the kernel libraries loaded before a\n"
    "model (PyTorch 2.x compatibility, torch.onnx.ops, torchvision's); then every refused file and why.\n"
    "--enable-pack NAME also loads an optional pack shipped with the program (e.g. com.microsoft).\n"
    "--matrix prints the support matrix (op x opset -> serving registration) as Markdown.\n"
    "--strict exits with status 1 when any file was refused (to check packs in a build or CI).\n";
}

std::string decompose_help() {
  return
    "usage: torch2onnx decompose MODEL.pt -o OUT.pt [--load-library PATH]... [--no-default-libraries] [-q]\n"
    "\n"
    "Rewrites every onnx::RotaryEmbedding / onnx::Attention call (torch.onnx.ops.rotary_embedding,\n"
    "attention; torch2onnx_ops) into ATen ops and saves the model, which then runs in a PyTorch\n"
    "without the torch2onnx op library. onnx_symbolic::* calls (symbolic nodes) have no ATen form\n"
    "and stay. Prints how many calls were rewritten. Kernel libraries load as for export\n"
    "(libtorch2onnx_ops, which the model needs to load, is a default one).\n";
}

std::string verify_help() {
  return
    "usage: torch2onnx verify MODEL.pt [export options] [--onnx FILE] [--rtol R] [--atol A]\n"
    "                         [--runs N] [--seed S] [--inputs DIR] [--input-range [NAME=]LO:HI]\n"
    "                         [--find-mismatch] [--repro DIR] [--json] [--ort-dir DIR]\n"
    "\n"
    "Exports MODEL.pt (or takes --onnx FILE), runs it in ONNX Runtime and the TorchScript model in\n"
    "libtorch on the same inputs, and compares every output: shape, dtype, NaN/inf positions and\n"
    "values (|onnx - torch| <= atol + rtol * |torch|; integers and bools exactly). With dynamic axes\n"
    "it also runs with each dynamic axis at another size (--dynamic-input, else one larger).\n"
    "\n"
    "options (and every option of `torch2onnx export`; -o also writes the exported model):\n"
    "  --onnx FILE              compare this ONNX file instead of exporting\n"
    "  --rtol R, --atol A       tolerances (default 1e-3 and 1e-7)\n"
    "  --runs N                 N sets of random inputs (seeds S, S+1, ...; default 1)\n"
    "  --seed S                 seed of the first set (default 0)\n"
    "  --inputs DIR             inputs from DIR/input_K.pb (ONNX TensorProto) or DIR/input_K.npy\n"
    "                           (K = 0, 1, ...); --input may then be left out\n"
    "  --input-range [NAME=]LO:HI  random values of an input (or all) uniform in [LO, HI); integer\n"
    "                           inputs default to 0:2, floats to a standard normal\n"
    "  --find-mismatch          on a mismatch, find the first TorchScript node whose ONNX result\n"
    "                           differs from libtorch's value: op, location, pack, input/output error\n"
    "  --repro DIR              write DIR/model.onnx (the first mismatching node alone when it can be\n"
    "                           cut out, else the whole model) and DIR/test_data_set_0/input_K.pb,\n"
    "                           output_K.pb (libtorch's values), replayable with any runtime\n"
    "  --json                   print the report as JSON (schema_version 1)\n"
    "  --ort-dir DIR            node_modules holding onnxruntime-node (default: TORCH2ONNX_ORT_DIR,\n"
    "                           else tests/ort/node_modules of the source tree, as scripts/setup.sh\n"
    "                           installs it)\n"
    "\n"
    "Exit status: 0 every output matches, 1 an output differs (or ONNX Runtime or the export\n"
    "fails), 2 bad usage (options, input files, a missing ONNX Runtime, an unreadable --onnx).\n"
         "\n"
         "export options:\n" +
         conversion_options_help();
}

std::string show_help() {
  return
    "usage: torch2onnx show MODEL.onnx\n"
    "\n"
    "Prints the graph: its inputs with element types and shapes, one line per node (output types, op,\n"
    "attributes, inputs, and the scope it came from when the file records it: torch2onnx export\n"
    "--print writes each node's TorchScript op and location as its doc_string), subgraphs indented,\n"
    "and the initializers summarized (name, type, shape). Exit status 2 for an unreadable file.\n";
}

std::optional<std::string> command_help(const std::string& command) {
  if (command == "export") return export_help();
  if (command == "check") return check_help();
  if (command == "plugins") return plugins_help();
  if (command == "decompose") return decompose_help();
  if (command == "verify") return verify_help();
  if (command == "show") return show_help();
  return std::nullopt;
}

bool is_help_flag(const std::string& word) { return word == "--help" || word == "-h"; }

}  // namespace t2o::cli
