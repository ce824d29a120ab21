// Quantized values between ops that are not quantization-aware (see requantize_outputs).
//
// An exported quantized tensor is a FLOAT tensor of its dequantized values (plugins/quantized/README.md).
// ATen ops that PyTorch runs on quantized tensors (average pooling, upsampling, hardsigmoid, mean …)
// are converted by their float symbolics; PyTorch's quantized kernels round their results to the
// output's grid, so each such result goes through QuantizeLinear → DequantizeLinear with the scale and
// zero point the example run saw, as torch.onnx's quantized_args does. Ops whose results are values of
// their input (views, max pooling, relu, concatenation of same-grid tensors) are already on the grid.
//
// At the graph boundary (unless --dequantized-io) a quantized tensor is what torch.onnx 1.13 makes of
// it: an input is three inputs (UnpackQuantizedTensorInputs: NAME_value, NAME_scale as double,
// NAME_zero_point as int64), a result three results (quantize_helper's tuple: the QuantizeLinear output,
// float scale, zero point of the integer type). An input's grid is known only at run time, so the values
// whose grid follows it carry its scale and zero point as ONNX values (Session::run_time_grids); which
// those are, the example runs tell: a second run with the inputs on another grid (the grid probe).
#include "convert/quantized_values.hpp"

#include "common/locations.hpp"

#include <onnx/onnx_pb.h>
#include <torch/csrc/jit/ir/constants.h>

#include <cstdio>
#include <optional>
#include <set>
#include <vector>
#include <string>

