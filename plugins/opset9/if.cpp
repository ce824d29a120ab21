// prim::If -> ONNX If. Each TorchScript block becomes a subgraph (then_branch, else_branch) whose
// nodes the host converts; tuples the branches return are flattened into several If outputs and
// rebuilt, scalars travel as 0-d tensors, lists built at run time as sequences (opset 11+).
// A condition known at export time converts only the branch it selects, inline. An Optional[Tensor]
// output that is None in one branch (opset 15+) is an ONNX optional: the tensor branch wraps its value
// (Optional), the None branch gives an empty one of that tensor's type, as torch.onnx does.
//
// prim::If(bool cond) -> (outputs...)    block 0: then, block 1: else (no parameters)
#include <torch2onnx/plugin.hpp>

#include <functional>

#include "common/control_flow.hpp"
#include "common/values.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_OPTIONALS_SYMBOLIC("prim::If", 9) {
  Value cond = ctx.input(0);
  const int32_t n = ctx.num_outputs();
  if (cond.is_const()) {
    auto outs = ctx.convert_block(cond.to_bool() ? 0 : 1, {});
    for (int32_t k = 0; k < n; ++k) ctx.set_output(k, outs[(size_t)k]);
    return;
  }
  Value c = ctx.as_onnx(cond);
  if (c.dtype() != T2O_DTYPE_BOOL) c = cast_to(ctx, c, T2O_DTYPE_BOOL);

  // Which outputs are ONNX optionals, decided before either branch is converted (each branch's
  // subgraph must already give the optional); the host's type handles say what each branch gives.
  std::vector<bool> optional((size_t)n, false);
  std::vector<t2o_dtype> optional_dtype((size_t)n, T2O_DTYPE_UNDEFINED);
  std::vector<int32_t> optional_rank((size_t)n, -1);
  for (int32_t k = 0; k < n; ++k) {
    Value t0 = ctx.block_output(0, k), t1 = ctx.block_output(1, k);
    if (!needs_optional(ctx, {t0.kind(), t1.kind()})) continue;
    optional[(size_t)k] = true;
    const Value& typed_side = t0.is_none() ? t1 : t0;
    Value recorded = ctx.output(k);
    optional_dtype[(size_t)k] = typed_side.dtype() != T2O_DTYPE_UNDEFINED ? typed_side.dtype() : recorded.dtype();
    optional_rank[(size_t)k] = typed_side.rank() >= 0 ? typed_side.rank() : recorded.rank();
  }

  std::vector<Value> branches;
  std::vector<std::vector<Structure>> shapes(2);
  for (int32_t b = 0; b < 2; ++b) {
    ctx.subgraph_begin(b == 0 ? "then" : "else");
    auto outs = ctx.convert_block(b, {});
    std::vector<Value> flat;
    for (int32_t k = 0; k < n; ++k) {
      // A TorchScript list (not a tuple) may have another length in the other branch: a sequence.
      Value out = outs[(size_t)k];
      Value type = ctx.block_output(b, k);
      // (An element type no run saw in this branch, one never taken: the If output's, as recorded.)
      t2o_dtype elem = type.dtype() != T2O_DTYPE_UNDEFINED ? type.dtype() : ctx.output(k).dtype();
      if (type.is_sequence()) out = list_as_sequence(ctx, out, elem, "output " + std::to_string(k));
      if (optional[(size_t)k])
        out = as_optional(ctx, out, optional_dtype[(size_t)k], optional_rank[(size_t)k], "output " + std::to_string(k));
      shapes[(size_t)b].push_back(flatten_value(ctx, out, flat, "output " + std::to_string(k)));
    }
    branches.push_back(ctx.subgraph_end(flat));
  }
  for (int32_t k = 0; k < n; ++k) {
    const Structure &a = shapes[0][(size_t)k], &b = shapes[1][(size_t)k];
    if (a.kind != T2O_KIND_LIST && a.dtype && b.dtype && a.dtype != b.dtype)
      unsupported("prim::If: output " + std::to_string(k) + " has element type " + std::to_string(a.dtype) +
                  " in one branch and " + std::to_string(b.dtype) + " in the other (ONNX types: one If output has one type)");
    // If-1 (before opset 11) takes its outputs' shapes from the then-branch: ONNX Runtime rejects
    // branches whose fixed shapes differ.
    if (!has(ctx, feature::kIfMergesBranchShapes) && a.kind == T2O_KIND_TENSOR && a.rank == b.rank && a.rank > 0) {
      bool fixed = true;
      for (size_t d = 0; d < a.dims.size() && d < b.dims.size(); ++d) fixed &= a.dims[d] >= 0 && b.dims[d] >= 0;
      if (fixed && a.dims != b.dims)
        unsupported("prim::If: output " + std::to_string(k) + " has shape " + str(a.dims) + " in one branch and " +
                    str(b.dims) + " in the other; ONNX If merges different branch shapes from opset 11 (use --opset 11)");
    }
    if (!same_structure(a, b))
      unsupported("prim::If: output " + std::to_string(k) +
                  " has a different structure in the two branches (tuples of different lengths, or a tensor in one "
                  "and a number in the other)");
  }
  size_t flat_count = 0;
  std::function<void(const Structure&)> count = [&](const Structure& s) {
    if (s.kind == T2O_KIND_LIST) for (const auto& i : s.items) count(i);
    else ++flat_count;
  };
  for (const auto& s : shapes[0]) count(s);
  if (flat_count == 0) return;  // nothing flows out (side effects only were dropped)
  auto outs = ctx.op_n("If", {c}, (int32_t)flat_count,
                       {Attr::graph("then_branch", branches[0]), Attr::graph("else_branch", branches[1])});
  // Where the branches disagree on a dtype or rank (or one branch's is unknown), take what the example run saw.
  size_t next = 0;
  for (int32_t k = 0; k < n; ++k) {
    Structure s = shapes[0][(size_t)k];
    const Structure& other = shapes[1][(size_t)k];
    if (s.kind != T2O_KIND_LIST && (s.dtype != other.dtype || s.rank != other.rank)) {
      Value recorded = ctx.output(k);
      s.dtype = recorded.dtype() != T2O_DTYPE_UNDEFINED ? recorded.dtype() : s.dtype;
      s.rank = s.rank == other.rank ? s.rank : -1;
    }
    ctx.set_output(k, unflatten_value(ctx, s, outs, next));
  }
}
