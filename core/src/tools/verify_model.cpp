// verify_model(): the whole of `torch2onnx verify`, in the order it runs.
//
//   1. ONNX Runtime reachable (before any work); input files read; the --input specs checked
//   2. the packs loaded (request.load_packs); the model exported in memory, or the --onnx file read
//   3. the input sets: the files, or `runs` random sets, each again at other sizes with dynamic axes
//   4. each set run in ONNX Runtime (node, ort_runner) and in libtorch; every output compared
//   5. --find-mismatch: every TorchScript value with an ONNX counterpart made an extra output of the
//      failing set's run, compared with libtorch's recorded value in topological order
//   6. --repro: the first mismatching node alone when it can be cut out, else the whole model, with
//      libtorch's values as a test data set
//
// A request that cannot be carried out is a VerifyRequestError (the CLI's usage mistakes); a failed
// export, ONNX Runtime or libtorch run an ExportError; a mismatch is in the report.
#include "tools/ort_runner.hpp"
#include "tools/verify_inputs.hpp"
#include "tools/verify_report.hpp"

#include "load/kernel_libraries.hpp"
#include "load/archive_bounds.hpp"
#include "signature/default_dtype.hpp"
#include "signature/signature.hpp"
#include "signature/program_signature.hpp"
#include "torch2onnx/core/custom_ops.hpp"
#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/verify.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>

namespace t2o::core {

namespace {

namespace fs = std::filesystem;

class Timer {
 public:
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The bundled packs and TORCH2ONNX_PLUGIN_PATH, as t2o::load_packs() loads them.
void load_default_packs(t2o::registry::Registry& registry) {
  registry.set_schema_checker(&check_custom_op_schema);
  for (const auto& entry : t2o::registry::plugin_search_path(core_binary_dir(), {}))
    registry.load_directory(entry.dir, entry.origin);
}

class Verify {
 public:
  explicit Verify(const VerifyRequest& request) : rq_(request), options_(request.options), ort_(request.ort_dir) {
    report_.model = rq_.model;
    report_.onnx = rq_.onnx;
    report_.opset = options_.opset;
    report_.rtol = rq_.rtol;
    report_.atol = rq_.atol;
  }

  VerifyReport run() {
    // An exported program records its inputs, their dynamic dims and sizes inside its range
    // constraints: verify's inputs follow them when none are given, as the export does.
    const bool program = !rq_.model.empty() && is_exported_program_file(rq_.model);
    if (program && options_.inputs.empty() && rq_.inputs_dir.empty()) {
      load_kernel_libraries(options_.kernel_libraries, options_.default_kernel_libraries, options_.warn);
      ExportOptions quiet = options_;
      quiet.warn = nullptr;  // the export says them
      options_ = open_exported_program(rq_.model, quiet).signature.options;
      options_.warn = rq_.options.warn;
      saved_specs_ = true;
    }
    // A .pt saved by torch2onnx.save carries its --input specs (and --dequantized-io): verify's inputs
    // follow them when none are given, as the export does.
    if (!program && options_.inputs.empty() && rq_.inputs_dir.empty() && options_.use_saved_signature &&
        !rq_.model.empty()) {
      check_archive_bounds(rq_.model);
      if (auto saved = read_saved_signature(rq_.model)) {
        options_ = with_saved_signature(options_, *saved);
        saved_specs_ = true;
      }
    }
    check_inputs();
    // The export itself reads the saved signature (with its example values) as export does.
    convert_options_ = saved_specs_ ? rq_.options : options_;
    // The model's default dtype for every libtorch run verify makes (the conversion sets it again).
    std::string dtype = options_.default_dtype;
    if (dtype.empty() && options_.use_saved_signature && !rq_.model.empty() && !program) {
      check_archive_bounds(rq_.model);  // before the saved signature, a record of the archive, is read
      if (auto saved = read_saved_signature(rq_.model)) dtype = saved->default_dtype;
    }
    DefaultDtypeScope default_dtype(dtype);
    if (rq_.load_packs) rq_.load_packs(registry_);
    else load_default_packs(registry_);
    TempDir tmp;
    tmp_ = tmp.path();
    Timer export_time;
    export_or_read();
    report_.seconds.export_model = export_time.seconds();
    TorchScriptModel torch_model(rq_.model, options_, registry_);
    make_input_sets();
    run_and_compare(torch_model);
    if (!report_.match && rq_.find_mismatch) {
      Timer t_find;
      find_mismatch();
      report_.seconds.find_mismatch = t_find.seconds();
    }
    if (!rq_.repro_dir.empty()) write_repro();
    report_.seconds.total = total_.seconds();
    return std::move(report_);
  }