namespace t2o::core {

namespace {

const std::set<std::string>& on_the_grid() {
  static const std::set<std::string> ops = {
      "aten::view", "aten::reshape", "aten::flatten", "aten::permute", "aten::transpose", "aten::t",
      "aten::contiguous", "aten::squeeze", "aten::unsqueeze", "aten::max_pool1d", "aten::max_pool2d",
      "aten::max_pool3d", "aten::adaptive_max_pool2d", "aten::relu", "aten::relu_", "aten::slice", "aten::select",
      "aten::narrow", "aten::expand", "aten::expand_as", "aten::clone", "aten::detach", "aten::dropout",
      "aten::dropout_", "aten::feature_dropout", "aten::flip", "aten::pixel_shuffle", "aten::pixel_unshuffle",
      "aten::channel_shuffle", "aten::repeat", "aten::index_select", "aten::cat", "aten::stack",
      "aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d", "aten::chunk",
      "aten::split", "aten::unbind", "aten::__getitem__", "aten::dequantize", "aten::type_as"};
  return ops;
}

// ATen ops whose quantized result PyTorch puts on a grid of its own, whatever the input's
// (aten/src/ATen/native/quantized/cpu/: qsigmoid.cpp, qtanh.cpp, qhardsigmoid.cpp for QNNPACK and
// QuantizedOpKernels.cpp for the other engines; torch.onnx 1.13 gives the quint8 ones to
// quantized_args):
//                  quint8         qint8          qint32
//   sigmoid        1/256, 0       1/256, -128    2^-32, 0
//   tanh           2/256, 128     2/256, 0       2^-31, 0
//   hardsigmoid    1/256, 0       1/256, -128    2^-32, 0
// (hardsigmoid_ copies that result into its argument, grid and all.) The example run records that grid;
// it stays constant when the input's grid is chosen at run time (a quantized graph input).
bool fixed_grid_op(const std::string& kind) {
  static const std::set<std::string> ops = {"aten::sigmoid", "aten::tanh", "aten::hardsigmoid",
                                            "aten::hardsigmoid_"};
  return ops.count(kind) != 0;
}

bool quantization_aware(const std::string& kind) {
  for (const char* ns : {"quantized::", "torch2onnx::", "prim::"})
    if (kind.rfind(ns, 0) == 0) return true;
  return kind.rfind("aten::quantize_per_", 0) == 0 || kind.rfind("aten::fake_quantize", 0) == 0;
}


// Emits one node with one output (and a `to` attribute for Cast) and gives the output a type.
t2o_value emit(Session& s, const char* op, std::vector<t2o_value> inputs, int32_t dtype,
               const std::vector<int64_t>& dims, int64_t cast_to = -1) {
  t2o_attr to{};
  to.struct_size = sizeof to;
  to.name = "to";
  to.type = T2O_ATTR_INT;
  to.count = 1;
  to.ints = &cast_to;
  t2o_value result = emit_single(s.values, s.graph, op, std::move(inputs), cast_to >= 0 ? &to : nullptr, 1,
                                 "emitting a node at the graph boundary");
  ValueRec& r = s.values.rec(result);
  r.dtype = dtype;
  r.rank = (int32_t)dims.size();
  r.dims = dims;
  return result;
}

// A tensor value the ONNX graph holds under `name`, of this type.
t2o_value named_tensor(Session& s, const std::string& name, int32_t dtype, const std::vector<int64_t>& dims) {
  ValueRec r;
  r.kind = T2O_KIND_TENSOR;
  r.onnx = name;
  r.dtype = dtype;
  r.rank = (int32_t)dims.size();
  r.dims = dims;
  return s.values.add(std::move(r));
}

t2o_value graph_input(Session& s, const std::string& name, int32_t dtype, const std::vector<int64_t>& dims) {
  if (!s.graph.reserve_name(name)) throw ExportError("input name '" + name + "' is used twice");
  return named_tensor(s, name, dtype, dims);
}

bool grid_moved(const TensorInfo& info) {
  return info.q_probed && (info.q_scale != info.q_scale_probe || info.q_zero_point != info.q_zero_point_probe);
}

bool same_grids(const TensorInfo& a, const TensorInfo& b) {
  return a.q_probed && b.q_probed && a.q_scale == b.q_scale && a.q_zero_point == b.q_zero_point &&
         a.q_scale_probe == b.q_scale_probe && a.q_zero_point_probe == b.q_zero_point_probe;
}

}  // namespace

void bind_quantized_input(Session& s, size_t index, const torch::jit::Value* tv, const std::string& name) {
  const TensorInfo* info = s.types.find(tv);
  if (!info) throw ExportError("internal: graph input " + name + " has no recorded type");
  if (info->q_scale <= 0)
    throw ExportError("input '" + name + "' is a per-channel quantized tensor: torch.onnx 1.13 gives a quantized " +
                      "input as one scale and zero point (per tensor); give a per-tensor one, or export with " +
                      "--dequantized-io (a float32 input of its dequantized values)");
  const int32_t q = info->quantized;
  Session::QuantizedInput in;
  in.value = name + "_value";
  in.scale = name + "_scale";
  in.zero_point = name + "_zero_point";
  in.value_handle = graph_input(s, in.value, q, info->dims);
  in.scale_handle = graph_input(s, in.scale, onnx::TensorProto::DOUBLE, {});
  in.zero_point_handle = graph_input(s, in.zero_point, onnx::TensorProto::INT64, {});
  // As torch.onnx's dequantize_helper: the scale to float, the zero point to the integer type.
  Session::Grid grid;
  grid.scale = emit(s, "Cast", {in.scale_handle}, onnx::TensorProto::FLOAT, {}, onnx::TensorProto::FLOAT);
  grid.zero_point = emit(s, "Cast", {in.zero_point_handle}, q, {}, q);
  t2o_value dequantized =
      emit(s, "DequantizeLinear", {in.value_handle, grid.scale, grid.zero_point}, onnx::TensorProto::FLOAT, info->dims);
  s.values.bind(tv, dequantized);
  s.run_time_grids[tv] = grid;
  s.quantized_inputs[index] = std::move(in);
}

namespace {

bool run_time_value(Session& s, const torch::jit::Value* v) {
  if (!s.values.is_bound(v)) return false;
  const ValueRec& r = s.values.rec(s.values.handle_of(v));
  return !r.constant && r.kind != T2O_KIND_NONE;
}

bool eight_bit(int32_t q) { return q == onnx::TensorProto::UINT8 || q == onnx::TensorProto::INT8; }

// A grid known to change at run time in a way the graph cannot carry as values (an `if` whose
// branches quantize on different grids, an op whose result's grid is a function of a run-time one):
// an entry without values. A quantized result or a requantization reading it is refused.
Session::Grid unknown_grid() { return {}; }
bool is_unknown(const Session::Grid& g) { return g.scale == T2O_NO_VALUE; }

// The constant (scale, zero point) a quantize_per_tensor node quantizes with, if its arguments are
// constants; the fixed grid of a fixed-grid op (fixed_grid_op) as the example run saw it.
std::optional<std::pair<double, int64_t>> constant_grid(const Session& s, const torch::jit::Node* n) {
  const std::string kind = n->kind().toQualString();
  const torch::jit::Value *sc = nullptr, *zp = nullptr;
  if (fixed_grid_op(kind) && n->outputs().size() == 1) {
    const TensorInfo* info = s.types.find(n->output());
    if (!info || info->q_scale <= 0) return {};
    return std::make_pair(info->q_scale, info->q_zero_point);
  }
  if (kind == "aten::quantize_per_tensor" && n->inputs().size() == 4) {
    sc = n->inputs()[1];
    zp = n->inputs()[2];
  } else if (kind.rfind("quantized::", 0) == 0 && n->inputs().size() >= 3) {  // (..., float scale, int zero_point)
    sc = n->inputs()[n->inputs().size() - 2];
    zp = n->inputs()[n->inputs().size() - 1];
  } else {
    return {};
  }
  auto sv = torch::jit::toIValue(sc), zv = torch::jit::toIValue(zp);
  if (!sv || !zv || !sv->isDouble() || !zv->isInt()) return {};
  return std::make_pair(sv->toDouble(), zv->toInt());
}

// Grids chosen at run time without quantized inputs (no grid probe sees them):
// - quantize_per_tensor with a scale or zero point computed at run time (chosen in a branch, computed
//   from the data): QuantizeLinear already takes them as values, so the result's grid is those values;
// - ops whose result keeps its input's grid (views, relu, max pooling, ...; and ops PyTorch's kernels
//   run on the input's grid, seen as the same recorded grid) carry it on;
// - `if`/loop results whose branches (or iterations) may quantize on different grids: unknown.
// Returns whether the node was one of these.
bool follow_chosen_grids(Session& s, const torch::jit::Node* node) {
  const std::string kind = node->kind().toQualString();
  if (kind == "aten::quantize_per_tensor" && node->inputs().size() == 4 &&
      (run_time_value(s, node->inputs()[1]) || run_time_value(s, node->inputs()[2]))) {
    auto* out = node->outputs()[0];
    const TensorInfo* info = s.types.find(out);
    if (!info || !eight_bit(info->quantized)) return false;
    auto as_0d = [&](const torch::jit::Value* v, int32_t dtype) -> t2o_value {
      t2o_value t = s.values.materialize(s.values.handle_of(v));
      if (s.values.rec(t).rank != 0) return T2O_NO_VALUE;
      return emit(s, "Cast", {t}, dtype, {}, dtype);
    };
    Session::Grid g;
    g.scale = as_0d(node->inputs()[1], onnx::TensorProto::FLOAT);
    g.zero_point = as_0d(node->inputs()[2], info->quantized);
    s.run_time_grids[out] = g.scale == T2O_NO_VALUE || g.zero_point == T2O_NO_VALUE ? unknown_grid() : g;
    return true;
  }
  bool any = false;
  if (node->kind() == c10::prim::If || node->kind() == c10::prim::Loop) {
    const bool loop = node->kind() == c10::prim::Loop;
    for (size_t k = 0; k < node->outputs().size(); ++k) {
      const TensorInfo* info = s.types.find(node->outputs()[k]);
      if (!info || !info->quantized) continue;
      // Each block's value for output k: a run-time grid in any of them, or different constant grids
      // of quantize_per_tensor in two branches, make the result's grid a run-time choice.
      std::vector<const torch::jit::Value*> ways;  // each branch's value; a loop's initial one and its body's
      for (auto* b : node->blocks()) {
        size_t at = k + (loop ? 1 : 0);
        // A loop-carried value the body passes on unchanged is no way of its own.
        if (at < b->outputs().size() && b->outputs()[at]->node()->kind() != c10::prim::Param)
          ways.push_back(b->outputs()[at]);
      }
      if (loop && k + 2 < node->inputs().size()) ways.push_back(node->inputs()[k + 2]);
      bool chosen = false;
      for (size_t i = 0; i < ways.size(); ++i) {
        if (s.run_time_grids.count(ways[i])) chosen = true;
        // Two ways whose grids differ (an unknown grid against a known one counts as differing).
        if (i > 0) {
          auto a = constant_grid(s, ways[0]->node()), b = constant_grid(s, ways[i]->node());
          if (a != b && (a || b)) chosen = true;
        }
      }
      if (chosen) {
        s.run_time_grids[node->outputs()[k]] = unknown_grid();
        any = true;
      }
    }
    return any;
  }
  if (quantization_aware(kind) && kind.rfind("quantized::", 0) == 0 && kind.find("_scalar") == std::string::npos)
    return false;  // a quantized op's own (constant) output grid
  if (fixed_grid_op(kind)) return false;  // PyTorch's fixed grid, whatever the input's
  // The inputs with a chosen grid (a list's items too). type_as's second argument gives only a dtype
  // (its result is its first argument, a quantized tensor of that dtype: in-place ops functionalized).
  std::vector<const torch::jit::Value*> from;
  const size_t read = kind == "aten::type_as" ? 1 : node->inputs().size();
  for (auto* in : node->inputs().slice(0, read)) {
    if (s.run_time_grids.count(in)) from.push_back(in);
    auto k = in->node()->kind();
    if (k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct)
      for (auto* item : in->node()->inputs())
        if (s.run_time_grids.count(item)) from.push_back(item);
  }
  if (from.empty()) return false;
  for (auto* out : node->outputs()) {
    const TensorInfo* info = s.types.find(out);
    if (!info || !info->quantized || s.run_time_grids.count(out)) continue;
    Session::Grid g = unknown_grid();
    if (from.size() == 1) {
      const TensorInfo* fi = s.types.find(from[0]);
      if (fi && fi->q_scale == info->q_scale && fi->q_zero_point == info->q_zero_point) g = s.run_time_grids[from[0]];
    }
    s.run_time_grids[out] = g;
    any = true;
  }
  return any;
}

}  // namespace

void follow_run_time_grids(Session& s, const torch::jit::Node* node) {
  if (follow_chosen_grids(s, node)) return;
  for (auto* out : node->outputs()) {
    const TensorInfo* info = s.types.find(out);
    if (!info || !info->quantized || !grid_moved(*info)) continue;
    // The inputs, and the tensors of a list or tuple built for this node (quantized::cat's).
    std::vector<const torch::jit::Value*> candidates;
    for (auto* in : node->inputs()) {
      candidates.push_back(in);
      auto k = in->node()->kind();
      if (k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct)
        for (auto* item : in->node()->inputs()) candidates.push_back(item);
    }
    bool found = false;
    for (const auto* c : candidates) {
      auto grid = s.run_time_grids.find(c);
      const TensorInfo* ci = s.types.find(c);
      if (grid == s.run_time_grids.end() || !ci || !same_grids(*info, *ci)) continue;
      s.run_time_grids[out] = grid->second;
      found = true;
      break;
    }
    if (!found) {
      std::string what = "its quantized result's grid (scale, zero point) depends at run time on a quantized input's "
                         "without being that input's grid, which the (tensor, scale, zero point) form cannot express";
      throw NodeError(std::string(node->kind().toQualString()) + " at " + location_of(node) +
                          ": unsupported arguments: " + what,
                      what, true);
    }
  }
}

namespace {

// A result a quantized op's symbolic already rounded to its grid: DequantizeLinear(QuantizeLinear(v, s, z), s, z)
// of the main graph with s and z initializers holding the result's (per-tensor) scale and zero point. Its
// QuantizeLinear output is the result's integer tensor (QuantizeLinear of the dequantized values gives back
// the same integers), so the result is that tensor and the two initializers, as torch.onnx returns it.
std::optional<QuantizedResult> already_quantized(Session& s, t2o_value dequantized, const TensorInfo& info) {
  const std::string name = s.values.rec(dequantized).onnx;
  const onnx::GraphProto& g = s.graph.main();
  const onnx::NodeProto *dq = nullptr, *q = nullptr;
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == name) dq = &n;
  if (!dq || dq->op_type() != "DequantizeLinear" || dq->input_size() != 3 || dq->attribute_size() != 0) return {};
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == dq->input(0)) q = &n;
  if (!q || q->op_type() != "QuantizeLinear" || q->input_size() != 3 || q->attribute_size() != 0 ||
      q->input(1) != dq->input(1) || q->input(2) != dq->input(2))
    return {};
  const Initializer *scale = nullptr, *zero_point = nullptr;
  for (const auto& init : s.values.initializers()) {
    if (init.name == dq->input(1)) scale = &init;
    if (init.name == dq->input(2)) zero_point = &init;
  }
  if (!scale || !zero_point || scale->tensor.numel() != 1 || zero_point->tensor.numel() != 1 ||
      scale->dtype != onnx::TensorProto::FLOAT || zero_point->dtype != info.quantized ||
      scale->tensor.item<float>() != (float)info.q_scale || zero_point->tensor.item<int64_t>() != info.q_zero_point)
    return {};
  auto typed = [&](const std::string& onnx_name, int32_t dtype, const std::vector<int64_t>& dims) {
    return named_tensor(s, onnx_name, dtype, dims);
  };
  QuantizedResult r;
  r.value = typed(q->output(0), info.quantized, info.dims);
  r.scale = typed(scale->name, onnx::TensorProto::FLOAT, {});
  r.zero_point = typed(zero_point->name, info.quantized, {});
  return r;
}

}  // namespace

