// verify's comparison of two tensors, and its report as text and as JSON (schema_version 1): what
// `torch2onnx verify` prints, from the VerifyReport verify_model() returns.
#include "tools/verify_report.hpp"

#include "torch2onnx/core/dtype_table.hpp"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace t2o::core {

std::string shape_text(at::IntArrayRef dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string type_text(const at::Tensor& t) { return dtype_name(t.scalar_type()) + shape_text(t.sizes()); }

TensorDiff compare_tensors(const at::Tensor& onnx, const at::Tensor& ref, double rtol, double atol, bool scale_atol) {
  TensorDiff d;
  if (onnx.sizes() != ref.sizes()) {
    d.match = false;
    d.problem = "shape " + shape_text(onnx.sizes()) + ", libtorch " + shape_text(ref.sizes());
    return d;
  }
  if (onnx.scalar_type() != ref.scalar_type()) {
    d.match = false;
    d.problem = "dtype " + dtype_name(onnx.scalar_type()) + ", libtorch " + dtype_name(ref.scalar_type());
    return d;
  }
  d.elements = ref.numel();
  if (d.elements == 0) return d;
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
  d.mismatched_elements = bad.sum().item<int64_t>();
  d.match = d.mismatched_elements == 0;
  d.max_abs_error = err.max().item<double>();
  at::Tensor rel = at::where(finite & (b != 0), err / b.abs(), at::zeros_like(err));
  d.max_rel_error = rel.max().item<double>();
  // Where: the first bad element, else the largest error.
  int64_t flat = d.mismatched_elements ? bad.reshape(-1).to(at::kByte).argmax().item<int64_t>()
                                       : err.reshape(-1).argmax().item<int64_t>();
  auto sizes = a.sizes();
  d.where.assign(sizes.size(), 0);
  for (int64_t i = (int64_t)sizes.size() - 1, rest = flat; i >= 0; --i) {
    d.where[(size_t)i] = sizes[(size_t)i] ? rest % sizes[(size_t)i] : 0;
    rest = sizes[(size_t)i] ? rest / sizes[(size_t)i] : 0;
  }
  d.onnx_value = a.reshape(-1)[flat].item<double>();
  d.torch_value = b.reshape(-1)[flat].item<double>();
  if (ref.is_complex()) d.where.pop_back();
  return d;
}

namespace {

std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(3) << v;
  return os.str();
}

std::string diff_text(const TensorDiff& d) {
  if (!d.problem.empty()) return "MISMATCH: " + d.problem;
  std::string s = "max abs err " + num(d.max_abs_error) + ", max rel err " + num(d.max_rel_error);
  if (d.match) return s + ": ok";
  return "MISMATCH: " + std::to_string(d.mismatched_elements) + " of " + std::to_string(d.elements) +
         " elements beyond tolerance, " + s + "; at " + shape_text(d.where) + " onnx " + num(d.onnx_value) +
         ", libtorch " + num(d.torch_value);
}

nlohmann::json diff_json(const TensorDiff& d) {
  nlohmann::json j = {{"match", d.match}};
  if (!d.problem.empty()) {
    j["problem"] = d.problem;
    return j;
  }
  j["max_abs_error"] = d.max_abs_error;
  j["max_rel_error"] = d.max_rel_error;
  j["mismatched_elements"] = d.mismatched_elements;
  j["elements"] = d.elements;
  j["where"] = d.where;
  j["onnx_value"] = d.onnx_value;
  j["torch_value"] = d.torch_value;
  return j;
}

// "  input %x (ONNX y) float32[2,8]: max abs err 2e-06 (within tolerance)"
std::string value_text(const MismatchValue& v, const char* role) {
  std::string line = std::string("  ") + role + " " + v.value + (v.onnx.empty() ? "" : " (ONNX " + v.onnx + ")");
  switch (v.state) {
    case MismatchValue::State::NotTensor:
      return line + ": not a tensor at run time";
    case MismatchValue::State::NoOnnxValue:
      return line + ": " + (v.folded.empty() ? std::string("no ONNX value") : v.folded);
    case MismatchValue::State::Compared:
      break;
  }
  const TensorDiff& d = v.diff;
  return line + " " + v.dtype + shape_text(v.shape) + ": " +
         (d.match && d.problem.empty() ? "max abs err " + num(d.max_abs_error) + " (within tolerance)" : diff_text(d));
}

nlohmann::json value_json(const MismatchValue& v) {
  nlohmann::json j = {{"value", v.value}, {"onnx", v.onnx}};
  if (v.state == MismatchValue::State::NoOnnxValue) j["folded"] = v.folded;
  if (v.state == MismatchValue::State::Compared) j.update(diff_json(v.diff));
  return j;
}

}  // namespace