 private:
  void say(const std::string& line) const {
    if (rq_.progress) rq_.progress(line);
  }

  // Input files give the --input specs when none are given; verify feeds libtorch one tensor per
  // argument (tuple, dict and primitive arguments are export's).
  void check_inputs() {
    for (const auto& s : options_.inputs)
      if (!rq_.inputs_dir.empty() && s.kind == InputSpec::Kind::Tensor && at::isQIntType(*dtype_from_name(s.dtype)))
        throw VerifyRequestError("--inputs: quantized inputs (" + s.text +
                                 ") are made at random only; leave out --inputs");
    if (!rq_.inputs_dir.empty()) {
      file_inputs_ = read_input_dir(rq_.inputs_dir);
      if (options_.inputs.empty()) {
        for (const auto& t : file_inputs_) {
          InputSpec spec;
          spec.dtype = dtype_name(t.scalar_type());
          spec.dims = t.sizes().vec();
          spec.text = spec.dtype + shape_text(t.sizes());
          options_.inputs.push_back(spec);
        }
      }
    }
    for (const auto& s : options_.inputs) {
      if (s.kind != InputSpec::Kind::Tensor && s.kind != InputSpec::Kind::None)
        throw VerifyRequestError("--input " + s.text + ": verify takes tensor and none arguments only (nested and "
                                 "primitive arguments are exported by 'export', not verified yet)");
      if (s.dtype != "none") onnx_specs_.push_back(s);
    }
    for (const auto& s : onnx_specs_) {
      if (!at::isQIntType(*dtype_from_name(s.dtype))) continue;
      quantized_inputs_ = true;
      if (rq_.find_mismatch || !rq_.repro_dir.empty())
        throw VerifyRequestError("--find-mismatch and --repro do not take quantized inputs (" + s.text + ") yet");
    }
    if (file_inputs_.empty()) return;
    if (file_inputs_.size() != onnx_specs_.size())
      throw VerifyRequestError("--inputs " + rq_.inputs_dir + " holds " + std::to_string(file_inputs_.size()) +
                               " input file(s), but " + std::to_string(onnx_specs_.size()) + " --input are given");
    for (size_t k = 0; k < file_inputs_.size(); ++k) {
      const auto& t = file_inputs_[k];
      const auto& spec = onnx_specs_[k];
      std::string file_type = type_text(t);
      if (dtype_name(t.scalar_type()) != spec.dtype && *dtype_from_name(spec.dtype) != t.scalar_type())
        throw VerifyRequestError("--inputs " + rq_.inputs_dir + ": input_" + std::to_string(k) + " is " + file_type +
                                 ", but --input " + spec.text + " wants dtype " + spec.dtype);
      if (t.sizes().vec() != spec.dims && options_.dynamic_axes.empty())
        throw VerifyRequestError("--inputs " + rq_.inputs_dir + ": input_" + std::to_string(k) + " is " + file_type +
                                 ", but --input " + spec.text + " wants shape " + shape_text(spec.dims));
    }
  }

  void export_or_read() {
    if (!rq_.onnx.empty()) {
      onnx_path_ = rq_.onnx;
      std::vector<OnnxInputInfo> infos;
      try {
        infos = onnx_inputs(onnx_path_);
        output_names_ = onnx_outputs(onnx_path_);
      } catch (const ExportError& e) {
        throw VerifyRequestError(std::string("--onnx: ") + e.what());
      }
      for (const auto& i : infos) input_names_.push_back(i.name);
      size_t expected = 0;  // a quantized argument is three inputs, unless --dequantized-io
      for (const auto& spec : onnx_specs_)
        expected += at::isQIntType(*dtype_from_name(spec.dtype)) && !options_.dequantized_io ? 3 : 1;
      if (infos.size() != expected)
        throw VerifyRequestError("--onnx " + onnx_path_ + " has " + std::to_string(infos.size()) + " input(s), but the " +
                                 std::to_string(onnx_specs_.size()) + " --input given take " + std::to_string(expected));
      return;
    }
    say("exporting " + rq_.model + " (opset " + std::to_string(options_.opset) + ")");
    conversion_ = Conversion::convert(rq_.model, convert_options_, registry_);
    onnx_path_ = (tmp_ / "model.onnx").string();
    conversion_->write(onnx_path_);
    if (!rq_.output.empty()) conversion_->write(rq_.output);
    input_names_ = conversion_->input_names();
    output_names_ = conversion_->output_names();
  }

