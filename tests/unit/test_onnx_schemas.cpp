// The post-17 schemas core/src/assemble/onnx_schemas registers into ONNX 1.12: each matches the ONNX
// operator spec (https://onnx.ai/onnx/operators/) in the fields it declares (arity, attributes,
// type constraints), from the table below, written from the spec independently of the schemas.
// Types the spec lists that ONNX 1.12 cannot name (float8, int4, float4, ...) are left out.
// Then a few shape inferences and the checker's handling of opsets above 17.
#include "assemble/onnx_schemas/check.hpp"
#include "assemble/onnx_schemas/schemas.hpp"

#include <torch2onnx/core/ir_version.hpp>

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>
#include <map>
#include <set>

using namespace t2o::core;
using Types = std::set<std::string>;

namespace {

Types t(std::initializer_list<const char*> names) {
  Types out;
  for (const char* n : names) out.insert(std::string("tensor(") + n + ")");
  return out;
}
Types operator+(Types a, const Types& b) {
  a.insert(b.begin(), b.end());
  return a;
}
const Types kFloat = t({"bfloat16", "double", "float", "float16"});
const Types kFloatNoBf16 = t({"double", "float", "float16"});
const Types kIntegers = t({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"});
const Types kReduce = t({"bfloat16", "double", "float", "float16", "int32", "int64", "uint32", "uint64"});
const Types kAllNoBf16 = t({"bool", "complex128", "complex64", "double", "float", "float16", "int16", "int32", "int64",
                            "int8", "string", "uint16", "uint32", "uint64", "uint8"});
const Types kAll = kAllNoBf16 + t({"bfloat16"});
const Types kIndex = t({"int32", "int64"});

struct Spec {
  std::string op;
  int since;
  int min_inputs, max_inputs, min_outputs, max_outputs;
  std::set<std::string> attributes;
  std::map<std::string, Types> constraints;
};

std::vector<Spec> spec_table() {
  const std::set<std::string> reduce_attrs{"keepdims", "noop_with_empty_axes"};
  const std::set<std::string> resize_attrs{"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a",
                                           "exclude_outside", "extrapolation_value", "keep_aspect_ratio_policy", "mode",
                                           "nearest_mode"};
  const std::set<std::string> attention_attrs{"is_causal", "kv_num_heads", "q_num_heads", "qk_matmul_output_mode",
                                              "scale", "softcap", "softmax_precision"};
  const Types attention_mask = t({"bfloat16", "bool", "double", "float", "float16", "int16", "int32", "int64", "int8",
                                  "uint16", "uint32", "uint64", "uint8"});
  std::vector<Spec> v;
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMean", "ReduceProd",
                         "ReduceSumSquare"})
    v.push_back({op, 18, 1, 2, 1, 1, reduce_attrs, {{"T", kReduce}}});
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    v.push_back({op, 18, 1, 2, 1, 1, reduce_attrs, {{"T", kReduce + t({"int8", "uint8"})}}});
    v.push_back({op, 20, 1, 2, 1, 1, reduce_attrs, {{"T", kReduce + t({"int8", "uint8", "bool"})}}});
  }
  v.push_back({"Split", 18, 1, 2, 1, INT_MAX, {"axis", "num_outputs"}, {{"T", kAll}}});
  v.push_back({"Pad", 18, 2, 4, 1, 1, {"mode"}, {{"T", kAll}, {"Tind", kIndex}}});
  v.push_back({"Pad", 19, 2, 4, 1, 1, {"mode"}, {{"T", kAll}, {"Tind", kIndex}}});
  v.push_back({"ScatterElements", 18, 3, 3, 1, 1, {"axis", "reduction"}, {{"T", kAll}, {"Tind", kIndex}}});
  v.push_back({"ScatterND", 18, 3, 3, 1, 1, {"reduction"}, {{"T", kAll}}});
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) v.push_back({op, 18, 2, 2, 1, 1, {}, {{"T", kIntegers}}});
  v.push_back({"BitwiseNot", 18, 1, 1, 1, 1, {}, {{"T", kIntegers}}});
  v.push_back({"Col2Im", 18, 3, 3, 1, 1, {"dilations", "pads", "strides"}, {{"T", kAll}}});
  v.push_back({"Resize", 18, 1, 4, 1, 1, resize_attrs, {{"T1", kAll}, {"T2", kFloatNoBf16}}});
  v.push_back({"Resize", 19, 1, 4, 1, 1, resize_attrs, {{"T1", kAll}, {"T2", kFloatNoBf16}}});
  v.push_back({"GroupNormalization", 18, 3, 3, 1, 1, {"epsilon", "num_groups"}, {{"T", kFloat}}});
  v.push_back({"GroupNormalization", 21, 3, 3, 1, 1, {"epsilon", "num_groups", "stash_type"}, {{"T", kFloat}}});
  v.push_back({"Mish", 18, 1, 1, 1, 1, {}, {{"T", kFloatNoBf16}}});
  v.push_back({"AveragePool", 19, 1, 1, 1, 1,
               {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"},
               {{"T", kFloatNoBf16}}});
  v.push_back({"DeformConv", 19, 3, 5, 1, 1, {"dilations", "group", "kernel_shape", "offset_group", "pads", "strides"},
               {{"T", kFloatNoBf16}}});
  v.push_back({"Gelu", 20, 1, 1, 1, 1, {"approximate"}, {{"T", kFloat}}});
  v.push_back({"AffineGrid", 20, 2, 2, 1, 1, {"align_corners"}, {{"T1", kFloat}, {"T2", t({"int64"})}}});
  v.push_back({"GridSample", 20, 2, 2, 1, 1, {"align_corners", "mode", "padding_mode"},
               {{"T1", kAllNoBf16}, {"T2", kFloatNoBf16}}});
  v.push_back({"DFT", 20, 1, 3, 1, 1, {"inverse", "onesided"}, {{"T1", kFloat}, {"T2", kIndex}}});
  v.push_back({"RMSNormalization", 23, 2, 2, 1, 1, {"axis", "epsilon", "stash_type"}, {{"T", kFloat}, {"V", kFloat}}});
  v.push_back({"Attention", 23, 3, 6, 1, 4, attention_attrs, {{"T1", kFloat}, {"T2", kFloat}, {"U", attention_mask}}});
  v.push_back({"Attention", 24, 3, 7, 1, 4, attention_attrs, {{"T1", kFloat}, {"T2", kFloat}, {"U", attention_mask}}});
  v.push_back({"RotaryEmbedding", 23, 3, 4, 1, 1, {"interleaved", "num_heads", "rotary_embedding_dim"},
               {{"T", t({"bfloat16", "float", "float16"})}, {"M", t({"int64"})}}});
  v.push_back({"Swish", 24, 1, 1, 1, 1, {"alpha"}, {{"T", kFloat}}});
  v.push_back({"CumProd", 26, 2, 2, 1, 1, {"exclusive", "reverse"}, {{"T", kReduce}, {"T2", kIndex}}});
  return v;
}

}  // namespace

