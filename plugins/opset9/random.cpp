// Random ops -> ONNX's random generators (opset 1 ops, so one form for every opset), with the
// output's dtype and shape; the values are a fresh sample, as PyTorch's are (no shared generator):
//   aten::rand(SymInt[] size, *, ScalarType? dtype, Layout?, Device?, bool? pin_memory)   RandomUniform
//   aten::randn(...)                                                                      RandomNormal
//   (a size computed at run time: the *Like forms on ConstantOfShape(size))
//   aten::rand_like(Tensor self, *, dtype, layout, device, pin_memory, memory_format)     RandomUniformLike
//   aten::randn_like(...)                                                                 RandomNormalLike
//   aten::randint(int high, SymInt[] size, *, dtype=long, ...)                            floor(U[0,1) * (high - low)) + low,
//   aten::randint.low(int low, int high, SymInt[] size, *, dtype=long, ...)               drawn in double
//   aten::randint_like(Tensor self, int high, *, dtype, ...) / .low_dtype(self, low, high, *, dtype, ...)
//                                                                                         the same, shaped as self (RandomUniformLike)
//   aten::bernoulli(Tensor self, *, Generator?)                                           U < self (self holds probabilities)
//   aten::bernoulli.p(Tensor self, float p, *, Generator?)                                U < p
//   aten::multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator?) Multinomial(Log(self))
//   aten::normal.Tensor_Tensor / Tensor_float / float_Tensor (mean, std, *, Generator?)   N(0,1) * std + mean
//   aten::normal.float_float(float mean, float std, SymInt[] size, *, Generator?, dtype...) RandomNormal(mean, scale)
//   aten::dropout(Tensor input, float p, bool train) with train=True                      x * (U >= p) / (1 - p)
// Generators other than None are refused (ONNX's ops take only a fixed seed, which PyTorch's
// Generator objects do not map to).
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

void no_generator(Ctx& ctx, int32_t i) {
  if (i < ctx.num_inputs() && !ctx.input(i).is_none() && ctx.input(i).kind() != T2O_KIND_INT)
    unsupported(ctx.kind() + ": argument 'generator' (only the default generator can be exported)");
}

// ONNX's random ops produce floating types only: draw in `dt` when it is one, else in float.
t2o_dtype draw_dtype(t2o_dtype dt) { return is_float_dtype(dt) ? dt : T2O_DTYPE_FLOAT; }

// A sample of `size` (an int list, constant or not) from RandomUniform/RandomNormal.
Value sample(Ctx& ctx, const std::string& op_type, const Value& size, t2o_dtype dt, std::vector<Attr> attrs = {}) {
  attrs.push_back(Attr::i("dtype", dt));
  if (size.is_const()) {
    attrs.push_back(Attr::ints("shape", size.to_ints()));
    return ctx.op(op_type, {}, attrs);
  }
  Value zeros = ctx.op("ConstantOfShape", {int_list_tensor(ctx, size)});
  return ctx.op(op_type + "Like", {zeros}, attrs);
}

Value as_out(Ctx& ctx, const Value& y, t2o_dtype from, t2o_dtype to) {
  return from == to ? y : ctx.op("Cast", {y}, {Attr::i("to", to)});
}

// rand / randn: (size, dtype, layout, device, pin_memory) or with a generator after size.
void rand(Ctx& ctx, const char* op_type) {
  if (ctx.num_inputs() == 6) no_generator(ctx, 1);
  t2o_dtype out = output_dtype(ctx, 0, T2O_DTYPE_FLOAT), dt = draw_dtype(out);
  ctx.set_output(0, as_out(ctx, sample(ctx, op_type, ctx.input(0), dt), dt, out));
}

void rand_like(Ctx& ctx, const char* op_type) {
  Value x = ctx.input(0);
  t2o_dtype out = output_dtype(ctx, 0, x.dtype()), dt = draw_dtype(out);
  ctx.set_output(0, as_out(ctx, ctx.op(op_type, {x}, {Attr::i("dtype", dt)}), dt, out));
}

// randint(high, size, ...) (6 inputs, 7 with a generator) / randint.low(low, high, size, ...) (7 / 8).
void randint(Ctx& ctx) {
  int32_t n = ctx.num_inputs();
  bool has_low = n == 8 || (n == 7 && ctx.input(2).kind() == T2O_KIND_LIST);
  if (n == 8 || (n == 7 && !has_low)) no_generator(ctx, has_low ? 3 : 2);
  Value low = has_low ? ctx.input(0) : ctx.make_int(0);
  Value high = ctx.input(has_low ? 1 : 0), size = ctx.input(has_low ? 2 : 1);
  t2o_dtype out = output_dtype(ctx, 0, T2O_DTYPE_INT64);
  // floor(u * (high - low)) + low in double: exact for any int64 range PyTorch draws from.
  Value u = sample(ctx, "RandomUniform", size, T2O_DTYPE_DOUBLE);
  Value lo = to_dtype(ctx, low, T2O_DTYPE_DOUBLE), hi = to_dtype(ctx, high, T2O_DTYPE_DOUBLE);
  Value y = ctx.op("Add", {ctx.op("Floor", {ctx.op("Mul", {u, ctx.op("Sub", {hi, lo})})}), lo});
  ctx.set_output(0, ctx.op("Cast", {y}, {Attr::i("to", out)}));
}