QuantizedResult quantized_result(Session& s, const torch::jit::Value* tv, t2o_value dequantized, size_t k) {
  const TensorInfo* info = s.types.find(tv);
  const std::string which = "model output " + std::to_string(k);
  const int32_t q = info ? info->quantized : 0;
  if (q != onnx::TensorProto::UINT8 && q != onnx::TensorProto::INT8)
    throw ExportError(which + " is a qint32 tensor: QuantizeLinear gives only uint8/int8; return it dequantized, " +
                      "or export with --dequantized-io");
  QuantizedResult r;
  auto grid = s.run_time_grids.find(tv);
  if (grid != s.run_time_grids.end() && is_unknown(grid->second)) {
    throw ExportError(which + " is a quantized tensor whose grid (scale, zero point) is chosen at run time " +
                      "(branches of an `if` or iterations of a loop quantizing on different grids, or an op " +
                      "reading such a grid) without the graph holding it as a value, which torch.onnx's " +
                      "(tensor, scale, zero point) form needs; quantize after the `if` with the chosen scale " +
                      "and zero point, or export with --dequantized-io");
  }
  if (grid != s.run_time_grids.end()) {
    r.scale = grid->second.scale;
    r.zero_point = grid->second.zero_point;
  } else if (info->q_scale > 0 && !grid_moved(*info)) {
    if (auto done = already_quantized(s, s.values.materialize(dequantized), *info)) return *done;
    r.scale = s.values.add_initializer(at::scalar_tensor(info->q_scale, at::kFloat), onnx::TensorProto::FLOAT, "scale");
    r.zero_point = s.values.add_initializer(
        at::scalar_tensor(info->q_zero_point, q == onnx::TensorProto::UINT8 ? at::kByte : at::kChar), q, "zero_point");
  } else {
    throw ExportError(which + " is a per-channel quantized tensor: torch.onnx 1.13 returns a quantized result as " +
                      "one scale and zero point; return it dequantized, or export with --dequantized-io");
  }
  r.value = emit(s, "QuantizeLinear", {s.values.materialize(dequantized), r.scale, r.zero_point}, q, info->dims);
  return r;
}