  // With dynamic axes, the sizes export's second run found the model runs at (--dynamic-input, each
  // dynamic axis one larger, or another size the model accepts); with --onnx, --dynamic-input or
  // each dynamic axis one larger.
  std::vector<std::vector<int64_t>> other_sizes(const std::vector<std::vector<int64_t>>& base_shapes) const {
    std::vector<std::vector<int64_t>> varied = conversion_ ? conversion_->other_sizes() : base_shapes;
    if (!conversion_ && !options_.dynamic_inputs.empty()) {
      varied.clear();
      for (const auto& s : options_.dynamic_inputs)
        if (s.dtype != "none") varied.push_back(s.dims);
    } else if (!conversion_) {
      for (const auto& spec : options_.dynamic_axes) {
        auto it = std::find(input_names_.begin(), input_names_.end(), spec.name);
        if (it == input_names_.end()) continue;
        auto& dims = varied[it - input_names_.begin()];
        for (const auto& [axis, sym] : spec.axes)
          if (axis < (int64_t)dims.size()) dims[axis] += 1;
      }
    }
    return varied;
  }

  std::vector<c10::IValue> torch_args(const std::vector<at::Tensor>& tensors) const {
    std::vector<c10::IValue> a;
    size_t k = 0;
    for (const auto& s : options_.inputs) a.push_back(s.dtype == "none" ? c10::IValue() : c10::IValue(tensors[k++]));
    return a;
  }

  // --inputs, or `runs` random sets at the --input sizes, and with dynamic axes each set again at
  // other sizes.
  void make_input_sets() {
    std::vector<std::vector<int64_t>> base_shapes;
    for (const auto& s : onnx_specs_) base_shapes.push_back(s.dims);
    std::vector<std::vector<std::vector<int64_t>>> size_sets = {base_shapes};
    if (!options_.dynamic_axes.empty() && file_inputs_.empty()) {
      auto varied = other_sizes(base_shapes);
      if (!varied.empty() && varied.size() == base_shapes.size() && varied != base_shapes) size_sets.push_back(varied);
    }
    if (!file_inputs_.empty()) {
      sets_.push_back({"inputs from " + rq_.inputs_dir, file_inputs_, torch_args(file_inputs_)});
    } else {
      for (int64_t r = 0; r < rq_.runs; ++r) {
        for (const auto& shapes : size_sets) {
          at::Generator gen = at::detail::createCPUGenerator((uint64_t)(rq_.seed + r));
          InputSet set;
          std::string label = "seed " + std::to_string(rq_.seed + r) + ":";
          std::vector<at::Tensor> args;
          for (size_t k = 0; k < onnx_specs_.size(); ++k) {
            auto spec = onnx_specs_[k];
            spec.dims = shapes[k];
            // A quantized argument takes three ONNX inputs: name ranges and labels by argument when there are any.
            const bool by_input = !quantized_inputs_ && k < input_names_.size();
            auto named = by_input ? rq_.input_range_of.find(input_names_[k]) : rq_.input_range_of.end();
            auto range = named != rq_.input_range_of.end() ? std::optional(named->second) : rq_.input_range;
            args.push_back(random_tensor(spec, range, gen));
            for (auto& feed : onnx_feeds(args.back(), options_.dequantized_io)) set.onnx_inputs.push_back(feed);
            label += " " + (by_input ? input_names_[k] : "input_" + std::to_string(k)) + " " + type_text(args.back());
            if (args.back().is_quantized())
              label += " (scale " + std::to_string(args.back().q_scale()) + ", zero point " +
                       std::to_string(args.back().q_zero_point()) + ")";
          }
          set.torch_args = torch_args(args);
          set.label = label;
          sets_.push_back(std::move(set));
        }
      }
    }
    for (const auto& name : rq_.input_range_of)
      if (std::find(input_names_.begin(), input_names_.end(), name.first) == input_names_.end())
        throw VerifyRequestError("--input-range names '" + name.first + "', which is no input of the model");
  }