std::string verify_report_text(const VerifyReport& r) {
  std::ostringstream text;
  text << "verify " << r.model << " against "
       << (r.onnx.empty() ? "its export (opset " + std::to_string(r.opset) + ")" : r.onnx) << " in ONNX Runtime; rtol "
       << r.rtol << ", atol " << r.atol << "\n";
  for (size_t si = 0; si < r.runs.size(); ++si) {
    const VerifyRun& run = r.runs[si];
    text << "run " << si + 1 << "/" << r.runs.size() << " (" << run.inputs << "):\n";
    if (!run.problem.empty()) text << "  MISMATCH: " << run.problem << "\n";
    for (const auto& out : run.outputs)
      text << "  " << out.name << " " << out.dtype << shape_text(out.shape) << ": " << diff_text(out.diff) << "\n";
  }
  text << (r.match ? "all outputs match" : "outputs differ") << " (" << r.runs.size() << " run(s))\n";
  if (r.first_mismatch && !r.first_mismatch->found) {
    text << "first mismatch: " << r.first_mismatch->message << "\n";
  } else if (r.first_mismatch) {
    const FirstMismatch& m = *r.first_mismatch;
    text << "first mismatch: " << m.op << " at " << m.location << "\n";
    text << "  converted by pack " << m.pack << ": " << m.symbolic << "\n";
    std::string onnx_nodes;
    for (const auto& name : m.onnx_nodes) onnx_nodes += (onnx_nodes.empty() ? "" : ", ") + name;
    text << "  ONNX nodes: " << (onnx_nodes.empty() ? "(none)" : onnx_nodes) << "\n";
    for (const auto& v : m.inputs) text << value_text(v, "input") << "\n";
    for (const auto& v : m.outputs) text << value_text(v, "output") << "\n";
  }
  if (r.repro) {
    text << "repro: " << r.repro->model << " ("
         << (r.repro->subgraph ? "the first mismatching node alone" : "the whole model") << "), test_data_set_0 with "
         << r.repro->inputs << " input(s) and libtorch's " << r.repro->outputs << " output(s)\n";
  }
  return text.str();
}

std::string verify_report_json(const VerifyReport& r) {
  nlohmann::json report = {{"schema_version", kVerifySchemaVersion},
                           {"model", r.model},
                           {"onnx", r.onnx.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.onnx)},
                           {"rtol", r.rtol},
                           {"atol", r.atol}};
  nlohmann::json runs = nlohmann::json::array();
  for (const VerifyRun& run : r.runs) {
    nlohmann::json j = {{"inputs", run.inputs}, {"outputs", nlohmann::json::array()}};
    if (!run.problem.empty()) j["problem"] = run.problem;
    for (const auto& out : run.outputs) {
      auto o = diff_json(out.diff);
      o["name"] = out.name;
      o["dtype"] = out.dtype;
      o["shape"] = out.shape;
      j["outputs"].push_back(o);
    }
    runs.push_back(j);
  }
  report["runs"] = runs;
  report["match"] = r.match;
  if (r.first_mismatch && !r.first_mismatch->found) {
    report["first_mismatch"] = {{"found", false}, {"message", r.first_mismatch->message}};
  } else if (r.first_mismatch) {
    const FirstMismatch& m = *r.first_mismatch;
    nlohmann::json first = {{"found", true}, {"op", m.op}, {"location", m.location}, {"pack", m.pack},
                            {"symbolic", m.symbolic}, {"onnx_nodes", m.onnx_nodes}};
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array();
    for (const auto& v : m.inputs) ins.push_back(value_json(v));
    for (const auto& v : m.outputs) outs.push_back(value_json(v));
    first["inputs"] = ins;
    first["outputs"] = outs;
    report["first_mismatch"] = first;
  }
  if (r.repro) report["repro"] = {{"dir", r.repro->dir}, {"subgraph", r.repro->subgraph}};
  report["seconds"] = {{"export", r.seconds.export_model}, {"onnxruntime", r.seconds.onnxruntime},
                       {"libtorch", r.seconds.libtorch}, {"find_mismatch", r.seconds.find_mismatch},
                       {"total", r.seconds.total}};
  return report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);  // names from the model: any bytes
}

}  // namespace t2o::core
