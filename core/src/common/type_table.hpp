// Stage 1 of a conversion: what the example runs saw of every TorchScript tensor value, top level
// and inside blocks (if-branches, loop bodies). Keyed by Value::unique(), which is never reused
// within a graph, so values the fold creates later can never inherit a destroyed value's record.
#ifndef TORCH2ONNX_CORE_TYPE_TABLE_HPP
#define TORCH2ONNX_CORE_TYPE_TABLE_HPP

#include <torch/script.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace t2o::core {

// What the example run saw of a TorchScript tensor value (or of the elements of a list of tensors).
struct TensorInfo {
  int32_t dtype = 0;          // ONNX element type, 0 if unknown
  std::vector<int64_t> dims;  // -1 where the dim changed between runs or between loop iterations
  bool known_rank = false;
  bool list_elements = false;  // a list of tensors: dtype/dims describe its elements (its first, as seen)
  // A list of tensors whose length was the same at every sighting: each item's dtype and dims (-1
  // where they changed), so a list returned whole or used whole (split's parts, whose last one may be
  // shorter) gives each of its ONNX values its own type. Empty when the length varied.
  std::vector<int32_t> item_dtypes;
  std::vector<std::vector<int64_t>> item_dims;
  bool items_vary = false;  // the length differed between sightings: no per-item record
  std::vector<int64_t> run_dims, alt_dims;  // sizes in the two runs (only with dynamic axes)
  // Some -1 dims are assumed, not seen to vary: computed from an input whose dynamic axis no run could
  // vary (run/coupled_axes.cpp). No "size specialized" warning is drawn from them.
  bool dims_assumed = false;
  int32_t quantized = 0;  // a quantized tensor: its integer representation's ONNX type (dtype is FLOAT)
  double q_scale = 0;     // per-tensor quantized: its scale and zero point (else q_scale 0)
  int64_t q_zero_point = 0;
  // The grid the same value had when the quantized graph inputs came on another grid (the grid probe
  // run, core/src/run/example_run.cpp): a grid that differs follows an input's at run time.
  bool q_probed = false;
  double q_scale_probe = 0;
  int64_t q_zero_point_probe = 0;
};

class TypeTable {
 public:
  const TensorInfo* find(const torch::jit::Value* v) const {
    auto it = by_id_.find(v->unique());
    return it == by_id_.end() ? nullptr : &it->second;
  }
  TensorInfo* find(const torch::jit::Value* v) {
    auto it = by_id_.find(v->unique());
    return it == by_id_.end() ? nullptr : &it->second;
  }
  bool has(const torch::jit::Value* v) const { return by_id_.count(v->unique()) > 0; }
  void set(const torch::jit::Value* v, TensorInfo info) { by_id_[v->unique()] = std::move(info); }
  // One more sighting of value `id` (a loop body sees its values once per iteration): dims that
  // differ become -1, a rank that differs becomes unknown.
  void observe(size_t id, int32_t dtype, const std::vector<int64_t>& dims, bool list_elements = false);
  // A sighting of a tensor (a quantized one also records its integer type and per-tensor grid).
  void observe(size_t id, const at::Tensor& t, bool list_elements = false);
  // One more sighting of list `id`'s items (after observe() of its first): see TensorInfo::item_dims.
  void observe_items(size_t id, const std::vector<at::Tensor>& items);
  void clear() { by_id_.clear(); }
  std::unordered_map<size_t, TensorInfo>& entries() { return by_id_; }
  const std::unordered_map<size_t, TensorInfo>& entries() const { return by_id_; }

 private:
  std::unordered_map<size_t, TensorInfo> by_id_;
};

}  // namespace t2o::core

#endif