  void run_and_compare(const TorchScriptModel& torch_model) {
    torch_outputs_.resize(sets_.size());
    for (size_t si = 0; si < sets_.size(); ++si) {
      const auto& set = sets_[si];
      fs::path in_dir = tmp_ / ("in_" + std::to_string(si)), out_dir = tmp_ / ("out_" + std::to_string(si));
      write_inputs(in_dir, set.onnx_inputs, input_names_);
      fs::create_directories(out_dir);
      Timer t_ort;
      ort_.run(onnx_path_, in_dir.string(), out_dir.string(), {});
      report_.seconds.onnxruntime += t_ort.seconds();
      auto onnx_out = read_outputs(out_dir, output_names_.size());
      Timer t_torch;
      try {
        torch_outputs_[si] = torch_model.run(set.torch_args);
      } catch (const ExportError& e) {
        bool integers = false;
        for (const auto& t : set.onnx_inputs) integers |= !at::isFloatingType(t.scalar_type());
        // Random integers may be out of range for the model (token ids, indices): say how to fix it.
        throw ExportError(std::string(e.what()) + " (inputs: " + set.label + ")" +
                          (integers && file_inputs_.empty()
                               ? "; integer inputs are random in [0, 2) unless --input-range LO:HI says otherwise"
                               : ""));
      }
      report_.seconds.libtorch += t_torch.seconds();
      const auto ref = unpacked_results(torch_outputs_[si], options_.dequantized_io);
      VerifyRun run;
      run.inputs = set.label;
      if (ref.size() != onnx_out.size()) {
        run.problem = "the ONNX model has " + std::to_string(onnx_out.size()) + " output(s), the TorchScript model " +
                      std::to_string(ref.size());
        fail(si);
      }
      for (size_t k = 0; run.problem.empty() && k < ref.size(); ++k) {
        VerifyOutput out{output_names_[k], dtype_name(ref[k].scalar_type()), ref[k].sizes().vec(),
                         compare_tensors(onnx_out[k], ref[k], rq_.rtol, rq_.atol)};
        if (!out.diff.match) fail(si);
        run.outputs.push_back(std::move(out));
      }
      report_.runs.push_back(std::move(run));
    }
  }

  void fail(size_t set) {
    report_.match = false;
    if (!failing_set_) failing_set_ = set;
  }

  void find_mismatch() {
    if (!conversion_) {
      say("--find-mismatch: converting " + rq_.model + " again to map its values to ONNX values (--onnx " + rq_.onnx +
          " has no such map)");
      conversion_ = Conversion::convert(rq_.model, convert_options_, registry_);
    }
    const auto& set = sets_[*failing_set_];
    const auto& values = conversion_->values();
    std::set<std::string> graph_inputs(input_names_.begin(), input_names_.end());
    std::vector<std::string> fetch;
    std::set<std::string> seen;
    for (const auto& value : values) {
      const auto& name = value.onnx;
      if (name.empty() || graph_inputs.count(name) || !seen.insert(name).second) continue;
      fetch.push_back(name);
    }
    fs::path probe_model = tmp_ / "probes.onnx", in_dir = tmp_ / ("in_" + std::to_string(*failing_set_)),
             out_dir = tmp_ / "probes";
    fs::create_directories(out_dir);
    conversion_->write(probe_model.string(), fetch);
    ort_.run(probe_model.string(), in_dir.string(), out_dir.string(), fetch);
    auto onnx_values = read_outputs(out_dir, fetch.size());
    std::map<std::string, at::Tensor> onnx_by_name;
    for (size_t i = 0; i < fetch.size(); ++i) onnx_by_name[fetch[i]] = onnx_values[i];
    for (size_t k = 0; k < input_names_.size(); ++k) onnx_by_name[input_names_[k]] = set.onnx_inputs[k];
    recorded_ = conversion_->record(set.onnx_inputs);
    for (size_t v = 0; v < values.size(); ++v) {
      auto it = onnx_by_name.find(values[v].onnx);
      if (it != onnx_by_name.end()) probed_onnx_[v] = it->second;
    }
    const auto& nodes = conversion_->nodes();
    size_t compared = 0, folded = 0;
    for (size_t k = 0; k < nodes.size() && !culprit_; ++k) {
      for (size_t v : nodes[k].outputs) {
        if (!recorded_.count(v)) continue;
        if (!probed_onnx_.count(v)) {
          ++folded;
          continue;
        }
        ++compared;
        if (!compare_tensors(probed_onnx_[v], recorded_[v], rq_.rtol, rq_.atol, true).match) {
          culprit_ = k;
          break;
        }
      }
    }
    FirstMismatch& first = report_.first_mismatch.emplace();
    if (!culprit_) {
      first.message = "no single node found: all " + std::to_string(compared) +
                      " intermediate values with an ONNX counterpart match libtorch's; the difference arises in "
                      "values folded away at export time or without an ONNX value (" +
                      std::to_string(folded) + " such value(s))";
      return;
    }
    const auto& n = nodes[*culprit_];
    first.found = true;
    first.op = n.op;
    first.location = n.location;
    first.pack = n.pack;
    first.symbolic = n.symbolic;
    first.onnx_nodes = n.onnx_nodes;
    for (size_t v : n.inputs) first.inputs.push_back(describe(v));
    for (size_t v : n.outputs) first.outputs.push_back(describe(v));
  }

