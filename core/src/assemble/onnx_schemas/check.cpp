#include "check.hpp"

#include "schemas.hpp"

#include <map>

namespace t2o::core::onnx_schemas {

namespace {

constexpr const char* kUnverifiedDomain = "org.torch2onnx.unverified";

bool default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

void collect_nodes(onnx::GraphProto* g, std::vector<onnx::NodeProto*>& out) {
  for (auto& node : *g->mutable_node()) {
    out.push_back(&node);
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) collect_nodes(attr.mutable_g(), out);
      for (auto& sub : *attr.mutable_graphs()) collect_nodes(&sub, out);
    }
  }
}

}  // namespace

CheckableModel::CheckableModel(onnx::ModelProto& model) : model_(model), ir_version_(model.ir_version()) {
  register_post17_schemas();
  if (model_.ir_version() > onnx::IR_VERSION) model_.set_ir_version(onnx::IR_VERSION);
  int64_t opset = -1;
  for (const auto& imp : model_.opset_import())
    if (default_domain(imp.domain())) opset = imp.version();
  if (opset < 0) return;
  strict_ = opset > 17;
  std::vector<onnx::NodeProto*> nodes;
  collect_nodes(model_.mutable_graph(), nodes);
  for (auto& f : *model_.mutable_functions())  // local functions (--export-modules-as-functions)
    for (auto& n : *f.mutable_node()) {
      nodes.push_back(&n);
      for (auto& attr : *n.mutable_attribute()) {
        if (attr.has_g()) collect_nodes(attr.mutable_g(), nodes);
        for (auto& sub : *attr.mutable_graphs()) collect_nodes(&sub, nodes);
      }
    }
  std::map<std::string, size_t> counts;
  for (auto* node : nodes) {
    if (!default_domain(node->domain())) continue;
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node->op_type(), static_cast<int>(opset), "");
    // A form ONNX 1.12 knows through our schema but a newer ONNX deprecates (its checker would refuse
    // it) is left unverified, like an op without a schema.
    if (schema && !(schema->Deprecated() && deprecated_by_onnx(node->op_type(), schema->SinceVersion()))) continue;
    ++counts[node->op_type()];
    moved_domains_.push_back(node->domain());
    node->set_domain(kUnverifiedDomain);
    moved_.push_back(node);
  }
  if (moved_.empty()) return;
  auto* imp = model_.add_opset_import();
  imp->set_domain(kUnverifiedDomain);
  imp->set_version(1);
  for (auto& f : *model_.mutable_functions()) *f.add_opset_import() = *imp;
  for (const auto& [op, n] : counts)
    unverified_.push_back(op + " (" + std::to_string(n) + (n == 1 ? " node)" : " nodes)"));
}

CheckableModel::~CheckableModel() {
  model_.set_ir_version(ir_version_);
  for (size_t i = 0; i < moved_.size(); ++i) moved_[i]->set_domain(moved_domains_[i]);
  if (!moved_.empty()) {
    auto* imports = model_.mutable_opset_import();
    for (int i = imports->size() - 1; i >= 0; --i)
      if (imports->Get(i).domain() == kUnverifiedDomain) imports->DeleteSubrange(i, 1);
    for (auto& f : *model_.mutable_functions()) {
      auto* own = f.mutable_opset_import();
      for (int i = own->size() - 1; i >= 0; --i)
        if (own->Get(i).domain() == kUnverifiedDomain) own->DeleteSubrange(i, 1);
    }
  }
}

}  // namespace t2o::core::onnx_schemas
