// torch2onnx verify: does the ONNX model compute what the TorchScript model computes, and if not,
// which TorchScript node is the first whose ONNX result differs.
//
// ONNX Runtime runs in node (npm's onnxruntime-node) through ort_runner.js, installed beside the
// program (../share/torch2onnx/); tensors go back and forth as ONNX TensorProto files in a
// temporary directory. libtorch runs in this process.
#include "commands.hpp"
#include "export_options.hpp"
#include "ort_process.hpp"

#include <torch2onnx/core/dtype_table.hpp>
#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/verify.hpp>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace t2o::cli {

namespace {

namespace fs = std::filesystem;
using t2o::core::ExportError;

const char* kVerifyHelp =
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
    "fails), 2 bad usage (options, input files, a missing ONNX Runtime, an unreadable --onnx).\n";

constexpr int kVerifySchemaVersion = 1;

struct VerifyOptions {
  ConversionArgs conv;  // export's options (tools/export_options); -o also writes the exported model
  t2o::core::ExportOptions& exp = conv.options;
  std::string onnx, inputs_dir, repro_dir, ort_dir;
  double rtol = 1e-3, atol = 1e-7;
  int64_t runs = 1, seed = 0;
  std::optional<std::pair<double, double>> range_all;
  std::map<std::string, std::pair<double, double>> range_of;
  bool find_mismatch = false, json = false;
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

std::pair<double, double> parse_range(const std::string& text) {
  auto colon = text.find(':', text[0] == '-' ? 1 : 0);
  if (colon == std::string::npos) throw UsageError("--input-range expects [NAME=]LO:HI, got '" + text + "'");
  double lo = parse_double("--input-range", text.substr(0, colon));
  double hi = parse_double("--input-range", text.substr(colon + 1));
  if (!(hi > lo)) throw UsageError("--input-range " + text + ": HI must be greater than LO");
  return {lo, hi};
}

void parse(Args& args, VerifyOptions& o) {
  std::string value;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << kVerifyHelp << "\nexport options:\n" << conversion_options_help();
      std::exit(0);
    }
    if (args.option("--onnx", value)) o.onnx = value;
    else if (args.option("--rtol", value)) o.rtol = parse_double("--rtol", value);
    else if (args.option("--atol", value)) o.atol = parse_double("--atol", value);
    else if (args.option("--runs", value)) o.runs = parse_int("--runs", value);
    else if (args.option("--seed", value)) o.seed = parse_int("--seed", value);
    else if (args.option("--inputs", value)) o.inputs_dir = value;
    else if (args.option("--input-range", value)) {
      auto eq = value.find('=');
      if (eq == std::string::npos) o.range_all = parse_range(value);
      else o.range_of[value.substr(0, eq)] = parse_range(value.substr(eq + 1));
    } else if (args.flag("--find-mismatch")) o.find_mismatch = true;
    else if (args.option("--repro", value)) o.repro_dir = value;
    else if (args.flag("--json")) o.json = true;
    else if (args.option("--ort-dir", value)) o.ort_dir = value;
    else if (!parse_conversion_option(args, o.conv)) take_model(args, o.conv);
  }
  if (o.conv.model.empty()) throw UsageError("no model given (torch2onnx verify MODEL.pt --input TYPE[DIMS] ...)");
  if (!(o.rtol >= 0) || !(o.atol >= 0)) throw UsageError("--rtol and --atol must be >= 0");
  if (o.runs < 1) throw UsageError("--runs must be >= 1");
}

// ---- comparison ----

struct Diff {
  bool ok = true;
  std::string problem;  // shape or dtype difference; empty when values were compared
  double max_abs = 0, max_rel = 0;
  std::vector<int64_t> where;  // index of the largest error
  double onnx_at = 0, torch_at = 0;
  int64_t bad = 0, total = 0;
};

std::string shape_text(at::IntArrayRef dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string type_text(const at::Tensor& t) { return t2o::core::dtype_name(t.scalar_type()) + shape_text(t.sizes()); }

std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(3) << v;
  return os.str();
}