// randint_like(self, high, dtype, layout, device, pin_memory, memory_format) (7 inputs) /
// randint_like.low_dtype(self, low, high, ...) (8): self's dtype unless dtype is given.
void randint_like(Ctx& ctx) {
  Value x = ctx.input(0);
  bool has_low = ctx.num_inputs() == 8;
  Value low = has_low ? ctx.input(1) : ctx.make_int(0), high = ctx.input(has_low ? 2 : 1);
  t2o_dtype out = output_dtype(ctx, 0, x.dtype());
  Value u = ctx.op("RandomUniformLike", {x}, {Attr::i("dtype", T2O_DTYPE_DOUBLE)});
  Value lo = to_dtype(ctx, low, T2O_DTYPE_DOUBLE), hi = to_dtype(ctx, high, T2O_DTYPE_DOUBLE);
  Value y = ctx.op("Add", {ctx.op("Floor", {ctx.op("Mul", {u, ctx.op("Sub", {hi, lo})})}), lo});
  ctx.set_output(0, ctx.op("Cast", {y}, {Attr::i("to", out)}));
}

void bernoulli(Ctx& ctx) {
  Value x = ctx.input(0);
  t2o_dtype out = output_dtype(ctx, 0, x.dtype()), dt = draw_dtype(x.dtype());
  Value p;
  if (ctx.num_inputs() == 3 && is_scalar_kind(ctx.input(1).kind())) {  // bernoulli.p
    no_generator(ctx, 2);
    p = to_dtype(ctx, ctx.input(1), dt);
  } else {
    if (ctx.num_inputs() == 3) unsupported("aten::bernoulli: a probability tensor argument 'p'");
    no_generator(ctx, 1);
    p = to_dtype(ctx, x, dt);
  }
  Value u = ctx.op("RandomUniformLike", {x}, {Attr::i("dtype", dt)});
  ctx.set_output(0, ctx.op("Cast", {ctx.op("Less", {u, p})}, {Attr::i("to", out)}));
}

void multinomial(Ctx& ctx) {
  Value probs = ctx.input(0), count = ctx.input(1), replacement = ctx.input(2);
  no_generator(ctx, 3);
  if (!count.is_const()) unsupported("aten::multinomial: argument 'num_samples' computed at run time");
  if (!replacement.is_const()) unsupported("aten::multinomial: argument 'replacement' computed at run time");
  int64_t samples = count.to_int();
  // ONNX's Multinomial draws with replacement; without, only a single draw is the same.
  if (!replacement.to_bool() && samples > 1)
    unsupported("aten::multinomial: replacement=False with num_samples=" + std::to_string(samples) +
                " (ONNX Multinomial draws with replacement)");
  int32_t r = probs.rank();
  if (r != 1 && r != 2) fail("aten::multinomial: probabilities must be 1-D or 2-D, got rank " + std::to_string(r));
  // Multinomial takes unnormalized log-probabilities in float or double.
  Value logits = ctx.op("Log", {to_dtype(ctx, probs, draw_dtype(probs.dtype()))});
  if (r == 1) logits = unsqueeze(ctx, logits, {0});
  Value y = ctx.op("Multinomial", {logits}, {Attr::i("sample_size", samples), Attr::i("dtype", T2O_DTYPE_INT64)});
  if (r == 1) y = squeeze(ctx, y, {0});
  ctx.set_output(0, y);
}

void normal(Ctx& ctx) {
  Value mean = ctx.input(0), std = ctx.input(1);
  t2o_dtype out = output_dtype(ctx, 0, T2O_DTYPE_FLOAT), dt = draw_dtype(out);
  if (ctx.num_inputs() == 8) {  // normal.float_float(mean, std, size, generator, dtype, ...)
    no_generator(ctx, 3);
    if (!mean.is_const() || !std.is_const()) unsupported("aten::normal: mean/std computed at run time with a size");
    Value y = sample(ctx, "RandomNormal", ctx.input(2), dt,
                     {Attr::f("mean", mean.to_float()), Attr::f("scale", std.to_float())});
    return ctx.set_output(0, as_out(ctx, y, dt, out));
  }
  no_generator(ctx, 2);
  // The sample takes the broadcast shape of the tensor arguments.
  Value like = mean.kind() == T2O_KIND_TENSOR ? mean : std;
  if (mean.kind() == T2O_KIND_TENSOR && std.kind() == T2O_KIND_TENSOR)
    like = ctx.op("Add", {to_dtype(ctx, mean, dt), to_dtype(ctx, std, dt)});
  Value z = ctx.op("RandomNormalLike", {like}, {Attr::i("dtype", dt)});
  Value y = ctx.op("Add", {ctx.op("Mul", {z, to_dtype(ctx, std, dt)}), to_dtype(ctx, mean, dt)});
  ctx.set_output(0, as_out(ctx, y, dt, out));
}

}  // namespace

T2O_SYMBOLIC("aten::rand", 9) { rand(ctx, "RandomUniform"); }
T2O_SYMBOLIC("aten::randn", 9) { rand(ctx, "RandomNormal"); }
T2O_SYMBOLIC("aten::rand_like", 9) { rand_like(ctx, "RandomUniformLike"); }
T2O_SYMBOLIC("aten::randn_like", 9) { rand_like(ctx, "RandomNormalLike"); }
T2O_SYMBOLIC("aten::randint", 9) { randint(ctx); }
T2O_SYMBOLIC("aten::randint_like", 9) { randint_like(ctx); }
T2O_SYMBOLIC("aten::bernoulli", 9) { bernoulli(ctx); }
T2O_SYMBOLIC("aten::multinomial", 9) { multinomial(ctx); }
T2O_SYMBOLIC("aten::normal", 9) { normal(ctx); }
