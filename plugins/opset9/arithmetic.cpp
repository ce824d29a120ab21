// aten::add/sub/mul/div (+ in-place add_/sub_/mul_/div_, Tensor and Scalar overloads, alpha,
// div's rounding_mode), aten::rsub, aten::floor_divide, aten::floordiv, aten::neg, aten::remainder,
// aten::fmod, aten::pow, aten::float_power, and the int/float scalar overloads (add.int, mul.float,
// ...) used by scripted shape arithmetic; aten::add.t on lists, lists built at run time (ONNX
// sequences) included.
//
// Type promotion: operands are converted to torch.result_type of the operands (common/promote.hpp:
// a Python number does not raise a tensor's dtype within its category; int / int -> float32 for
// true division); in-place forms then cast the result to self's dtype, as PyTorch does.
#include <torch2onnx/plugin.hpp>

#include <cmath>

#include "common/promote.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

namespace {

enum class Bin { Add, Sub, Mul, Div, FloorDiv };

bool is_int_like(t2o_kind k) { return k == T2O_KIND_INT || k == T2O_KIND_BOOL; }

int64_t floor_div_i(Ctx& ctx, int64_t a, int64_t b) {
  if (b == 0) fail(ctx.kind() + ": integer division by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Integer floor division on ONNX tensors of the same int dtype: Div truncates; adjust by -1 where
// the remainder is non-zero and its sign differs from the divisor's.
Value int_floor_div(Ctx& ctx, const Value& a, const Value& b, t2o_dtype dt) {
  Value q = ctx.op("Div", {a, b});
  Value r = ctx.op("Sub", {a, ctx.op("Mul", {q, b})});
  Value zero = ctx.scalar(dt, 0);
  Value nonzero = ctx.op("Not", {ctx.op("Equal", {r, zero})});
  Value sign_differs = ctx.op("Xor", {ctx.op("Less", {r, zero}), ctx.op("Less", {b, zero})});
  Value fix = ctx.op("Cast", {ctx.op("And", {nonzero, sign_differs})}, {Attr::i("to", dt)});
  return ctx.op("Sub", {q, fix});
}

// trunc(x) for floats: sign(x) * floor(|x|) (ONNX has no Trunc).
Value float_trunc(Ctx& ctx, const Value& x) {
  return ctx.op("Mul", {ctx.op("Sign", {x}), ctx.op("Floor", {ctx.op("Abs", {x})})});
}

// Both operands are Python numbers (int/float/bool), constant or run-time.
void scalar_binary(Ctx& ctx, Bin op, Value a, Value b) {
  bool ints = is_int_like(a.kind()) && is_int_like(b.kind());
  if (a.is_const() && b.is_const()) {
    if (ints && op != Bin::Div) {
      int64_t x = a.to_int(), y = b.to_int();
      int64_t r = op == Bin::Add ? x + y : op == Bin::Sub ? x - y : op == Bin::Mul ? x * y : floor_div_i(ctx, x, y);
      return ctx.set_output(0, ctx.make_int(r));
    }
    double x = a.to_float(), y = b.to_float();
    double r = op == Bin::Add ? x + y : op == Bin::Sub ? x - y : op == Bin::Mul ? x * y
             : op == Bin::Div ? x / y : std::floor(x / y);
    return ctx.set_output(0, ctx.make_float(r));
  }
  // Run-time scalars: 0-d ONNX tensors.
  t2o_dtype dt = T2O_DTYPE_INT64;
  if (!ints || op == Bin::Div) {
    dt = T2O_DTYPE_FLOAT;
    for (const Value& v : {a, b})
      if (v.kind() == T2O_KIND_FLOAT && !v.is_const() && is_float_dtype(scalar_dtype(v))) dt = scalar_dtype(v);
  }
  Value ta = to_dtype(ctx, a, dt), tb = to_dtype(ctx, b, dt);
  Value r;
  switch (op) {
    case Bin::Add: r = ctx.op("Add", {ta, tb}); break;
    case Bin::Sub: r = ctx.op("Sub", {ta, tb}); break;
    case Bin::Mul: r = ctx.op("Mul", {ta, tb}); break;
    case Bin::Div: r = ctx.op("Div", {ta, tb}); break;
    case Bin::FloorDiv:
      r = dt == T2O_DTYPE_INT64 ? int_floor_div(ctx, ta, tb, dt) : ctx.op("Floor", {ctx.op("Div", {ta, tb})});
      break;
  }
  ctx.set_output(0, ctx.make_dynamic_scalar(r, dt == T2O_DTYPE_INT64 ? T2O_KIND_INT : T2O_KIND_FLOAT));
}

// aten::add.t where a list is built at run time (an ONNX sequence, e.g. carried by a loop:
// `res = res + [t]`): the other list's items inserted at its end (or, for list + sequence, at its
// front), as torch.onnx's SequenceInsert chain. Two run-time lists: no ONNX op concatenates
// sequences.
void concat_sequence(Ctx& ctx, const Value& a, const Value& b) {
  if (a.is_sequence() && b.is_sequence())
    unsupported(ctx.kind() + ": concatenating two lists built at run time (ONNX has no op that joins sequences)");
  const Value& seq = a.is_sequence() ? a : b;
  const Value& list = a.is_sequence() ? b : a;
  if (list.kind() != T2O_KIND_LIST) unsupported(ctx.kind() + ": a list built at run time plus a non-list");
  std::vector<Value> items = list.items();
  for (const Value& v : items)
    if (v.kind() != T2O_KIND_TENSOR)
      unsupported(ctx.kind() + ": a list built at run time holds tensors only (ONNX sequences)");
  Value out = seq;
  if (a.is_sequence()) {
    for (const Value& v : items) out = ctx.op("SequenceInsert", {out, v});
  } else {
    for (auto it = items.rbegin(); it != items.rend(); ++it) out = ctx.op("SequenceInsert", {out, *it, ctx.scalar_i64(0)});
  }
  ctx.set_output(0, typed(ctx, ctx.make_dynamic_scalar(out, T2O_KIND_SEQUENCE), seq.dtype(), -1));
}

// self (op) alpha*other; alpha_index < 0 when the overload has no alpha.
void binary(Ctx& ctx, Bin op, bool reverse = false) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (reverse) std::swap(a, b);
  // aten::add.t: list concatenation.
  if (op == Bin::Add && a.kind() == T2O_KIND_LIST && b.kind() == T2O_KIND_LIST) {
    std::vector<Value> items = a.items();
    for (const Value& v : b.items()) items.push_back(v);
    return ctx.set_output(0, ctx.make_list(items));
  }
  if (op == Bin::Add && (a.is_sequence() || b.is_sequence())) return concat_sequence(ctx, a, b);
  if (is_scalar_kind(a.kind()) && is_scalar_kind(b.kind())) return scalar_binary(ctx, op, a, b);

  // div's rounding_mode (div.Tensor_mode / div.Scalar_mode): None, "trunc" or "floor".
  std::string mode;
  if (op == Bin::Div && ctx.num_inputs() > 2 && ctx.input(2).kind() == T2O_KIND_STRING) {
    mode = ctx.input(2).to_string();
    if (mode != "trunc" && mode != "floor") unsupported(ctx.kind() + ": rounding_mode='" + mode + "'");
  }
  if (op == Bin::FloorDiv) mode = "floor";
  t2o_dtype dt = op == Bin::Div && mode.empty() ? float_result_type({a, b}) : result_type({a, b});
  const t2o_dtype out_dt = output_dtype(ctx, 0, dt);  // self's dtype for the in-place forms

  // Add/Sub/Mul/Div take 8/16-bit integers only from 14: compute in int32 and cast back (wraps
  // around as PyTorch does).
  dt = arithmetic_dtype(ctx, dt);
  Value ta = to_dtype(ctx, a, dt), tb = to_dtype(ctx, b, dt);
  // alpha (add/sub/rsub): scales `other`.
  if ((op == Bin::Add || op == Bin::Sub) && ctx.num_inputs() > 2) {
    Value alpha = ctx.input(2);
    if (is_scalar_kind(alpha.kind())) {
      if (!alpha.is_const()) unsupported(ctx.kind() + ": argument 'alpha' must be constant");
      if (alpha.to_float() != 1.0) tb = ctx.op("Mul", {tb, to_dtype(ctx, alpha, dt)});
    }
  }
  Value y;
  switch (op) {
    case Bin::Add:
      if (dt == T2O_DTYPE_BOOL) y = ctx.op("Or", {ta, tb});  // bool + bool is logical or
      else y = ctx.op("Add", {ta, tb});
      break;
    case Bin::Sub: y = ctx.op("Sub", {ta, tb}); break;
    case Bin::Mul:
      if (dt == T2O_DTYPE_BOOL) y = ctx.op("And", {ta, tb});  // Mul has no bool kernel
      else y = ctx.op("Mul", {ta, tb});
      break;
    case Bin::Div:
    case Bin::FloorDiv:
      if (mode.empty()) {
        y = ctx.op("Div", {ta, tb});
      } else if (is_float_dtype(dt)) {
        Value q = ctx.op("Div", {ta, tb});
        y = mode == "floor" ? ctx.op("Floor", {q}) : float_trunc(ctx, q);
      } else {
        y = mode == "floor" ? int_floor_div(ctx, ta, tb, dt) : ctx.op("Div", {ta, tb});  // int Div truncates
      }
      break;
  }
  if (out_dt != dt) y = ctx.op("Cast", {y}, {Attr::i("to", out_dt)});
  ctx.set_output(0, y);
}

// ---- remainder / fmod / pow ----

// Python-style remainder (sign of the divisor) and C-style fmod (sign of the dividend), on ONNX
// tensors of dtype dt. Mod needs opset 10 (fmod=1 for floats); at 9 they are composed from Div.
Value remainder_t(Ctx& ctx, const Value& a, const Value& b, t2o_dtype dt, bool c_fmod) {
  bool fl = is_float_dtype(dt);
  if (has(ctx, feature::kMod)) {
    if (c_fmod || fl) {
      Value m = ctx.op("Mod", {a, b}, {Attr::i("fmod", 1)});
      if (c_fmod) return m;
      // Move a non-zero fmod result whose sign differs from b's into b's sign: m + b.
      Value zero = ctx.scalar(dt, 0);
      Value fix = ctx.op("Or", {ctx.op("And", {ctx.op("Less", {m, zero}), ctx.op("Greater", {b, zero})}),
                                ctx.op("And", {ctx.op("Greater", {m, zero}), ctx.op("Less", {b, zero})})});
      return ctx.op("Where", {fix, ctx.op("Add", {m, b}), m});
    }
    return ctx.op("Mod", {a, b}, {Attr::i("fmod", 0)});
  }
  Value q = ctx.op("Div", {a, b});
  if (fl) q = c_fmod ? float_trunc(ctx, q) : ctx.op("Floor", {q});
  else if (!c_fmod) q = int_floor_div(ctx, a, b, dt);  // int Div truncates: right for fmod
  return ctx.op("Sub", {a, ctx.op("Mul", {q, b})});
}

void remainder(Ctx& ctx, bool c_fmod) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (is_scalar_kind(a.kind()) && is_scalar_kind(b.kind())) {
    if (!(a.is_const() && b.is_const())) {
      // Run-time numbers (a loop counter, a size): 0-d tensors, int64 or the float's dtype.
      bool ints = is_int_like(a.kind()) && is_int_like(b.kind());
      t2o_dtype dt = ints ? T2O_DTYPE_INT64 : a.kind() == T2O_KIND_FLOAT ? scalar_dtype(a) : scalar_dtype(b);
      if (!ints && !is_float_dtype(dt)) dt = T2O_DTYPE_FLOAT;
      Value r = remainder_t(ctx, to_dtype(ctx, a, dt), to_dtype(ctx, b, dt), dt, c_fmod);
      return ctx.set_output(0, ctx.make_dynamic_scalar(r, ints ? T2O_KIND_INT : T2O_KIND_FLOAT));
    }
    if (is_int_like(a.kind()) && is_int_like(b.kind())) {
      int64_t x = a.to_int(), y = b.to_int();
      if (y == 0) fail(ctx.kind() + ": integer modulo by zero");
      int64_t r = x % y;
      if (!c_fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
      return ctx.set_output(0, ctx.make_int(r));
    }
    double x = a.to_float(), y = b.to_float();
    double r = std::fmod(x, y);
    if (!c_fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
    return ctx.set_output(0, ctx.make_float(r));
  }
  t2o_dtype dt = result_type({a, b});
  Value y = remainder_t(ctx, to_dtype(ctx, a, dt), to_dtype(ctx, b, dt), dt, c_fmod);
  t2o_dtype out_dt = output_dtype(ctx, 0, dt);
  ctx.set_output(0, out_dt == dt ? y : ctx.op("Cast", {y}, {Attr::i("to", out_dt)}));
}

int64_t ipow(int64_t b, int64_t e) {
  int64_t r = 1;
  while (e-- > 0) r *= b;
  return r;
}

// pow: Tensor^Tensor, Tensor^Scalar, Scalar^Tensor, and Python numbers. ONNX Pow takes integer
// operands from 12; before, integer powers are computed in double and cast back.
void pow(Ctx& ctx, bool float_power = false) {
  Value a = ctx.input(0), b = ctx.input(1);
  if (is_scalar_kind(a.kind()) && is_scalar_kind(b.kind())) {
    if (!(a.is_const() && b.is_const())) unsupported(ctx.kind() + ": run-time Python numbers");
    // aten::pow.int returns float, pow.int_to_int an int.
    if (ctx.output(0).kind() == T2O_KIND_INT && b.to_int() >= 0)
      return ctx.set_output(0, ctx.make_int(ipow(a.to_int(), b.to_int())));
    return ctx.set_output(0, ctx.make_float(std::pow(a.to_float(), b.to_float())));
  }
  // float_power computes in double; pow in the operands' result type (self's dtype in place).
  t2o_dtype dt = float_power ? T2O_DTYPE_DOUBLE : result_type({a, b});
  if (dt == T2O_DTYPE_BOOL) unsupported(ctx.kind() + ": pow on bool tensors");
  // Common exponents: x^1, x^2 stay exact and cheap.
  if (b.kind() != T2O_KIND_TENSOR && b.is_const() && a.kind() == T2O_KIND_TENSOR) {
    double e = b.to_float();
    Value x = to_dtype(ctx, a, dt);
    if (e == 1.0) return ctx.set_output(0, x);
    if (e == 2.0) return ctx.set_output(0, ctx.op("Mul", {x, x}));
  }
  t2o_dtype work = dt;
  if (!is_float_dtype(dt) && !has(ctx, feature::kIntegerClipPow)) work = T2O_DTYPE_DOUBLE;
  Value y = ctx.op("Pow", {to_dtype(ctx, a, work), to_dtype(ctx, b, work)});
  t2o_dtype out_dt = output_dtype(ctx, 0, dt);
  if (work != out_dt) y = ctx.op("Cast", {y}, {Attr::i("to", out_dt)});
  ctx.set_output(0, y);
}

}  // namespace

T2O_SYMBOLIC("aten::add", 9) { binary(ctx, Bin::Add); }
T2O_SYMBOLIC("aten::add_", 9) { binary(ctx, Bin::Add); }
T2O_SYMBOLIC("aten::sub", 9) { binary(ctx, Bin::Sub); }
T2O_SYMBOLIC("aten::sub_", 9) { binary(ctx, Bin::Sub); }
// rsub(self, other, alpha) = other - alpha*self
T2O_SYMBOLIC("aten::rsub", 9) { binary(ctx, Bin::Sub, /*reverse=*/true); }
T2O_SYMBOLIC("aten::mul", 9) { binary(ctx, Bin::Mul); }
T2O_SYMBOLIC("aten::mul_", 9) { binary(ctx, Bin::Mul); }
T2O_SYMBOLIC("aten::div", 9) { binary(ctx, Bin::Div); }
T2O_SYMBOLIC("aten::div_", 9) { binary(ctx, Bin::Div); }
T2O_SYMBOLIC("aten::true_divide", 9) { binary(ctx, Bin::Div); }
T2O_SYMBOLIC("aten::floor_divide", 9) { binary(ctx, Bin::FloorDiv); }
T2O_SYMBOLIC("aten::floordiv", 9) { binary(ctx, Bin::FloorDiv); }

T2O_SYMBOLIC("aten::neg", 9) {
  Value x = ctx.input(0);
  if (x.kind() == T2O_KIND_INT && x.is_const()) return ctx.set_output(0, ctx.make_int(-x.to_int()));
  if (x.kind() == T2O_KIND_FLOAT && x.is_const()) return ctx.set_output(0, ctx.make_float(-x.to_float()));
  if (is_scalar_kind(x.kind()))
    return ctx.set_output(0, ctx.make_dynamic_scalar(ctx.op("Neg", {ctx.as_onnx(x)}), x.kind()));
  ctx.set_output(0, ctx.op("Neg", {x}));
}

T2O_SYMBOLIC("aten::remainder", 9) { remainder(ctx, false); }
T2O_SYMBOLIC("aten::remainder_", 9) { remainder(ctx, false); }
T2O_SYMBOLIC("aten::__mod__", 9) { remainder(ctx, false); }
T2O_SYMBOLIC("aten::fmod", 9) { remainder(ctx, true); }
T2O_SYMBOLIC("aten::fmod_", 9) { remainder(ctx, true); }
T2O_SYMBOLIC("aten::pow", 9) { pow(ctx); }
T2O_SYMBOLIC("aten::pow_", 9) { pow(ctx); }
T2O_SYMBOLIC("aten::float_power", 9) { pow(ctx, true); }  // output dtype is float64