int32_t quantized_dtype_of(const Session& s, const torch::jit::Value* v) {
  const TensorInfo* info = s.types.find(v);
  return info ? info->quantized : 0;
}

void requantize_outputs(Session& s, const torch::jit::Node* node) {
  const std::string kind = node->kind().toQualString();
  if (s.options.opset < 10 || quantization_aware(kind) || on_the_grid().count(kind)) return;
  bool quantized_input = false;
  for (auto* in : node->inputs()) quantized_input |= quantized_dtype_of(s, in) != 0;
  if (!quantized_input) return;
  for (size_t k = 0; k < node->outputs().size(); ++k) {
    auto* out = node->outputs()[k];
    const TensorInfo* info = s.types.find(out);
    if (!info || !s.values.is_bound(out) || info->q_scale <= 0) continue;
    const int32_t q = info->quantized;
    if (q == onnx::TensorProto::INT32 && fixed_grid_op(kind)) {  // PyTorch's qint32 sigmoid saturates at 0.5
      char scale[32];
      std::snprintf(scale, sizeof scale, "%g", info->q_scale);
      throw ExportError(kind + " at " + location_of(node) + ": its qint32 result is on PyTorch's fixed grid (scale " +
                        scale + ", zero point " + std::to_string(info->q_zero_point) + "), which QuantizeLinear " +
                        "(uint8/int8 only) cannot round to; quantize its input to quint8 or qint8, or apply it to " +
                        "the dequantized tensor");
    }
    if (q != onnx::TensorProto::UINT8 && q != onnx::TensorProto::INT8) continue;  // QuantizeLinear's outputs
    t2o_value bound = s.values.handle_of(out);
    if (s.values.rec(bound).kind != T2O_KIND_TENSOR) continue;
    at::Tensor scale = at::scalar_tensor(info->q_scale, at::kFloat);
    at::Tensor zero_point = at::scalar_tensor(info->q_zero_point, q == onnx::TensorProto::UINT8 ? at::kByte : at::kChar);
    t2o_value inputs[3] = {s.values.materialize(bound), T2O_NO_VALUE, T2O_NO_VALUE};
    auto grid = s.run_time_grids.find(out);
    if (grid != s.run_time_grids.end() && is_unknown(grid->second))
      throw ExportError(kind + " at " + location_of(node) + ": its quantized result is rounded to a grid (scale, " +
                        "zero point) chosen at run time (an `if`/loop choosing between grids) that the graph does " +
                        "not hold as a value");
    if (grid != s.run_time_grids.end()) {  // a quantized input's grid, known at run time
      inputs[1] = grid->second.scale;
      inputs[2] = grid->second.zero_point;
    } else {
      inputs[1] = s.values.add_initializer(scale, onnx::TensorProto::FLOAT, "scale");
      inputs[2] = s.values.add_initializer(zero_point, q, "zero_point");
    }
    std::string error;
    for (const char* op : {"QuantizeLinear", "DequantizeLinear"}) {
      t2o_node_spec spec{};
      spec.struct_size = sizeof spec;
      spec.op_type = op;
      spec.domain = "";
      spec.inputs = inputs;
      spec.num_inputs = 3;
      spec.num_outputs = 1;
      t2o_value result = T2O_NO_VALUE;
      if (emit_node(s.values, s.graph, spec, &result, error) == T2O_NO_VALUE)
        throw ExportError(kind + ": requantizing its output failed: " + error);
      inputs[0] = result;
    }
    s.values.bind_output(node, k, inputs[0]);
  }
}

}  // namespace t2o::core