TEST(OnnxSchemas, EachRegisteredSchemaMatchesTheSpec) {
  const auto table = spec_table();
  std::set<std::pair<std::string, int>> in_table;
  for (const auto& s : table) in_table.insert({s.op, s.since});
  std::set<std::pair<std::string, int>> registered;
  for (const auto& id : onnx_schemas::post17_schemas()) registered.insert({id.op, id.since_version});
  // ONNX 1.12 has none of these: every pair is registered by us. A newer ONNX has its own schemas of
  // the opsets it knows (1.20: up to 25), which stay: only the pairs it lacks are ours, and only ours
  // are held to the table's form.
  for (const auto& id : registered)
    EXPECT_TRUE(in_table.count(id)) << id.first << "-" << id.second << " is registered but not in the table";
  for (const auto& spec : table) {
    SCOPED_TRACE(spec.op + "-" + std::to_string(spec.since));
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(spec.op, spec.since, "");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->SinceVersion(), spec.since);
    if (!registered.count({spec.op, spec.since})) continue;  // ONNX's own schema
    EXPECT_EQ(s->min_input(), spec.min_inputs);
    EXPECT_EQ(s->max_input(), spec.max_inputs);
    EXPECT_EQ(s->min_output(), spec.min_outputs);
    EXPECT_EQ(s->max_output(), spec.max_outputs);
    std::set<std::string> attrs;
    for (const auto& [name, attr] : s->attributes()) attrs.insert(name);
    EXPECT_EQ(attrs, spec.attributes);
    std::map<std::string, Types> constraints;
    for (const auto& c : s->typeConstraintParams())
      constraints[c.type_param_str] = Types(c.allowed_type_strs.begin(), c.allowed_type_strs.end());
    EXPECT_EQ(constraints, spec.constraints);
    EXPECT_TRUE(s->has_type_and_shape_inference_function());
  }
}

