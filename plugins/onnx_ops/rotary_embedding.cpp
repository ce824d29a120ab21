// onnx::RotaryEmbedding.opset23 (torch.onnx.ops.rotary_embedding) -> ONNX RotaryEmbedding-23 at opset
// >= 23; below, its exact decomposition: (Transpose | Reshape) to (batch, seq, heads, head_size),
// Slice of the rotated part, Gather of the caches at position_ids, the rotation with Mul/Sub/Add (pairs
// split by a Reshape to (..., rot/2, 2) when interleaved, which needs no strided Slice at opset 9),
// Concat with the unrotated rest, and back. Half types are rotated in float, as ONNX Runtime does.
//
// onnx::RotaryEmbedding.opset23(Tensor x, Tensor cos_cache, Tensor sin_cache, Tensor? position_ids=None, *,
//     bool interleaved=False, SymInt num_heads=0, SymInt rotary_embedding_dim=0) -> Tensor
#include "rope_attention.hpp"

using namespace t2o;
using namespace t2o::onnx_ops;

namespace {

struct RopeArgs {
  Value x, cos, sin, pos;
  bool interleaved;
  int64_t num_heads, rotary_dim;
};

RopeArgs read_args(Ctx& ctx) {
  RopeArgs a;
  a.x = ctx.input(0);
  a.cos = ctx.input(1);
  a.sin = ctx.input(2);
  a.pos = ctx.input(3).is_none() ? Value() : ctx.input(3);
  a.interleaved = const_int(ctx, 4, "interleaved") != 0;
  a.num_heads = const_int(ctx, 5, "num_heads");
  a.rotary_dim = const_int(ctx, 6, "rotary_embedding_dim");
  return a;
}

Value decompose(Ctx& ctx, const RopeArgs& a) {
  const int32_t rank = a.x.rank();
  const t2o_dtype dt = a.x.dtype();
  const t2o_dtype ct = compute_dtype(dt);
  int64_t heads, head_size;
  Value x4;  // (batch, seq, heads, head_size)
  if (rank == 4) {
    heads = a.x.dim(1);
    head_size = a.x.dim(3);
    x4 = ctx.op("Transpose", {a.x}, {Attr::ints("perm", {0, 2, 1, 3})});
  } else if (rank == 3) {
    if (a.num_heads <= 0) unsupported(ctx.kind() + ": num_heads=" + std::to_string(a.num_heads) + " with a 3-D X");
    heads = a.num_heads;
    if (a.x.dim(2) < 0) unsupported(ctx.kind() + ": X's hidden size must be static");
    head_size = a.x.dim(2) / heads;
    x4 = ctx.op("Reshape", {a.x, ctx.const_i64({0, 0, heads, head_size})});
  } else {
    unsupported(ctx.kind() + ": X must be 3-D or 4-D, got rank " + std::to_string(rank));
  }
  if (heads < 0 || head_size < 0) unsupported(ctx.kind() + ": X's heads and head size must be static");
  const int64_t rot = a.rotary_dim > 0 ? a.rotary_dim : head_size;
  if (rot > head_size || rot % 2 != 0)
    unsupported(ctx.kind() + ": rotary_embedding_dim=" + std::to_string(rot) + " (must be even and <= head_size " +
                std::to_string(head_size) + ")");
  const int64_t half = rot / 2;

  x4 = cast_if(ctx, x4, dt, ct);
  Value x_rot = rot < head_size ? pack::slice(ctx, x4, {3}, {0}, {rot}) : x4;
  Value cos = a.pos.valid() ? ctx.op("Gather", {a.cos, a.pos}, {Attr::i("axis", 0)}) : ctx.as_onnx(a.cos);
  Value sin = a.pos.valid() ? ctx.op("Gather", {a.sin, a.pos}, {Attr::i("axis", 0)}) : ctx.as_onnx(a.sin);
  cos = cast_if(ctx, cos, dt, ct);
  sin = cast_if(ctx, sin, dt, ct);
  Value rotated;
  if (a.interleaved) {
    // (b, s, h, rot) -> (b, s, h, rot/2, 2): element pairs on the last axis.
    Value pairs = ctx.op("Reshape", {x_rot, ctx.const_i64({0, 0, 0, half, 2})});
    Value x1 = pack::slice(ctx, pairs, {4}, {0}, {1});
    Value x2 = pack::slice(ctx, pairs, {4}, {1}, {2});
    Value c = pack::unsqueeze(ctx, cos, {2, 4});  // (b, s, 1, rot/2, 1)
    Value s = pack::unsqueeze(ctx, sin, {2, 4});
    Value real = ctx.op("Sub", {ctx.op("Mul", {x1, c}), ctx.op("Mul", {x2, s})});
    Value imag = ctx.op("Add", {ctx.op("Mul", {x1, s}), ctx.op("Mul", {x2, c})});
    Value joined = ctx.op("Concat", {real, imag}, {Attr::i("axis", 4)});
    rotated = ctx.op("Reshape", {joined, ctx.const_i64({0, 0, 0, rot})});
  } else {
    Value x1 = pack::slice(ctx, x_rot, {3}, {0}, {half});
    Value x2 = pack::slice(ctx, x_rot, {3}, {half}, {rot});
    Value c = pack::unsqueeze(ctx, cos, {2});  // (b, s, 1, rot/2)
    Value s = pack::unsqueeze(ctx, sin, {2});
    Value real = ctx.op("Sub", {ctx.op("Mul", {x1, c}), ctx.op("Mul", {x2, s})});
    Value imag = ctx.op("Add", {ctx.op("Mul", {x1, s}), ctx.op("Mul", {x2, c})});
    rotated = ctx.op("Concat", {real, imag}, {Attr::i("axis", 3)});
  }
  if (rot < head_size)
    rotated = ctx.op("Concat", {rotated, pack::slice(ctx, x4, {3}, {rot}, {head_size})}, {Attr::i("axis", 3)});
  rotated = cast_if(ctx, rotated, ct, dt);
  if (rank == 4) return ctx.op("Transpose", {rotated}, {Attr::ints("perm", {0, 2, 1, 3})});
  return ctx.op("Reshape", {rotated, ctx.const_i64({0, 0, heads * head_size})});
}

}  // namespace

T2O_SYMBOLIC("onnx::RotaryEmbedding", 9) { ctx.set_output(0, decompose(ctx, read_args(ctx))); }

T2O_SYMBOLIC("onnx::RotaryEmbedding", 23) {
  RopeArgs a = read_args(ctx);
  if (!native_dtype(a.x.dtype())) {  // RotaryEmbedding-23's T: float, float16, bfloat16
    ctx.set_output(0, decompose(ctx, a));
    return;
  }
  std::vector<Attr> attrs;
  if (a.interleaved) attrs.push_back(Attr::i("interleaved", 1));
  if (a.num_heads != 0) attrs.push_back(Attr::i("num_heads", a.num_heads));
  if (a.rotary_dim != 0) attrs.push_back(Attr::i("rotary_embedding_dim", a.rotary_dim));
  ctx.set_output(0, ctx.op("RotaryEmbedding", {a.x, a.cos, a.sin, a.pos}, attrs));
}
