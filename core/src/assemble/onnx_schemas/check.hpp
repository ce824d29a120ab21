// Running ONNX 1.12's checker and shape inference on models of opsets 18-26.
#ifndef TORCH2ONNX_CORE_ONNX_SCHEMAS_CHECK_HPP
#define TORCH2ONNX_CORE_ONNX_SCHEMAS_CHECK_HPP

#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

namespace t2o::core::onnx_schemas {

// While alive, `model` is in a form ONNX 1.12's checker and shape inference accept, with the
// post-17 schemas registered:
// - an ir_version above 1.12's (8) reads as 8 (IR 9-13 add element types and fields this exporter
//   does not write);
// - each node of the default domain that no schema covers at the model's opset (an op introduced
//   after 17 that core/src/assemble/onnx_schemas does not register) is moved to a private domain, so the
//   checker verifies the graph around it but not the node itself; unverified() names these ops. So is
//   a node whose form a newer ONNX deprecates though 1.12 verifies it with our schema
//   (GroupNormalization-18 under ONNX 1.20: deprecated_by_onnx()).
// The destructor restores what it changed (shape inference's value_info stays).
class CheckableModel {
 public:
  explicit CheckableModel(onnx::ModelProto& model);
  ~CheckableModel();
  CheckableModel(const CheckableModel&) = delete;
  CheckableModel& operator=(const CheckableModel&) = delete;

  // Options for InferShapes: above opset 17 node-level inference errors are errors (they carry the
  // post-17 schemas' checks of attribute values, e.g. a Pad mode that opset lacks); at 9-17 they stay
  // ignored as before.
  onnx::ShapeInferenceOptions inference_options() const { return onnx::ShapeInferenceOptions(false, strict_ ? 1 : 0); }

  // "OpType (N nodes)" for each op the checker cannot verify, sorted by op type.
  const std::vector<std::string>& unverified() const { return unverified_; }

 private:
  onnx::ModelProto& model_;
  int64_t ir_version_;
  bool strict_ = false;
  std::vector<onnx::NodeProto*> moved_;  // nodes whose domain is now the private one
  std::vector<std::string> moved_domains_;
  std::vector<std::string> unverified_;
};

}  // namespace t2o::core::onnx_schemas

#endif