TEST(OnnxSchemas, IrVersionByOpset) {
  const std::map<int64_t, int64_t> expected = {{9, 8},   {17, 8},  {18, 8},  {19, 9},  {20, 9},  {21, 10},
                                               {22, 10}, {23, 11}, {24, 12}, {25, 13}, {26, 13}};
  for (const auto& [opset, ir] : expected) EXPECT_EQ(ir_version_for_opset(opset), ir) << "opset " << opset;
  EXPECT_THROW(ir_version_for_opset(27), std::out_of_range);
}

namespace {

// A one-node model: inputs "x" (float, dims) and int64 initializers; returns the inferred output dims
// (-1 unknown) after checker + shape inference, as the exporter runs them.
struct OneNode {
  onnx::ModelProto model;
  onnx::NodeProto* node;
  OneNode(const std::string& op, int64_t opset, const std::vector<int64_t>& dims, int elem = onnx::TensorProto::FLOAT) {
    model.set_ir_version(ir_version_for_opset(opset));
    auto* imp = model.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    auto* g = model.mutable_graph();
    g->set_name("g");
    add_input("x", elem, dims);
    node = g->add_node();
    node->set_op_type(op);
    node->set_name(op + "_0");
    node->add_input("x");
    node->add_output("y");
  }
  void add_input(const std::string& name, int elem, const std::vector<int64_t>& dims) {
    auto* in = model.mutable_graph()->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void ints_input(const std::string& name, const std::vector<int64_t>& values, bool scalar = false) {
    auto* init = model.mutable_graph()->add_initializer();
    init->set_name(name);
    init->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) init->add_dims(static_cast<int64_t>(values.size()));
    for (auto v : values) init->add_int64_data(v);
    node->add_input(name);
  }
  void attr_i(const std::string& name, int64_t v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  void attr_s(const std::string& name, const std::string& v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  // The graph has no outputs (the checker would need their shapes): the inferred value_info is read.
  std::vector<int64_t> infer(const std::string& value = "y") {
    onnx_schemas::CheckableModel checkable(model);
    onnx::checker::check_model(model);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), checkable.inference_options());
    return inferred(value);
  }
  std::vector<int64_t> inferred(const std::string& value) const {
    for (const auto& vi : model.graph().value_info()) {
      if (vi.name() != value) continue;
      std::vector<int64_t> dims;
      for (const auto& d : vi.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
      return dims;
    }
    return {-100};  // not inferred
  }
};

// Whether (op, since) is one of our schemas: with ONNX 1.12 every post-17 one is; a newer ONNX (1.20)
// has its own schemas of the opsets it knows, whose inference functions do not check what ours check
// (mode names, ...): a test of what ours refuse is then skipped, naming the ONNX schema in use.
bool ours(const std::string& op, int since) {
  for (const auto& id : onnx_schemas::post17_schemas())
    if (id.op == op && id.since_version == since) return true;
  return false;
}

}  // namespace

TEST(OnnxSchemas, ReduceWithAxesInput) {
  OneNode m("ReduceMean", 18, {2, 3, 4});
  m.ints_input("axes", {-1, 1});
  m.attr_i("keepdims", 0);
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{2}));
}

TEST(OnnxSchemas, ReduceAxesAttributeIsRejectedAt18) {
  OneNode m("ReduceMean", 18, {2, 3});
  auto* a = m.node->add_attribute();
  a->set_name("axes");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(1);
  EXPECT_THROW(m.infer(), std::exception);
}

TEST(OnnxSchemas, SplitNumOutputsUnevenLastPiece) {
  OneNode m("Split", 18, {7, 2});
  m.node->add_output("y2");
  m.node->add_output("y3");
  m.attr_i("num_outputs", 3);
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(m.inferred("y3"), (std::vector<int64_t>{1, 2}));
}

TEST(OnnxSchemas, PadWithAxesAndWrapOnlyFrom19) {
  OneNode m("Pad", 19, {2, 3});
  m.ints_input("pads", {1, 2});
  m.node->add_input("");
  m.ints_input("axes", {1});
  m.attr_s("mode", "wrap");
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{2, 6}));
  if (!ours("Pad", 18)) GTEST_SKIP() << "Pad-18 is ONNX's own schema here, which does not check the mode";
  OneNode old("Pad", 18, {2, 3});
  old.ints_input("pads", {1, 1, 1, 1});
  old.attr_s("mode", "wrap");
  EXPECT_THROW(old.infer(), std::exception);
}

