// Registers the post-17 schemas the ONNX library in use lacks into its registry, after widening the
// default domain's version range to opset 26 where it ends lower (ONNX refuses schemas above its last
// opset otherwise). ONNX 1.12 lacks all of them; a newer ONNX has its own schemas of the opsets it
// knows (1.20: up to 25), which are kept: ours are registered only for the (op, since_version) pairs
// ONNX has no schema of.
#include "schemas.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace t2o::core::onnx_schemas {

namespace {

constexpr int kHighestOpset = 26;

std::vector<SchemaId>& registered() {
  static std::vector<SchemaId> ids;
  return ids;
}

// Ours that ONNX has a deprecated schema of (deprecated_by_onnx).
std::vector<SchemaId>& deprecated_upstream() {
  static std::vector<SchemaId> ids;
  return ids;
}

}  // namespace

void register_post17_schemas() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    // Make ONNX load its own schemas first, so that ours are checked against them (no duplicates).
    (void)onnx::OpSchemaRegistry::Schema("Add", "");
    // ONNX offers no setter for an existing domain's range; the singleton is not a const object,
    // so writing through Map()'s reference is well defined.
    auto& ranges = const_cast<std::unordered_map<std::string, std::pair<int, int>>&>(
        onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map());
    ranges[onnx::ONNX_DOMAIN].second = std::max(ranges[onnx::ONNX_DOMAIN].second, kHighestOpset);

    std::vector<onnx::OpSchema> all;
    for (auto* add : {opset18_schemas, opset19_schemas, opset20_schemas, opset21_schemas, opset23_schemas,
                      opset24_schemas, opset26_schemas})
      add(all);
    for (auto& schema : all) {
      const std::string name = schema.Name();
      const int since = schema.SinceVersion();
      // ONNX's own schema of this version, when it has one, wins (and registering ours beside it would
      // be a duplicate).
      const onnx::OpSchema* own = onnx::OpSchemaRegistry::Schema(name, since, "");
      if (own && own->SinceVersion() == since) {
        if (own->Deprecated()) deprecated_upstream().push_back({name, since});
        continue;
      }
      // Prints to stderr and returns (without registering) if ONNX rejects the schema: verify below.
      onnx::OpSchemaRegistry::OpSchemaRegisterOnce once_registered(schema);
      const onnx::OpSchema* found = onnx::OpSchemaRegistry::Schema(name, since, "");
      if (!found || found->SinceVersion() != since) {
        failure += (failure.empty() ? "" : ", ") + name + "-" + std::to_string(since);
        continue;
      }
      registered().push_back({name, since});
    }
  });
  if (!failure.empty()) throw std::runtime_error("ONNX refused the schemas of " + failure);
}

const std::vector<SchemaId>& post17_schemas() {
  register_post17_schemas();
  return registered();
}

bool deprecated_by_onnx(const std::string& op, int since_version) {
  register_post17_schemas();
  return std::any_of(deprecated_upstream().begin(), deprecated_upstream().end(),
                     [&](const SchemaId& id) { return id.op == op && id.since_version == since_version; });
}

}  // namespace t2o::core::onnx_schemas
