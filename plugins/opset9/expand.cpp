// aten::expand(self, size, implicit) and aten::expand_as(self, other) -> Expand.
// PyTorch's -1 ("keep this dim") becomes 1, which ONNX's bidirectional broadcast keeps as the
// input's dim; run-time size items are assembled with Unsqueeze + Concat, and since any of them may
// be -1 at run time (x.expand(n) with n from a tensor), -1 becomes 1 there too (Where), as torch.onnx
// does: Expand refuses a negative size ("invalid expand shape").
#include <torch2onnx/plugin.hpp>

#include "common/shape_ops.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_SYMBOLIC("aten::expand", 9) {
  Value x = ctx.input(0), size = ctx.input(1);
  Value shape;
  if (size.kind() == T2O_KIND_LIST) {
    std::vector<Value> parts;
    std::vector<int64_t> run;
    for (const Value& item : size.items()) {
      if (item.is_const()) {
        int64_t v = item.to_int();
        run.push_back(v == -1 ? 1 : v);
        continue;
      }
      if (!run.empty()) parts.push_back(ctx.const_i64(run)), run.clear();
      Value v = unsqueeze(ctx, as_i64(ctx, item), {0});
      parts.push_back(ctx.op("Where", {ctx.op("Equal", {v, ctx.const_i64({-1})}), ctx.const_i64({1}), v}));
    }
    if (!run.empty() || parts.empty()) parts.push_back(ctx.const_i64(run));  // size [] keeps a 0-d input 0-d
    shape = parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {Attr::i("axis", 0)});
  } else {
    // A size tensor: replace -1 at run time.
    Value s = int_list_tensor(ctx, size);
    Value minus1 = ctx.const_i64({-1});
    shape = ctx.op("Where", {ctx.op("Equal", {s, minus1}), ctx.const_i64({1}), s});
  }
  ctx.set_output(0, ctx.op("Expand", {x, shape}));
}

T2O_SYMBOLIC("aten::expand_as", 9) {
  ctx.set_output(0, ctx.op("Expand", {ctx.input(0), shape_of(ctx, ctx.input(1))}));
}
