// Operator schemas of ONNX opsets 18-26, written from the ONNX operator specs, registered into
// ONNX 1.12's schema registry so that its checker and shape inference verify the ops the packs
// emit above opset 17. Only the ops and versions the packs (or other helpers' symbolics) emit are
// here; every other op is verified against the newest schema ONNX 1.12 has (check.cpp decides when
// that is still the same form). A newer ONNX (1.20: opsets up to 25) has its own schemas of the
// opsets it knows: only the (op, version) pairs it lacks are registered (register.cpp).
#ifndef TORCH2ONNX_CORE_ONNX_SCHEMAS_SCHEMAS_HPP
#define TORCH2ONNX_CORE_ONNX_SCHEMAS_SCHEMAS_HPP

#include <onnx/defs/schema.h>

#include <set>
#include <string>
#include <vector>

namespace t2o::core::onnx_schemas {

struct SchemaId {
  std::string op;
  int since_version;
};

// Registers every schema below (once; thread-safe). Throws std::runtime_error if ONNX refused one.
void register_post17_schemas();

// The (op, since_version) pairs register_post17_schemas() adds, in registration order: those the
// ONNX library in use has no schema of (with ONNX 1.12, every one of opsets 18-26 below).
const std::vector<SchemaId>& post17_schemas();

// Whether (op, since_version) is one of the post-17 forms below that the ONNX library in use has a
// schema of itself, and that schema is deprecated (ONNX 1.20: GroupNormalization-18, replaced by
// -21). Its checker refuses such a node; check.cpp leaves it unverified instead, as under ONNX 1.12,
// whose registry has our schema of it. Always false with ONNX 1.12.
bool deprecated_by_onnx(const std::string& op, int since_version);

// One file per opset: each appends its schemas to `out`.
void opset18_schemas(std::vector<onnx::OpSchema>& out);
void opset19_schemas(std::vector<onnx::OpSchema>& out);
void opset20_schemas(std::vector<onnx::OpSchema>& out);
void opset21_schemas(std::vector<onnx::OpSchema>& out);
void opset23_schemas(std::vector<onnx::OpSchema>& out);
void opset24_schemas(std::vector<onnx::OpSchema>& out);
void opset26_schemas(std::vector<onnx::OpSchema>& out);

// Schemas whose form several opsets share (opset18.cpp), parameterized by what changes.
onnx::OpSchema pad_schema(int since, std::set<std::string> modes, const char* file, int line);
onnx::OpSchema resize_schema(int since, std::set<std::string> coordinate_modes, const char* file, int line);
const std::set<std::string>& resize_modes_18();
onnx::OpSchema group_norm_schema(int since, const char* file, int line);
onnx::OpSchema attention_schema(int since, const char* file, int line);  // opset23.cpp
onnx::OpSchema reduce_schema(const char* name, int since, std::vector<std::string> types, const char* file, int line);

}  // namespace t2o::core::onnx_schemas

#endif
