// Quantized embeddings (torch.ao's float_qparams_weight_only_qconfig / _4bit: nn.Embedding and
// nn.EmbeddingBag as torch.ao.nn.quantized.Embedding / EmbeddingBag), and the fused-row forms.
//
// The table's rows are quantized with a float scale and a FLOAT zero point each, which
// DequantizeLinear cannot express (its zero point is an integer of the data's type). So the table is
// not dequantized at export: it stays an 8-bit initializer (uint8 [N, D]; 4- and 2-bit values are
// stored one per uint8, not packed), next to per-row float32 scale and bias initializers [N, 1], and
//
//   q = Gather(table, indices); s = Gather(scale, indices); b = Gather(bias, indices)
//   rows = Cast(q, float) * s + b                       (s and b first times per_sample_weights)
//
// then, for the bags, the sum over each bag (common/embedding_bag.hpp; empty bags give 0).
// This is PyTorch's kernel arithmetic (aten/src/ATen/native/quantized/cpu/qembeddingbag.cpp):
//   bias = zero_point * scale * -1 (float, at prepack); for 4-bit tables scale and bias are stored as
//   float16 (rounded to nearest even) and read back as float;
//   per entry: scale' = weight * scale, bias' = weight * bias; out = fma(scale', q, out + bias').
// The kernel's fused multiply-add and summation order are the only differences: results agree to a
// few float32 ulps (tests/quantized: max |a-b| <= 1e-5 on values of order 1).
//
// PyTorch 1.13's quantized kernels ignore `mode` (and scale_grad_by_freq): every bag is a sum, and
// torch.ao's quantized EmbeddingBag passes mode=0 whatever its float module had. The export follows
// the kernel: a sum for every mode. Pruned bags (pruned_weights=True) look their rows up through a
// constant compressed_indices_mapping (-1: skipped). From opset 9; a number of indices known only at
// run time needs Range (opset 11).
// Refused, naming the argument: an op whose bit width is not the table's (PyTorch reads garbage there:
// torch.ao 1.13's quantized Embedding.from_float forgets quint4x2 and calls embedding_byte on a 4-bit
// table; setting the module's .dtype = torch.quint4x2 after convert repairs it); a mapping known only
// at run time; pruned_weights=True on the embedding ops (PyTorch has no mapping there either); offsets
// with 2-D indices (PyTorch refuses them too); indices of rank other than 1 or 2; a fused-row weight
// that is not a constant.
//
// Schemas:
//   quantized::embedding_byte(EmbeddingPackedParamsBase weight, Tensor indices, bool pruned_weights=False) -> Tensor
//   quantized::embedding_4bit(the same) -> Tensor
//   quantized::embedding_bag_byte(EmbeddingPackedParamsBase weight, Tensor indices, Tensor? offsets=None,
//       bool scale_grad_by_freq=False, int mode=0, bool pruned_weights=False, Tensor? per_sample_weights=None,
//       Tensor? compressed_indices_mapping=None, bool include_last_offset=False) -> Tensor
//   quantized::embedding_bag_4bit(the same) -> Tensor
//   quantized::embedding_bag_byte_rowwise_offsets(Tensor weight, the same arguments) -> Tensor
//       weight: uint8 [N, D + 8], each row D values, a float32 scale and a float32 bias (little endian)
//   quantized::embedding_bag_4bit_rowwise_offsets / _2bit_rowwise_offsets(Tensor weight, …) -> Tensor
//       weight: uint8 [N, D/2 + 4] / [N, D/4 + 4]: values packed low bits first, float16 scale and bias
//   torch2onnx::embedding_packed_params(Tensor data, Tensor scale, Tensor zero_point, int bit_rate)
//       -> EmbeddingPackedParamsBase: what the core's prepare step unpacks the packed table into
//       (core/src/prepare/quantized_params.cpp); bound here to the list of its arguments.
#include <torch2onnx/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/embedding_bag.hpp"
#include "qdq.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

