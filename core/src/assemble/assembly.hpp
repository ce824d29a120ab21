// Stage 5 of a conversion: assembly. The model's outputs (tuples and lists flattened as torch.onnx
// does, renamed to their output names), inputs and their value_info with dynamic dims named, the
// initializers (large ones streamed by the writer), opset imports and IR version: a ModelProto, with
// the provenance of its nodes, handed over whole (nothing asks the session afterwards).
#ifndef TORCH2ONNX_CORE_ASSEMBLY_HPP
#define TORCH2ONNX_CORE_ASSEMBLY_HPP

#include "assemble/model_writer.hpp"
#include "convert/session.hpp"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace t2o::core {

// An ONNX value whose TorchScript value's size varies with the dynamic axes.
struct DynamicValue {
  std::string onnx;
  std::vector<int64_t> dims;  // -1 = varies with the dynamic axes
  std::string origin;         // "aten::view at LOCATION"
};

struct ConvertedModel {
  onnx::ModelProto model;
  std::vector<StreamedTensor> streamed;  // large initializers, written by write_model
  Provenance provenance;                 // ONNX node name -> TorchScript node and pack
  std::vector<DynamicValue> dynamic_values;
  ExportStats stats;

  // "aten::op at LOCATION (pack P)" for an ONNX node name, "" if unknown.
  std::string origin_of(const std::string& onnx_node) const;
  // After shape inference: ops whose ONNX result has a fixed size where the TorchScript value's size
  // varies with the dynamic axes (a size was specialized), one line each, in graph order.
  std::vector<std::string> specialization_warnings() const;
};

// Assembles the session's graphs into a model; the session lets go of every tensor it held.
ConvertedModel assemble(Session& session);

// Each node's doc_string says which TorchScript node and pack made it (export --print).
void annotate_origins(ConvertedModel& conv);
// Checks and shape-infers the assembled model as export writes it; warns of specialized sizes
// (exporter.cpp; also used by verify).
void finish_conversion(ConvertedModel& conv, const ExportOptions& options);

}  // namespace t2o::core

#endif
