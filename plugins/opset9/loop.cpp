// prim::Loop -> ONNX Loop. TorchScript's body (iteration, carried...) -> (continue, carried...)
// becomes ONNX's (iteration_num, condition, carried...) -> (condition, carried...): the counter
// and the carried values map one to one, ONNX's incoming condition is unused (TorchScript's body
// does not read it). Scalars are carried as 0-d tensors, lists built in the loop as sequences
// (opset 11+). `while` loops have TorchScript's maximal trip count, which ONNX writes as no trip
// count at all. An Optional[Tensor] that is None on entry or at the end of an iteration and a tensor
// on another path (opset 15+) is carried as an ONNX optional.
//
// prim::Loop(int max_trip_count, bool initial_condition, carried...) -> (carried...)
//   block 0 (int i, carried...) -> (bool continue, carried...)
#include <torch2onnx/plugin.hpp>

#include <cstdint>
#include <limits>

#include "common/control_flow.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// What a carried value is inside the body and in the Loop's inputs.
struct Carried {
  t2o_kind kind;
  t2o_dtype dtype;
  int32_t rank;
  Value initial;  // the ONNX value given to the Loop
};

Carried carried_in(Ctx& ctx, const Value& v, const Value& body_param, const Value& body_result, int32_t k) {
  const std::string what = "carried value " + std::to_string(k);
  if (needs_optional(ctx, {v.kind(), body_result.kind()})) {
    // The tensor's type: the initial value's, else what the body gives, else what the run saw.
    const Value& typed_side = v.is_none() ? body_result : v;
    t2o_dtype d = typed_side.dtype() != T2O_DTYPE_UNDEFINED ? typed_side.dtype() : body_param.dtype();
    int32_t rank = typed_side.rank() >= 0 ? typed_side.rank() : body_param.rank();
    Value opt = as_optional(ctx, v, d, rank, what);
    return {T2O_KIND_OPTIONAL, d, rank, opt};
  }
  switch (v.kind()) {
    case T2O_KIND_TENSOR: {
      // The body may change the shape at each iteration: only the rank is declared.
      int32_t rank = body_param.rank() >= 0 ? body_param.rank() : v.rank();
      return {T2O_KIND_TENSOR, v.dtype(), rank, ctx.as_onnx(v)};
    }
    case T2O_KIND_INT:
    case T2O_KIND_FLOAT:
    case T2O_KIND_BOOL: {
      t2o_dtype d = scalar_dtype(v);
      return {v.kind(), d, 0, to_dtype(ctx, v, d)};
    }
    case T2O_KIND_LIST:
    case T2O_KIND_SEQUENCE: {
      t2o_dtype elem = body_param.dtype() != T2O_DTYPE_UNDEFINED ? body_param.dtype() : v.dtype();
      Value seq = list_as_sequence(ctx, v, elem, what);
      return {T2O_KIND_SEQUENCE, seq.dtype(), -1, seq};
    }
    case T2O_KIND_NONE:
      if (body_result.kind() == T2O_KIND_TENSOR || body_result.kind() == T2O_KIND_OPTIONAL)
        require(ctx, feature::kOptional, what + " that is None on entry and a tensor later (an ONNX optional)");
      [[fallthrough]];
    default:
      unsupported("prim::Loop: " + what + " is " + (v.is_none() ? "None" : "not a tensor, number or list") +
                  " (ONNX Loop carries tensors and sequences)");
  }
}

// A body output as the ONNX value the carried slot expects.
Value carried_out(Ctx& ctx, const Value& v, const Carried& slot, int32_t k) {
  if (slot.kind == T2O_KIND_OPTIONAL) return as_optional(ctx, v, slot.dtype, slot.rank, "carried value " + std::to_string(k));
  if (v.is_none() || v.is_optional())
    require(ctx, feature::kOptional, "carried value " + std::to_string(k) + " that is None at the end of an iteration (an ONNX optional)");
  if (slot.kind == T2O_KIND_SEQUENCE) return list_as_sequence(ctx, v, slot.dtype, "carried value " + std::to_string(k));
  if (v.kind() != T2O_KIND_TENSOR && !is_scalar_kind(v.kind()))
    unsupported("prim::Loop: carried value " + std::to_string(k) + " is not a tensor or number at the end of the body");
  // One dtype per carried slot (a Python float may come back as float64 from a tensor).
  return slot.dtype != T2O_DTYPE_UNDEFINED ? to_dtype(ctx, v, slot.dtype) : ctx.as_onnx(v);
}

}  // namespace

T2O_OPTIONALS_SYMBOLIC("prim::Loop", 9) {
  Value trip = ctx.input(0), cond = ctx.input(1);
  const int32_t n = ctx.num_inputs() - 2;
  if (n != ctx.num_outputs() || ctx.block_num_inputs(0) != n + 1 || ctx.block_num_outputs(0) != n + 1)
    fail("prim::Loop: carried values do not match the body's parameters");

  Value max_trip;  // omitted: a while loop
  if (!(trip.is_const() && trip.to_int() == std::numeric_limits<int64_t>::max())) max_trip = to_dtype(ctx, trip, T2O_DTYPE_INT64);
  Value initial_cond = to_dtype(ctx, cond, T2O_DTYPE_BOOL);

  std::vector<Carried> slots;
  for (int32_t k = 0; k < n; ++k)
    slots.push_back(carried_in(ctx, ctx.input(k + 2), ctx.block_input(0, k + 1), ctx.block_output(0, k + 1), k));

  ctx.subgraph_begin("loop_body");
  std::vector<Value> params;
  params.push_back(ctx.subgraph_input(T2O_KIND_INT, T2O_DTYPE_INT64, 0));  // iteration_num
  ctx.subgraph_input(T2O_KIND_BOOL, T2O_DTYPE_BOOL, 0);                    // condition (unused)
  for (const auto& slot : slots) params.push_back(ctx.subgraph_input(slot.kind, slot.dtype, slot.rank));
  auto outs = ctx.convert_block(0, params);
  std::vector<Value> body_outputs;
  body_outputs.push_back(to_dtype(ctx, outs[0], T2O_DTYPE_BOOL));
  for (int32_t k = 0; k < n; ++k) body_outputs.push_back(carried_out(ctx, outs[(size_t)k + 1], slots[(size_t)k], k));
  Value body = ctx.subgraph_end(body_outputs);

  std::vector<Value> inputs = {max_trip, initial_cond};
  for (const auto& slot : slots) inputs.push_back(slot.initial);
  if (n == 0) {
    // A loop that carries nothing computes nothing ONNX can see (its side effects were dropped).
    return;
  }
  auto results = ctx.op_n("Loop", inputs, n, {Attr::graph("body", body)});
  for (int32_t k = 0; k < n; ++k) {
    const auto& slot = slots[(size_t)k];
    Structure s;
    s.kind = slot.kind;
    s.dtype = slot.dtype;
    s.rank = slot.rank;
    size_t next = (size_t)k;
    ctx.set_output(k, unflatten_value(ctx, s, results, next));
  }
}