// f rounded to the nearest float16 (ties to even, as c10::Half's conversion), as a float.
float round_to_half(float f) {
  if (!std::isfinite(f) || f == 0.0f) return f;
  int e = 0;
  std::frexp(f, &e);  // |f| in [2^(e-1), 2^e)
  const int quantum_exp = std::max(e - 1 - 10, -24);  // 10 mantissa bits; subnormals below 2^-14
  const float r = std::ldexp(std::nearbyint(std::ldexp(f, -quantum_exp)), quantum_exp);
  return std::fabs(r) > 65504.0f ? std::copysign(INFINITY, f) : r;
}

float half_to_float(uint16_t h) {
  const int exp = (h >> 10) & 31, mant = h & 1023;
  float v = exp == 0 ? std::ldexp(float(mant), -24)
            : exp == 31 ? (mant ? NAN : INFINITY)
                        : std::ldexp(float(mant | 1024), exp - 25);
  return (h & 0x8000) ? -v : v;
}

// A dequantizable table: uint8 values [N, D], per-row float scale and bias [N, 1].
struct Table {
  Value data, scale, bias;
  int64_t rows = 0, dim = 0;
};

Value column(Ctx& ctx, const std::vector<float>& v) {
  return ctx.tensor(T2O_DTYPE_FLOAT, {int64_t(v.size()), 1}, v.data(), v.size() * sizeof(float));
}