// `scale_atol`: atol raised to rtol/20 x the mean magnitude of the libtorch value (intermediate
// values: the rounding error of an element near zero follows the scale of its whole tensor, e.g. a
// matmul's operands, not the element's own size; 1/20 keeps a planted tanh-for-erf gelu visible).
Diff compare(const at::Tensor& onnx, const at::Tensor& ref, double rtol, double atol, bool scale_atol = false) {
  Diff d;
  if (onnx.sizes() != ref.sizes()) {
    d.ok = false;
    d.problem = "shape " + shape_text(onnx.sizes()) + ", libtorch " + shape_text(ref.sizes());
    return d;
  }
  if (onnx.scalar_type() != ref.scalar_type()) {
    d.ok = false;
    d.problem = "dtype " + t2o::core::dtype_name(onnx.scalar_type()) + ", libtorch " +
                t2o::core::dtype_name(ref.scalar_type());
    return d;
  }
  d.total = ref.numel();
  if (d.total == 0) return d;
  at::Tensor a = onnx.is_complex() ? at::view_as_real(onnx).to(at::kDouble) : onnx.to(at::kDouble);
  at::Tensor b = ref.is_complex() ? at::view_as_real(ref).to(at::kDouble) : ref.to(at::kDouble);
  const bool exact = !at::isFloatingType(ref.scalar_type()) && !ref.is_complex();
  at::Tensor nan_a = at::isnan(a), nan_b = at::isnan(b);
  at::Tensor finite = at::isfinite(a) & at::isfinite(b);
  at::Tensor err = at::where(finite, (a - b).abs(), at::zeros_like(a));
  double tol_abs = atol;
  if (scale_atol) {
    at::Tensor fb = at::where(at::isfinite(b), b.abs(), at::zeros_like(b));
    tol_abs = std::max(atol, rtol / 20 * fb.mean().item<double>());
  }
  at::Tensor allowed = exact ? at::zeros_like(b) : tol_abs + rtol * b.abs();
  // Infinities must be equal; NaN only matches NaN.
  at::Tensor inf_bad = (at::isinf(a) | at::isinf(b)) & ~(a == b) & ~nan_a & ~nan_b;
  at::Tensor bad = (nan_a != nan_b) | inf_bad | (finite & (err > allowed));
  d.bad = bad.sum().item<int64_t>();
  d.ok = d.bad == 0;
  d.max_abs = err.max().item<double>();
  at::Tensor rel = at::where(finite & (b != 0), err / b.abs(), at::zeros_like(err));
  d.max_rel = rel.max().item<double>();
  // Where: the first bad element, else the largest error.
  int64_t flat = d.bad ? bad.reshape(-1).to(at::kByte).argmax().item<int64_t>() : err.reshape(-1).argmax().item<int64_t>();
  auto sizes = a.sizes();
  d.where.assign(sizes.size(), 0);
  for (int64_t i = (int64_t)sizes.size() - 1, rest = flat; i >= 0; --i) {
    d.where[(size_t)i] = sizes[(size_t)i] ? rest % sizes[(size_t)i] : 0;
    rest = sizes[(size_t)i] ? rest / sizes[(size_t)i] : 0;
  }
  d.onnx_at = a.reshape(-1)[flat].item<double>();
  d.torch_at = b.reshape(-1)[flat].item<double>();
  if (ref.is_complex()) d.where.pop_back();
  return d;
}

std::string diff_text(const Diff& d) {
  if (!d.problem.empty()) return "MISMATCH: " + d.problem;
  std::string s = "max abs err " + num(d.max_abs) + ", max rel err " + num(d.max_rel);
  if (d.ok) return s + ": ok";
  std::string where = shape_text(d.where);
  return "MISMATCH: " + std::to_string(d.bad) + " of " + std::to_string(d.total) + " elements beyond tolerance, " + s +
         "; at " + where + " onnx " + num(d.onnx_at) + ", libtorch " + num(d.torch_at);
}

nlohmann::json diff_json(const Diff& d) {
  nlohmann::json j = {{"match", d.ok}};
  if (!d.problem.empty()) {
    j["problem"] = d.problem;
    return j;
  }
  j["max_abs_error"] = d.max_abs;
  j["max_rel_error"] = d.max_rel;
  j["mismatched_elements"] = d.bad;
  j["elements"] = d.total;
  j["where"] = d.where;
  j["onnx_value"] = d.onnx_at;
  j["torch_value"] = d.torch_at;
  return j;
}

// ---- inputs ----

struct InputSet {
  std::string label;                  // "seed 0, input_ids int64[2,16]" / "from DIR"
  std::vector<at::Tensor> onnx_inputs;  // one per ONNX graph input
  std::vector<c10::IValue> torch_args;  // forward()'s arguments (None where --input none)
};

