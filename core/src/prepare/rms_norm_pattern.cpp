// Pass 12 (passes.hpp): the exact RMSNorm pattern becomes one t2o::rms_norm node, which a pack
// converts to RMSNormalization (opset 23). Matched, on the types the example runs recorded:
//
//   xc = x                      (float32)      or  xc = x.float() / x.to(torch.float32) (x float16/bfloat16)
//   s  = xc.pow(2)  |  xc * xc
//   m  = s.mean(dims, keepdim=True)             dims: exactly the last k dims of x
//   a  = m + eps                                (a number; alpha 1)
//   h  = xc * torch.rsqrt(a)  |  torch.rsqrt(a) * xc  |  xc / torch.sqrt(a)
//   hb = h                                       or, after a cast-in, h.to(x.dtype) / h.type_as(x)
//   y  = hb * w  |  w * hb  |  hb               w: x's dtype, broadcasting to x's last k dims only
//
// which is RMSNormalization(x, w, axis=-k, epsilon=eps, stash_type=float32): its statistics in
// float32, the normalized value cast back to x's dtype, then scaled. Anything else (another reduced
// dim, keepdim=False, eps added after the square root, float16 statistics, float64, a weight that
// broadcasts the output to a larger shape) is left as it is, and its ops convert one by one.
#include "prepare/passes.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace t2o::core {

namespace {

using torch::jit::Node;
using torch::jit::Value;

constexpr int32_t kFloat = 1, kFloat16 = 10, kBFloat16 = 16;  // ONNX element types

std::optional<double> number(const Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return std::nullopt;
  auto iv = torch::jit::toIValue(v);
  if (!iv) return std::nullopt;
  if (iv->isDouble()) return iv->toDouble();
  if (iv->isInt()) return (double)iv->toInt();
  return std::nullopt;
}

bool is_kind(const Node* n, const char* qual) { return n->kind() == c10::Symbol::fromQualString(qual); }

// A node that only changes the dtype of its first input (same shape, the type table says).
bool is_cast(const Node* n) {
  return is_kind(n, "aten::to") || is_kind(n, "aten::type_as") || is_kind(n, "aten::float") ||
         is_kind(n, "aten::half") || is_kind(n, "aten::bfloat16");
}

struct Matcher {
  const std::shared_ptr<torch::jit::Graph>& graph;
  TypeTable& types;
  int fused = 0;

  const TensorInfo* info(const Value* v) const {
    const TensorInfo* t = types.find(v);
    return t && t->known_rank && !t->list_elements && !t->quantized ? t : nullptr;
  }

  bool same_dims(const Value* a, const Value* b) const {
    const TensorInfo *ta = info(a), *tb = info(b);
    return ta && tb && ta->dims == tb->dims;
  }

  // A use of v by a node of kind `qual` that `accept` takes.
  Node* user(Value* v, const char* qual, std::function<bool(Node*)> accept) const {
    for (const auto& u : v->uses())
      if (is_kind(u.user, qual) && accept(u.user)) return u.user;
    return nullptr;
  }

  // The other input of a two-input mul/div node that has `v` as one input.
  static Value* other_input(Node* n, Value* v) { return n->input(0) == v ? n->input(1) : n->input(0); }