TEST(OnnxSchemas, Col2ImShape) {
  OneNode m("Col2Im", 18, {1, 2 * 2 * 3, 12});
  m.ints_input("image_shape", {5, 6});
  m.ints_input("block_shape", {2, 3});
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{1, 2, 5, 6}));
}

TEST(OnnxSchemas, GridSample20RejectsOpset16ModeNames) {
  OneNode m("GridSample", 20, {1, 2, 4, 4});
  m.add_input("grid", onnx::TensorProto::FLOAT, {1, 3, 5, 2});
  m.node->add_input("grid");
  m.attr_s("mode", "linear");
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{1, 2, 3, 5}));
  if (!ours("GridSample", 20)) GTEST_SKIP() << "GridSample-20 is ONNX's own schema here, which does not check the mode";
  OneNode old("GridSample", 20, {1, 2, 4, 4});
  old.add_input("grid", onnx::TensorProto::FLOAT, {1, 3, 5, 2});
  old.node->add_input("grid");
  old.attr_s("mode", "bilinear");
  EXPECT_THROW(old.infer(), std::exception);
}

TEST(OnnxSchemas, AveragePoolDilationsCeil) {
  OneNode m("AveragePool", 19, {1, 1, 7, 7});
  auto* k = m.node->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  k->add_ints(2), k->add_ints(2);
  auto* d = m.node->add_attribute();
  d->set_name("dilations");
  d->set_type(onnx::AttributeProto::INTS);
  d->add_ints(2), d->add_ints(2);
  auto* s = m.node->add_attribute();
  s->set_name("strides");
  s->set_type(onnx::AttributeProto::INTS);
  s->add_ints(2), s->add_ints(2);
  m.attr_i("ceil_mode", 1);
  // span 3 over 7: (7 - 3) / 2 + 1 = 3 windows.
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{1, 1, 3, 3}));
}

TEST(OnnxSchemas, DftOnesided) {
  OneNode m("DFT", 20, {2, 8, 1});
  m.node->add_input("");
  m.ints_input("axis", {1}, true);
  m.attr_i("onesided", 1);
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{2, 5, 2}));
}

TEST(OnnxSchemas, Attention4D) {
  OneNode m("Attention", 23, {2, 4, 5, 8});
  m.add_input("k", onnx::TensorProto::FLOAT, {2, 2, 6, 8});
  m.add_input("v", onnx::TensorProto::FLOAT, {2, 2, 6, 3});
  m.node->add_input("k");
  m.node->add_input("v");
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{2, 4, 5, 3}));
}

TEST(OnnxSchemas, CheckerWarnsOnOpsWithoutSchemaAndRestoresTheModel) {
  // CenterCropPad (opset 18) has no schema here: checked as part of the graph, named as unverified.
  if (onnx::OpSchemaRegistry::Schema("CenterCropPad", 18, "") || onnx::IR_VERSION > 11)
    GTEST_SKIP() << "this ONNX (IR " << onnx::IR_VERSION << ") has a CenterCropPad-18 schema and reads IR 11 itself";
  OneNode m("CenterCropPad", 18, {4, 4});
  m.ints_input("shape", {2, 2});
  m.model.set_ir_version(ir_version_for_opset(23));
  {
    onnx_schemas::CheckableModel checkable(m.model);
    EXPECT_EQ(m.model.ir_version(), onnx::IR_VERSION);
    ASSERT_EQ(checkable.unverified(), (std::vector<std::string>{"CenterCropPad (1 node)"}));
    EXPECT_NO_THROW(onnx::checker::check_model(m.model));
  }
  EXPECT_EQ(m.model.ir_version(), 11);
  EXPECT_EQ(m.node->domain(), "");
  EXPECT_EQ(m.model.opset_import_size(), 1);
}

TEST(OnnxSchemas, OlderSchemasServeUnchangedOpsAt26) {
  OneNode m("Relu", 26, {2, 3});
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{2, 3}));
}

TEST(OnnxSchemas, ResizeSizesWithAnEmptyScalesTensor) {
  // Opset 11's idiom, still valid at 18: an empty scales tensor when sizes are given.
  OneNode m("Resize", 18, {1, 2, 4, 4});
  m.node->add_input("");
  auto* empty = m.model.mutable_graph()->add_initializer();
  empty->set_name("no_scales");
  empty->set_data_type(onnx::TensorProto::FLOAT);
  empty->add_dims(0);
  m.node->add_input("no_scales");
  m.ints_input("sizes", {1, 2, 8, 6});
  EXPECT_EQ(m.infer(), (std::vector<int64_t>{1, 2, 8, 6}));
}