std::vector<float> float_elements(Ctx& ctx, const Value& v, const char* what) {
  if (v.dtype() != T2O_DTYPE_FLOAT) fail(ctx.kind() + ": " + what + " is not float32");
  auto bytes = quant::const_bytes(ctx, v, what);
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

// The table of a torch2onnx::embedding_packed_params list (data, scale, zero_point, bit_rate), for an
// op that reads tables of `op_bits`.
Table packed_table(Ctx& ctx, const Value& params, int op_bits) {
  if (!params.is_list() || params.list_size() != 4)
    unsupported(ctx.kind() + ": weight is not a constant EmbeddingPackedParamsBase object");
  Table t;
  const Value data = params.item(0);
  if (data.dtype() != T2O_DTYPE_UINT8 || data.rank() != 2 || !data.has_static_shape())
    fail(ctx.kind() + ": the unpacked table is not a 2-d uint8 tensor");
  const int64_t bit_rate = params.item(3).to_int();
  if (bit_rate != op_bits)
    // PyTorch reads the packed rows with the op's layout whatever the table's: its result is not an
    // embedding (torch.ao 1.13's quantized Embedding.from_float drops quint4x2 and calls the 8-bit op).
    unsupported(ctx.kind() + ": argument 'weight' is a " + std::to_string(bit_rate) + "-bit table but the op reads " +
                std::to_string(op_bits) + "-bit rows (PyTorch's result would be garbage; with torch.ao's quantized " +
                "Embedding, set its .dtype to the table's, torch.quint4x2)");
  std::vector<float> scale = float_elements(ctx, params.item(1), "scale");
  std::vector<float> zero_point = float_elements(ctx, params.item(2), "zero_point");
  t.rows = data.dim(0), t.dim = data.dim(1);
  if (int64_t(scale.size()) != t.rows || zero_point.size() != scale.size())
    fail(ctx.kind() + ": " + std::to_string(scale.size()) + " scales for " + std::to_string(t.rows) + " rows");
  std::vector<float> bias(scale.size());
  for (size_t r = 0; r < scale.size(); ++r) {
    bias[r] = zero_point[r] * scale[r] * -1.0f;  // prepack's order
    if (bit_rate == 4) scale[r] = round_to_half(scale[r]), bias[r] = round_to_half(bias[r]);
  }
  t.data = ctx.as_onnx(data);
  t.scale = column(ctx, scale);
  t.bias = column(ctx, bias);
  return t;
}

// The table of a fused-row uint8 weight (the *_rowwise_offsets ops): values, then scale and bias.
Table fused_table(Ctx& ctx, const Value& weight, int bits) {
  if (!weight.is_const())
    unsupported(ctx.kind() + ": argument 'weight' is not a constant (its rows are split at export time)");
  if (weight.dtype() != T2O_DTYPE_UINT8 || weight.rank() != 2)
    fail(ctx.kind() + ": argument 'weight' is not a 2-d uint8 tensor");
  const int64_t n = weight.dim(0), width = weight.dim(1);
  const int64_t tail = bits == 8 ? 8 : 4;  // float32 or float16 scale and bias
  const int64_t per_byte = 8 / bits;
  if (width < tail) fail(ctx.kind() + ": rows of " + std::to_string(width) + " bytes hold no scale and bias");
  auto bytes = quant::const_bytes(ctx, weight, "weight");
  Table t;
  t.rows = n, t.dim = (width - tail) * per_byte;
  std::vector<uint8_t> values(size_t(n * t.dim));
  std::vector<float> scale(static_cast<size_t>(n)), bias(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    const uint8_t* row = bytes.data() + r * width;
    for (int64_t c = 0; c < t.dim; ++c)
      values[size_t(r * t.dim + c)] = uint8_t((row[c / per_byte] >> ((c % per_byte) * bits)) & ((1 << bits) - 1));
    const uint8_t* sb = row + (width - tail);
    if (bits == 8) {
      std::memcpy(&scale[size_t(r)], sb, 4);
      std::memcpy(&bias[size_t(r)], sb + 4, 4);
    } else {
      scale[size_t(r)] = half_to_float(uint16_t(sb[0] | (sb[1] << 8)));
      bias[size_t(r)] = half_to_float(uint16_t(sb[2] | (sb[3] << 8)));
    }
  }
  t.data = ctx.tensor(T2O_DTYPE_UINT8, {n, t.dim}, values.data(), values.size());
  t.scale = column(ctx, scale);
  t.bias = column(ctx, bias);
  return t;
}

void check_indices(Ctx& ctx, const Value& indices) {
  const int32_t r = indices.rank();
  if (r != 1 && r != 2)
    unsupported(ctx.kind() + ": argument 'indices' of rank " + std::to_string(r) + " (PyTorch takes 1-d or 2-d indices)");
  if (indices.dtype() != T2O_DTYPE_INT64 && indices.dtype() != T2O_DTYPE_INT32)
    fail(ctx.kind() + ": argument 'indices' is not int64 or int32");
}

// Dequantized rows of `indices` (shape indices.shape + [D]), scale and bias first multiplied by the
// per-sample weights as PyTorch's kernel does.
Value lookup(Ctx& ctx, const Table& t, const Value& indices, const Value& idx, const Value& per_sample_weights) {
  const std::vector<Attr> axis0 = {Attr::i("axis", 0)};
  Value q = ctx.op("Cast", {ctx.op("Gather", {t.data, idx}, axis0)}, {Attr::i("to", T2O_DTYPE_FLOAT)});
  Value s = ctx.op("Gather", {t.scale, idx}, axis0), b = ctx.op("Gather", {t.bias, idx}, axis0);
  if (per_sample_weights.valid()) {
    Value w = cast_to(ctx, ctx.as_onnx(per_sample_weights), T2O_DTYPE_FLOAT);
    if (w.rank() != indices.rank()) w = ctx.op("Reshape", {w, shape_of(ctx, indices)});
    w = unsqueeze(ctx, w, {indices.rank()});
    s = ctx.op("Mul", {w, s});
    b = ctx.op("Mul", {w, b});
  }
  return ctx.op("Add", {ctx.op("Mul", {q, s}), b});
}

// Pruned tables (pruned_weights=True): row compressed_indices_mapping[i] for index i, skipped when it
// is -1; a mapping [0] means "not pruned" (the kernel's own convention). Returns the indices into the
// table and sets `keep` (bool, the indices' shape) unless nothing is skipped.
Value pruned_indices(Ctx& ctx, const Value& indices, int32_t pruned_arg, int32_t mapping_arg, Value* keep) {
  Value pruned = ctx.input(pruned_arg);
  if (!pruned.is_const()) unsupported(ctx.kind() + ": argument 'pruned_weights' must be constant");
  if (!pruned.to_bool()) return ctx.as_onnx(indices);
  Value mapping = opt_input(ctx, mapping_arg);
  if (!mapping.valid()) fail(ctx.kind() + ": pruned_weights=True without compressed_indices_mapping");
  if (!mapping.is_const())
    unsupported(ctx.kind() + ": argument 'compressed_indices_mapping' must be constant with pruned_weights=True");
  const bool not_pruned = mapping.rank() == 1 && mapping.dim(0) == 1 &&
                          quant::const_int_elements(ctx, mapping, "compressed_indices_mapping")[0] == 0;
  if (not_pruned) return ctx.as_onnx(indices);
  Value row = cast_to(ctx, ctx.op("Gather", {ctx.as_onnx(mapping), ctx.as_onnx(indices)}, {Attr::i("axis", 0)}),
                      T2O_DTYPE_INT64);
  *keep = ctx.op("Not", {ctx.op("Equal", {row, ctx.scalar_i64(-1)})});
  return ctx.op("Where", {*keep, row, ctx.scalar_i64(0)});
}

// quantized::embedding_byte / embedding_4bit
void embedding(Ctx& ctx, int bits) {
  Value indices = ctx.input(1);
  check_indices(ctx, indices);
  Value pruned = ctx.input(2);
  if (!pruned.is_const()) unsupported(ctx.kind() + ": argument 'pruned_weights' must be constant");
  if (pruned.to_bool())
    unsupported(ctx.kind() + ": pruned_weights=True (PyTorch's embedding ops take no compressed_indices_mapping)");
  ctx.set_output(0, lookup(ctx, packed_table(ctx, ctx.input(0), bits), indices, ctx.as_onnx(indices), Value()));
}

// quantized::embedding_bag_* (packed or fused rows): inputs 1.. as in the schemas above.
void embedding_bag(Ctx& ctx, const Table& t) {
  Value indices = ctx.input(1), offsets = opt_input(ctx, 2), psw = opt_input(ctx, 6);
  check_indices(ctx, indices);
  const bool include_last = ctx.input(8).to_bool();
  // mode (input 4) is not read: PyTorch 1.13's kernels sum whatever it says (see the header).
  Value keep;
  Value idx = pruned_indices(ctx, indices, 5, 7, &keep);
  Value rows = lookup(ctx, t, indices, idx, psw);
  if (indices.rank() == 2) {
    // A batch of bags of equal length: PyTorch makes offsets arange(0, numel, L) itself.
    if (offsets.valid())
      fail(ctx.kind() + ": argument 'offsets' given with 2-d indices (PyTorch refuses it: 2-d indices are bags of "
           "fixed length)");
    if (keep.valid()) rows = ctx.op("Where", {unsqueeze(ctx, keep, {2}), rows, ctx.scalar(T2O_DTYPE_FLOAT, 0.0)});
    ctx.set_output(0, reduce(ctx, "ReduceSum", rows, {1}, false));
    return;
  }
  if (!offsets.valid()) fail(ctx.kind() + ": argument 'offsets' is None with 1-d indices (PyTorch refuses it)");
  if (offsets.rank() != 1) fail(ctx.kind() + ": argument 'offsets' is not 1-d");
  ctx.set_output(0, reduce_bags(ctx, rows, T2O_DTYPE_FLOAT, indices, offsets, include_last, BagMode::kSum, keep));
}

}  // namespace

T2O_SYMBOLIC("torch2onnx::embedding_packed_params", 9) {
  ctx.set_output(0, ctx.make_list({ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3)}));
}
T2O_SYMBOLIC("quantized::embedding_byte", 9) { embedding(ctx, 8); }
T2O_SYMBOLIC("quantized::embedding_4bit", 9) { embedding(ctx, 4); }
T2O_SYMBOLIC("quantized::embedding_bag_byte", 9) { embedding_bag(ctx, packed_table(ctx, ctx.input(0), 8)); }
T2O_SYMBOLIC("quantized::embedding_bag_4bit", 9) { embedding_bag(ctx, packed_table(ctx, ctx.input(0), 4)); }
T2O_SYMBOLIC("quantized::embedding_bag_byte_rowwise_offsets", 9) { embedding_bag(ctx, fused_table(ctx, ctx.input(0), 8)); }
T2O_SYMBOLIC("quantized::embedding_bag_4bit_rowwise_offsets", 9) { embedding_bag(ctx, fused_table(ctx, ctx.input(0), 4)); }
T2O_SYMBOLIC("quantized::embedding_bag_2bit_rowwise_offsets", 9) { embedding_bag(ctx, fused_table(ctx, ctx.input(0), 2)); }