at::Tensor random_tensor(const t2o::core::InputSpec& spec, std::optional<std::pair<double, double>> range,
                         at::Generator& gen) {
  auto st = *t2o::core::dtype_from_name(spec.dtype);
  if (at::isQIntType(st)) throw UsageError("verify does not support quantized inputs (" + spec.text + ") yet");
  auto dims = spec.dims;
  if (st == at::kBool) return at::randint(0, 2, dims, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
  if (at::isFloatingType(st) || at::isComplexType(st)) {
    auto base = at::isComplexType(st) ? st : at::kDouble;
    at::Tensor t = range ? at::empty(dims, at::TensorOptions().dtype(base)).uniform_(range->first, range->second, gen)
                         : at::randn(dims, gen, at::TensorOptions().dtype(base));
    return t.to(st);
  }
  auto [lo, hi] = range.value_or(std::make_pair(0.0, 2.0));
  return at::randint((int64_t)std::ceil(lo), (int64_t)std::ceil(hi), dims, gen, at::TensorOptions().dtype(at::kLong))
      .to(st);
}

// ---- temporary directory ----

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "torch2onnx-verify-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw ExportError("cannot create a temporary directory in " + fs::temp_directory_path().string());
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_inputs(const fs::path& dir, const std::vector<at::Tensor>& tensors, const std::vector<std::string>& names) {
  fs::create_directories(dir);
  for (size_t k = 0; k < tensors.size(); ++k)
    t2o::core::write_tensor_pb((dir / ("input_" + std::to_string(k) + ".pb")).string(), tensors[k],
                               k < names.size() ? names[k] : "");
}

std::vector<at::Tensor> read_outputs(const fs::path& dir, size_t n) {
  std::vector<at::Tensor> out;
  for (size_t k = 0; k < n; ++k) out.push_back(t2o::core::read_tensor_file((dir / ("output_" + std::to_string(k) + ".pb")).string()));
  return out;
}

// Input files DIR/input_K.pb|.npy, K = 0, 1, ...
std::vector<at::Tensor> read_input_dir(const std::string& dir) {
  if (!fs::is_directory(dir)) throw UsageError("--inputs " + dir + ": no such directory");
  std::vector<at::Tensor> out;
  for (size_t k = 0;; ++k) {
    fs::path pb = fs::path(dir) / ("input_" + std::to_string(k) + ".pb");
    fs::path npy = fs::path(dir) / ("input_" + std::to_string(k) + ".npy");
    if (fs::exists(pb)) out.push_back(t2o::core::read_tensor_file(pb.string()));
    else if (fs::exists(npy)) out.push_back(t2o::core::read_tensor_file(npy.string()));
    else break;
  }
  if (out.empty()) throw UsageError("--inputs " + dir + ": no input_0.pb or input_0.npy there");
  return out;
}

class Timer {
 public:
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

int run_verify(Args& args) {
  VerifyOptions o;
  parse(args, o);
  Timer total;
  // Before any work: ONNX Runtime must be reachable.
  OrtRunner ort(o.ort_dir);

  auto say = [&](const std::string& line) {
    if (!o.conv.quiet && !o.json) std::cerr << "torch2onnx: " << line << std::endl;
  };
  if (!o.conv.quiet) o.exp.warn = [](const std::string& m) { print_warning(m); };

  // Inputs from files: they give the --input specs when none are given.
  std::vector<at::Tensor> file_inputs;
  if (!o.inputs_dir.empty()) {
    try {
      file_inputs = read_input_dir(o.inputs_dir);
    } catch (const ExportError& e) {
      throw UsageError(std::string("--inputs: ") + e.what());
    }
    if (o.exp.inputs.empty()) {
      for (const auto& t : file_inputs) {
        t2o::core::InputSpec spec;
        spec.dtype = t2o::core::dtype_name(t.scalar_type());
        spec.dims = t.sizes().vec();
        spec.text = spec.dtype + shape_text(t.sizes());
        o.exp.inputs.push_back(spec);
      }
    }
  }
  std::vector<t2o::core::InputSpec> onnx_specs;  // the specs of ONNX graph inputs (not `none`)
  for (const auto& s : o.exp.inputs) {
    // verify feeds libtorch one tensor per argument: tuple, dict and primitive arguments are export's.
    if (s.kind != t2o::core::InputSpec::Kind::Tensor && s.kind != t2o::core::InputSpec::Kind::None)
      throw UsageError("--input " + s.text + ": verify takes tensor and none arguments only (nested and primitive "
                       "arguments are exported by 'export', not verified yet)");
    if (s.dtype != "none") onnx_specs.push_back(s);
  }
  if (!file_inputs.empty()) {
    if (file_inputs.size() != onnx_specs.size())
      throw UsageError("--inputs " + o.inputs_dir + " holds " + std::to_string(file_inputs.size()) + " input file(s), but " +
                       std::to_string(onnx_specs.size()) + " --input are given");
    for (size_t k = 0; k < file_inputs.size(); ++k) {
      const auto& t = file_inputs[k];
      const auto& spec = onnx_specs[k];
      std::string file_type = type_text(t);
      if (t2o::core::dtype_name(t.scalar_type()) != spec.dtype && *t2o::core::dtype_from_name(spec.dtype) != t.scalar_type())
        throw UsageError("--inputs " + o.inputs_dir + ": input_" + std::to_string(k) + " is " + file_type +
                         ", but --input " + spec.text + " wants dtype " + spec.dtype);
      if (t.sizes().vec() != spec.dims && o.exp.dynamic_axes.empty())
        throw UsageError("--inputs " + o.inputs_dir + ": input_" + std::to_string(k) + " is " + file_type +
                         ", but --input " + spec.text + " wants shape " + shape_text(spec.dims));
    }
  }

  t2o::registry::Registry registry;
  load_conversion_plugins(registry, o.conv);
  if (!o.conv.quiet) warn_refused(registry);

  TempDir tmp;
  std::unique_ptr<t2o::core::Conversion> conversion;
  std::string onnx_path;
  std::vector<std::string> input_names, output_names;
  Timer export_time;
  if (!o.onnx.empty()) {
    onnx_path = o.onnx;
    std::vector<t2o::core::OnnxInputInfo> infos;
    try {
      infos = t2o::core::onnx_inputs(onnx_path);
      output_names = t2o::core::onnx_outputs(onnx_path);
    } catch (const ExportError& e) {
      throw UsageError(std::string("--onnx: ") + e.what());
    }
    for (const auto& i : infos) input_names.push_back(i.name);
    if (infos.size() != onnx_specs.size())
      throw UsageError("--onnx " + onnx_path + " has " + std::to_string(infos.size()) + " input(s), but " +
                       std::to_string(onnx_specs.size()) + " --input are given");
  } else {
    say("exporting " + o.conv.model + " (opset " + std::to_string(o.exp.opset) + ")");
    conversion = t2o::core::Conversion::convert(o.conv.model, o.exp, registry);
    onnx_path = (tmp.path / "model.onnx").string();
    conversion->write(onnx_path);
    if (!o.conv.output.empty()) conversion->write(o.conv.output);
    input_names = conversion->input_names();
    output_names = conversion->output_names();
  }
  const double export_seconds = export_time.seconds();

  t2o::core::TorchScriptModel torch_model(o.conv.model, o.exp, registry);

  // Input sets: --inputs, or `runs` random sets at the --input sizes, and with dynamic axes each set
  // again at other sizes.
  std::vector<std::vector<int64_t>> base_shapes;
  for (const auto& s : onnx_specs) base_shapes.push_back(s.dims);
  std::vector<std::vector<std::vector<int64_t>>> size_sets = {base_shapes};
  if (!o.exp.dynamic_axes.empty() && file_inputs.empty()) {
    // The sizes export's second run found the model runs at (--dynamic-input, each dynamic axis one
    // larger, or another size the model accepts); with --onnx, --dynamic-input or one larger.
    std::vector<std::vector<int64_t>> varied = conversion ? conversion->other_sizes() : base_shapes;
    if (!conversion && !o.exp.dynamic_inputs.empty()) {
      varied.clear();
      for (const auto& s : o.exp.dynamic_inputs)
        if (s.dtype != "none") varied.push_back(s.dims);
    } else if (!conversion) {
      for (const auto& spec : o.exp.dynamic_axes) {
        auto it = std::find(input_names.begin(), input_names.end(), spec.name);
        if (it == input_names.end()) continue;
        for (const auto& [axis, sym] : spec.axes)
          if (axis < (int64_t)varied[it - input_names.begin()].size()) varied[it - input_names.begin()][axis] += 1;
      }
    }
    if (!varied.empty() && varied.size() == base_shapes.size() && varied != base_shapes) size_sets.push_back(varied);
  }
  std::vector<InputSet> sets;
  auto torch_args = [&](const std::vector<at::Tensor>& tensors) {
    std::vector<c10::IValue> a;
    size_t k = 0;
    for (const auto& s : o.exp.inputs) a.push_back(s.dtype == "none" ? c10::IValue() : c10::IValue(tensors[k++]));
    return a;
  };
  if (!file_inputs.empty()) {
    sets.push_back({"inputs from " + o.inputs_dir, file_inputs, torch_args(file_inputs)});
  } else {
    for (int64_t r = 0; r < o.runs; ++r) {
      for (const auto& shapes : size_sets) {
        at::Generator gen = at::detail::createCPUGenerator((uint64_t)(o.seed + r));
        InputSet set;
        std::string label = "seed " + std::to_string(o.seed + r) + ":";
        for (size_t k = 0; k < onnx_specs.size(); ++k) {
          auto spec = onnx_specs[k];
          spec.dims = shapes[k];
          auto named = k < input_names.size() ? o.range_of.find(input_names[k]) : o.range_of.end();
          auto range = named != o.range_of.end() ? std::optional(named->second) : o.range_all;
          set.onnx_inputs.push_back(random_tensor(spec, range, gen));
          label += " " + (k < input_names.size() ? input_names[k] : "input_" + std::to_string(k)) + " " +
                   type_text(set.onnx_inputs.back());
        }
        set.torch_args = torch_args(set.onnx_inputs);
        set.label = label;
        sets.push_back(std::move(set));
      }
    }
  }
  for (const auto& name : o.range_of)
    if (std::find(input_names.begin(), input_names.end(), name.first) == input_names.end())
      throw UsageError("--input-range names '" + name.first + "', which is no input of the model");

  // Run both and compare.
  nlohmann::json report = {{"schema_version", kVerifySchemaVersion}, {"model", o.conv.model},
                           {"onnx", o.onnx.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.onnx)},
                           {"rtol", o.rtol}, {"atol", o.atol}};
  nlohmann::json runs = nlohmann::json::array();
  std::ostringstream text;
  text << "verify " << o.conv.model << " against " << (o.onnx.empty() ? "its export (opset " + std::to_string(o.exp.opset) + ")" : o.onnx)
       << " in ONNX Runtime; rtol " << o.rtol << ", atol " << o.atol << "\n";
  bool all_ok = true;
  std::optional<size_t> failing_set;
  std::vector<std::vector<at::Tensor>> torch_outputs(sets.size());
  double ort_seconds = 0, torch_seconds = 0;
  for (size_t si = 0; si < sets.size(); ++si) {
    const auto& set = sets[si];
    fs::path in_dir = tmp.path / ("in_" + std::to_string(si)), out_dir = tmp.path / ("out_" + std::to_string(si));
    write_inputs(in_dir, set.onnx_inputs, input_names);
    fs::create_directories(out_dir);
    Timer t_ort;
    ort.run(onnx_path, in_dir.string(), out_dir.string(), {});
    ort_seconds += t_ort.seconds();
    auto onnx_out = read_outputs(out_dir, output_names.size());
    Timer t_torch;
    try {
      torch_outputs[si] = torch_model.run(set.torch_args);
    } catch (const ExportError& e) {
      bool integers = false;
      for (const auto& t : set.onnx_inputs) integers |= !at::isFloatingType(t.scalar_type());
      // Random integers may be out of range for the model (token ids, indices): say how to fix it.
      throw ExportError(std::string(e.what()) + " (inputs: " + set.label + ")" +
                        (integers && file_inputs.empty() ? "; integer inputs are random in [0, 2) unless --input-range LO:HI says otherwise" : ""));
    }
    torch_seconds += t_torch.seconds();
    const auto& ref = torch_outputs[si];
    text << "run " << si + 1 << "/" << sets.size() << " (" << set.label << "):\n";
    nlohmann::json run = {{"inputs", set.label}, {"outputs", nlohmann::json::array()}};
    if (ref.size() != onnx_out.size()) {
      all_ok = false;
      failing_set = failing_set.value_or(si);
      std::string line = "the ONNX model has " + std::to_string(onnx_out.size()) + " output(s), the TorchScript model " +
                         std::to_string(ref.size());
      text << "  MISMATCH: " << line << "\n";
      run["problem"] = line;
      runs.push_back(run);
      continue;
    }
    for (size_t k = 0; k < ref.size(); ++k) {
      Diff d = compare(onnx_out[k], ref[k], o.rtol, o.atol);
      text << "  " << output_names[k] << " " << type_text(ref[k]) << ": " << diff_text(d) << "\n";
      auto j = diff_json(d);
      j["name"] = output_names[k];
      j["dtype"] = t2o::core::dtype_name(ref[k].scalar_type());
      j["shape"] = ref[k].sizes().vec();
      run["outputs"].push_back(j);
      if (!d.ok) {
        all_ok = false;
        failing_set = failing_set.value_or(si);
      }
    }
    runs.push_back(run);
  }
  report["runs"] = runs;
  report["match"] = all_ok;
  text << (all_ok ? "all outputs match" : "outputs differ") << " (" << sets.size() << " run(s))\n";

  // Localisation: every TorchScript value with an ONNX counterpart as an extra output, compared
  // with libtorch's value in topological order.
  std::optional<size_t> culprit;
  std::map<size_t, at::Tensor> recorded, probed_onnx;
  nlohmann::json first = nullptr;
  double find_seconds = 0;
  if (!all_ok && o.find_mismatch) {
    Timer t_find;
    if (!conversion) {
      say("--find-mismatch: converting " + o.conv.model + " again to map its values to ONNX values (--onnx " + o.onnx +
          " has no such map)");
      conversion = t2o::core::Conversion::convert(o.conv.model, o.exp, registry);
    }
    const auto& set = sets[*failing_set];
    const auto& values = conversion->values();
    std::set<std::string> graph_inputs(input_names.begin(), input_names.end());
    std::vector<std::string> fetch;
    std::vector<size_t> fetched;
    std::set<std::string> seen;
    for (size_t v = 0; v < values.size(); ++v) {
      const auto& name = values[v].onnx;
      if (name.empty() || graph_inputs.count(name) || !seen.insert(name).second) continue;
      fetch.push_back(name);
      fetched.push_back(v);
    }
    fs::path probe_model = tmp.path / "probes.onnx", in_dir = tmp.path / ("in_" + std::to_string(*failing_set)),
             out_dir = tmp.path / "probes";
    fs::create_directories(out_dir);
    conversion->write(probe_model.string(), fetch);
    ort.run(probe_model.string(), in_dir.string(), out_dir.string(), fetch);
    auto onnx_values = read_outputs(out_dir, fetch.size());
    std::map<std::string, at::Tensor> onnx_by_name;
    for (size_t i = 0; i < fetch.size(); ++i) onnx_by_name[fetch[i]] = onnx_values[i];
    for (size_t k = 0; k < input_names.size(); ++k) onnx_by_name[input_names[k]] = set.onnx_inputs[k];
    recorded = conversion->record(set.onnx_inputs);
    for (size_t v = 0; v < values.size(); ++v) {
      auto it = onnx_by_name.find(values[v].onnx);
      if (it != onnx_by_name.end()) probed_onnx[v] = it->second;
    }
    const auto& nodes = conversion->nodes();
    size_t compared = 0, folded = 0;
    for (size_t k = 0; k < nodes.size() && !culprit; ++k) {
      for (size_t v : nodes[k].outputs) {
        if (!recorded.count(v)) continue;
        if (!probed_onnx.count(v)) {
          ++folded;
          continue;
        }
        ++compared;
        if (!compare(probed_onnx[v], recorded[v], o.rtol, o.atol, true).ok) {
          culprit = k;
          break;
        }
      }
    }
    find_seconds = t_find.seconds();
    if (!culprit) {
      std::string line = "no single node found: all " + std::to_string(compared) +
                         " intermediate values with an ONNX counterpart match libtorch's; the difference arises in "
                         "values folded away at export time or without an ONNX value (" +
                         std::to_string(folded) + " such value(s))";
      text << "first mismatch: " << line << "\n";
      first = {{"found", false}, {"message", line}};
    } else {
      const auto& n = nodes[*culprit];
      text << "first mismatch: " << n.op << " at " << n.location << "\n";
      text << "  converted by pack " << n.pack << ": " << n.symbolic << "\n";
      std::string onnx_nodes;
      for (const auto& name : n.onnx_nodes) onnx_nodes += (onnx_nodes.empty() ? "" : ", ") + name;
      text << "  ONNX nodes: " << (onnx_nodes.empty() ? "(none)" : onnx_nodes) << "\n";
      first = {{"found", true},  {"op", n.op}, {"location", n.location}, {"pack", n.pack},
               {"symbolic", n.symbolic}, {"onnx_nodes", n.onnx_nodes}};
      nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array();
      auto describe = [&](size_t v, const char* role, nlohmann::json& list) {
        const auto& pv = values[v];
        nlohmann::json j = {{"value", pv.name}, {"onnx", pv.onnx}};
        std::string line = std::string("  ") + role + " " + pv.name + (pv.onnx.empty() ? "" : " (ONNX " + pv.onnx + ")");
        if (!recorded.count(v)) {
          line += ": not a tensor at run time";
        } else if (!probed_onnx.count(v)) {
          line += ": " + (pv.folded.empty() ? std::string("no ONNX value") : pv.folded);
          j["folded"] = pv.folded;
        } else {
          Diff d = compare(probed_onnx[v], recorded[v], o.rtol, o.atol, true);
          line += " " + type_text(recorded[v]) + ": " + (d.ok && d.problem.empty() ? "max abs err " + num(d.max_abs) +
                                                                                     " (within tolerance)"
                                                                                   : diff_text(d));
          j.update(diff_json(d));
        }
        text << line << "\n";
        list.push_back(j);
      };
      for (size_t v : n.inputs) describe(v, "input", ins);
      for (size_t v : n.outputs) describe(v, "output", outs);
      first["inputs"] = ins;
      first["outputs"] = outs;
    }
    report["first_mismatch"] = first;
  }

  // Repro: the culprit alone when it can be cut out, else the whole model, with libtorch's values.
  if (!o.repro_dir.empty()) {
    fs::path dir = o.repro_dir, data = dir / "test_data_set_0";
    std::error_code ec;
    fs::create_directories(data, ec);
    if (ec) throw UsageError("--repro " + o.repro_dir + ": cannot create the directory: " + ec.message());
    std::string cut;
    if (culprit) {
      cut = conversion->subgraph(*culprit, (dir / "model.onnx").string());
    }
    const size_t si = failing_set.value_or(0);
    std::vector<at::Tensor> ins, outs;
    std::vector<std::string> in_names;
    if (!cut.empty()) {
      const auto& n = conversion->nodes()[*culprit];
      const auto& values = conversion->values();
      std::set<std::string> wanted;
      std::stringstream ss(cut);
      std::string name;
      std::vector<std::string> order;
      while (std::getline(ss, name, ','))
        if (name != "-") order.push_back(name);
      for (const auto& nm : order)
        for (size_t v : n.inputs)
          if (values[v].onnx == nm) {
            ins.push_back(recorded.at(v));
            in_names.push_back(nm);
            break;
          }
      for (size_t v : n.outputs)
        if (!values[v].onnx.empty()) outs.push_back(recorded.at(v));
    } else {
      fs::copy_file(onnx_path, dir / "model.onnx", fs::copy_options::overwrite_existing, ec);
      if (ec) throw UsageError("--repro: cannot write " + (dir / "model.onnx").string() + ": " + ec.message());
      ins = sets[si].onnx_inputs;
      in_names = input_names;
      outs = torch_outputs[si];
    }
    for (const auto& entry : fs::directory_iterator(data)) fs::remove(entry.path(), ec);
    write_inputs(data, ins, in_names);
    for (size_t k = 0; k < outs.size(); ++k) {
      std::string out_name = cut.empty() ? (k < output_names.size() ? output_names[k] : "")
                                         : conversion->values()[conversion->nodes()[*culprit].outputs[k]].onnx;
      t2o::core::write_tensor_pb((data / ("output_" + std::to_string(k) + ".pb")).string(), outs[k], out_name);
    }
    std::string what = cut.empty() ? "the whole model" : "the first mismatching node alone";
    text << "repro: " << (dir / "model.onnx").string() << " (" << what << "), test_data_set_0 with " << ins.size()
         << " input(s) and libtorch's " << outs.size() << " output(s)\n";
    report["repro"] = {{"dir", o.repro_dir}, {"subgraph", !cut.empty()}};
  }
  report["seconds"] = {{"export", export_seconds}, {"onnxruntime", ort_seconds}, {"libtorch", torch_seconds},
                       {"find_mismatch", find_seconds}, {"total", total.seconds()}};
  if (o.json) std::cout << report.dump(2) << std::endl;
  else std::cout << text.str();
  return all_ok ? 0 : 1;
}

}  // namespace t2o::cli