  MismatchValue describe(size_t v) {
    const auto& pv = conversion_->values()[v];
    MismatchValue m;
    m.value = pv.name;
    m.onnx = pv.onnx;
    if (!recorded_.count(v)) {
      m.state = MismatchValue::State::NotTensor;
    } else if (!probed_onnx_.count(v)) {
      m.state = MismatchValue::State::NoOnnxValue;
      m.folded = pv.folded;
    } else {
      m.state = MismatchValue::State::Compared;
      m.dtype = dtype_name(recorded_[v].scalar_type());
      m.shape = recorded_[v].sizes().vec();
      m.diff = compare_tensors(probed_onnx_[v], recorded_[v], rq_.rtol, rq_.atol, true);
    }
    return m;
  }

  // The culprit alone when it can be cut out, else the whole model, with libtorch's values.
  void write_repro() {
    fs::path dir = rq_.repro_dir, data = dir / "test_data_set_0";
    std::error_code ec;
    fs::create_directories(data, ec);
    if (ec) throw VerifyRequestError("--repro " + rq_.repro_dir + ": cannot create the directory: " + ec.message());
    std::string cut;
    if (culprit_) cut = conversion_->subgraph(*culprit_, (dir / "model.onnx").string());
    const size_t si = failing_set_.value_or(0);
    std::vector<at::Tensor> ins, outs;
    std::vector<std::string> in_names, out_names;
    if (!cut.empty()) {
      const auto& n = conversion_->nodes()[*culprit_];
      const auto& values = conversion_->values();
      std::stringstream ss(cut);
      std::string name;
      std::vector<std::string> order;
      while (std::getline(ss, name, ','))
        if (name != "-") order.push_back(name);
      for (const auto& nm : order)
        for (size_t v : n.inputs)
          if (values[v].onnx == nm) {
            ins.push_back(recorded_.at(v));
            in_names.push_back(nm);
            break;
          }
      for (size_t v : n.outputs)
        if (!values[v].onnx.empty()) outs.push_back(recorded_.at(v));
      for (size_t k = 0; k < outs.size(); ++k) out_names.push_back(values[n.outputs[k]].onnx);
    } else {
      fs::copy_file(onnx_path_, dir / "model.onnx", fs::copy_options::overwrite_existing, ec);
      if (ec) throw VerifyRequestError("--repro: cannot write " + (dir / "model.onnx").string() + ": " + ec.message());
      ins = sets_[si].onnx_inputs;
      in_names = input_names_;
      outs = torch_outputs_[si];
      for (size_t k = 0; k < outs.size(); ++k) out_names.push_back(k < output_names_.size() ? output_names_[k] : "");
    }
    for (const auto& entry : fs::directory_iterator(data)) fs::remove(entry.path(), ec);
    write_inputs(data, ins, in_names);
    for (size_t k = 0; k < outs.size(); ++k)
      write_tensor_pb((data / ("output_" + std::to_string(k) + ".pb")).string(), outs[k], out_names[k]);
    report_.repro = VerifyRepro{rq_.repro_dir, (dir / "model.onnx").string(), !cut.empty(), ins.size(), outs.size()};
  }

  const VerifyRequest& rq_;
  ExportOptions options_;  // the request's, with the input files' specs when it gave none
  Timer total_;
  OrtRunner ort_;  // before any work: ONNX Runtime must be reachable
  std::vector<at::Tensor> file_inputs_;
  std::vector<InputSpec> onnx_specs_;  // the specs of ONNX graph inputs (not `none`)
  t2o::registry::Registry registry_;
  fs::path tmp_;
  std::unique_ptr<Conversion> conversion_;  // the export (none with --onnx until --find-mismatch)
  std::string onnx_path_;
  ExportOptions convert_options_;  // what the conversion is given (without the saved specs verify took)
  bool saved_specs_ = false;        // the specs came from the .pt's saved signature
  bool quantized_inputs_ = false;  // an --input of a quantized type (verify makes them at random)
  std::vector<std::string> input_names_, output_names_;
  std::vector<InputSet> sets_;
  std::vector<std::vector<at::Tensor>> torch_outputs_;  // libtorch's outputs of each set
  std::optional<size_t> failing_set_;                   // the first set with a mismatch
  std::map<size_t, at::Tensor> recorded_, probed_onnx_;  // --find-mismatch: by index into values()
  std::optional<size_t> culprit_;                       // the first mismatching node
  VerifyReport report_;
};

}  // namespace

VerifyReport verify_model(const VerifyRequest& request) { return Verify(request).run(); }

}  // namespace t2o::core