  bool try_fuse(Node* root) {  // root: aten::rsqrt or aten::sqrt
    const bool rsqrt = is_kind(root, "aten::rsqrt");
    std::vector<Node*> chain{root};
    // a = m + eps
    Node* add = root->input(0)->node();
    if (!is_kind(add, "aten::add") || add->inputs().size() != 3) return false;
    auto eps = number(add->input(1));
    auto alpha = number(add->input(2));
    if (!eps || !alpha || *alpha != 1.0) return false;
    chain.push_back(add);
    // m = s.mean(dims, keepdim=True)
    Node* mean = add->input(0)->node();
    if (!is_kind(mean, "aten::mean") || mean->inputs().size() != 4) return false;
    auto dims_iv = torch::jit::toIValue(mean->input(1));
    auto keepdim = torch::jit::toIValue(mean->input(2));
    auto dtype_iv = torch::jit::toIValue(mean->input(3));
    if (!dims_iv || !dims_iv->isIntList() || !keepdim || !keepdim->isBool() || !keepdim->toBool() || !dtype_iv ||
        !dtype_iv->isNone())
      return false;
    chain.push_back(mean);
    // s = xc^2
    Node* square = mean->input(0)->node();
    Value* xc = nullptr;
    if (is_kind(square, "aten::pow") && square->inputs().size() == 2 && number(square->input(1)) == 2.0) {
      xc = square->input(0);
    } else if (is_kind(square, "aten::mul") && square->inputs().size() == 2 && square->input(0) == square->input(1)) {
      xc = square->input(0);
    } else {
      return false;
    }
    chain.push_back(square);
    // h = xc * rsqrt(a) | xc / sqrt(a)
    Value* r = root->output();
    Node* normalize = rsqrt ? user(r, "aten::mul", [&](Node* n) { return n->inputs().size() == 2 && other_input(n, r) == xc; })
                            : user(r, "aten::div", [&](Node* n) { return n->inputs().size() == 2 && n->input(0) == xc && n->input(1) == r; });
    if (!normalize) return false;
    chain.push_back(normalize);
    Value* h = normalize->output();

    // The cast in (x float16/bfloat16 -> float32) and back, or float32 throughout.
    const TensorInfo* xc_info = info(xc);
    if (!xc_info || xc_info->dtype != kFloat) return false;
    Value* x = xc;
    Value* hb = h;
    Node* cast_in = xc->node();
    if (is_cast(cast_in)) {
      const TensorInfo* x_info = info(cast_in->input(0));
      if (x_info && (x_info->dtype == kFloat16 || x_info->dtype == kBFloat16) && same_dims(cast_in->input(0), xc)) {
        x = cast_in->input(0);
        chain.push_back(cast_in);
        Node* cast_back = nullptr;
        for (const auto& u : h->uses()) {
          const TensorInfo* t = info(u.user->output(0));
          if (u.offset == 0 && is_cast(u.user) && t && t->dtype == x_info->dtype && same_dims(u.user->output(0), h))
            cast_back = u.user;
        }
        if (!cast_back) return false;  // statistics in float32 and a float32 result: not RMSNormalization's
        chain.push_back(cast_back);
        hb = cast_back->output(0);
      }
    }
    const TensorInfo* x_info = info(x);
    if (!x_info || !same_dims(x, hb)) return false;
    const int64_t rank = (int64_t)x_info->dims.size();

    // The reduced dims must be exactly the last k.
    std::set<int64_t> reduced;
    for (int64_t d : dims_iv->toIntVector()) {
      if (d < -rank || d >= rank) return false;
      reduced.insert(d < 0 ? d + rank : d);
    }
    const int64_t k = (int64_t)reduced.size();
    if (k == 0 || k != (int64_t)dims_iv->toIntVector().size() || *reduced.begin() != rank - k) return false;

    // y = hb * w, w broadcasting to the normalized dims only, in x's dtype.
    Value* weight = nullptr;
    Value* y = hb;
    Node* scale = user(hb, "aten::mul", [&](Node* n) {
      if (n->inputs().size() != 2 || n->input(0) == n->input(1)) return false;
      const TensorInfo* w = info(other_input(n, hb));
      if (!w || w->dtype != x_info->dtype || (int64_t)w->dims.size() > k || !same_dims(n->output(), x)) return false;
      for (size_t i = 0; i < w->dims.size(); ++i) {
        int64_t xd = x_info->dims[x_info->dims.size() - w->dims.size() + i];
        if (w->dims[i] != xd && w->dims[i] != 1) return false;
      }
      return true;
    });
    if (scale) {
      weight = other_input(scale, hb);
      chain.push_back(scale);
      y = scale->output();
    }
    const TensorInfo* y_info = info(y);
    if (!y_info || y_info->dtype != x_info->dtype) return false;

    // One block only (a pattern split across an if's inside and outside is left alone).
    for (Node* n : chain)
      if (n->owningBlock() != root->owningBlock()) return false;

    // Rewrite: one node after the pattern's last, the pattern's nodes removed once unused.
    Node* last = y->node();
    torch::jit::WithInsertPoint guard(last->next());
    Value* none_or_weight = weight ? weight : graph->insertConstant(c10::IValue());
    Value* eps_value = graph->insertConstant(*eps);
    Value* axis_value = graph->insertConstant(-k);
    Node* fused_node = graph->create(c10::Symbol::fromQualString("t2o::rms_norm"), {x, none_or_weight, eps_value, axis_value}, 1);
    graph->insertNode(fused_node);
    fused_node->setSourceRange(last->sourceRange());
    fused_node->setScope(last->scope());
    fused_node->output()->setType(y->type());
    TensorInfo fused_info = *y_info;
    y->replaceAllUsesWith(fused_node->output());
    types.set(fused_node->output(), fused_info);
    std::sort(chain.begin(), chain.end(), [](Node* a, Node* b) { return b->isBefore(a); });  // last first
    for (Node* n : chain)
      if (std::none_of(n->outputs().begin(), n->outputs().end(), [](Value* v) { return v->hasUses(); })) n->destroy();
    ++fused;
    return true;
  }

  void run(torch::jit::Block* block) {
    std::vector<Node*> roots;
    for (Node* n : block->nodes()) {
      for (auto* b : n->blocks()) run(b);
      if (is_kind(n, "aten::rsqrt") || is_kind(n, "aten::sqrt")) roots.push_back(n);
    }
    for (Node* n : roots) try_fuse(n);  // a fused root is destroyed only after its own try
  }
};

}  // namespace

int fuse_rms_norm(const std::shared_ptr<torch::jit::Graph>& graph, TypeTable& types) {
  Matcher m{graph, types};
  m.run(graph->block());
  return m.fused;
}

}  // namespace t2o::core
