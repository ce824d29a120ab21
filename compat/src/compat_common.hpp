// Helpers shared by the kernels of libtorch2onnx_compat (PyTorch 2.x ops for libtorch 1.13).
//
// Registration: each file defines its schemas with TORCH_LIBRARY_FRAGMENT(aten, m) (the exact PyTorch
// 2.6 string where libtorch 1.13 lacks the overload; an extra overload named t2o_* where 1.13 has the
// overload with an older schema: TorchScript resolves a call in saved code by name and arguments,
// never by overload name). Kernels made only of ATen calls are registered as CompositeImplicitAutograd:
// they then serve every backend, the Meta device of the example run's first pass included (the ATen
// calls they make have meta kernels), and autograd. Kernels whose result depends on data (nonzero,
// item()), or that call ATen ops without a meta kernel in libtorch 1.13 (where, logical_not), get
// a separate Meta kernel giving the output's shape, and a fallthrough for AutogradMeta: libtorch
// 1.13 has no autograd fallback for the Meta device (a CPU-only kernel would never see a meta
// tensor), and a composite kernel would take meta tensors before the Meta kernel.
//
// Against a newer libtorch (the same source tree builds against libtorch 1.13 and 2.14), each op is
// registered only where the libtorch built against lacks it: registrations are gated with
// T2O_TORCH_LACKS(major, minor), the PyTorch release that added the op (docs/guide/pytorch2.md's
// table). Against 2.6 and later nothing is registered here but script_ops.cpp's operators missing
// from the JIT's table (checked when the library loads); the kernels are compiled either way.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>
#include <torch/library.h>
#include <torch/version.h>

// Whether the libtorch this library is built against predates PyTorch release MAJOR.MINOR, so lacks
// the ops it added.
#define T2O_TORCH_LACKS(major, minor) \
  (TORCH_VERSION_MAJOR < (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR < (minor)))

#include <vector>

namespace t2o_compat {

// Boxed kernels (schemas with SymInt[] arguments, which libtorch 1.13 cannot unbox into a typed
// kernel) read their arguments as IValues. A SymInt arrives as an int or a SymInt.
inline int64_t arg_int(const c10::IValue& v) { return v.isSymInt() ? v.toSymInt().expect_int() : v.toInt(); }

inline std::vector<int64_t> arg_int_list(const c10::IValue& v) {
  if (v.isIntList()) return v.toIntVector();
  std::vector<int64_t> out;
  for (const auto& item : v.toListRef()) out.push_back(arg_int(item));
  return out;
}

inline c10::optional<at::Tensor> arg_opt_tensor(const c10::IValue& v) {
  if (v.isNone()) return c10::nullopt;
  return v.toTensor();
}

// dim wrapped into [0, rank) as PyTorch wraps it (a 0-d tensor accepts 0 and -1).
inline int64_t wrap_dim(int64_t dim, int64_t rank, const char* op) {
  const int64_t n = rank > 0 ? rank : 1;
  TORCH_CHECK_INDEX(dim >= -n && dim < n, op, ": Dimension out of range (expected to be in range of [", -n, ", ",
                    n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

// A list of dims wrapped, each at most once (PyTorch's dim_list_to_bitset).
inline std::vector<int64_t> wrap_dims(at::IntArrayRef dims, int64_t rank, const char* op) {
  std::vector<int64_t> out;
  std::vector<bool> seen(rank > 0 ? rank : 1, false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, rank, op);
    TORCH_CHECK(!seen[w], op, ": dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    out.push_back(w);
  }
  return out;
}

}  // namespace t2o_compat
