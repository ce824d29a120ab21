// The --input grammar (core/src/signature/input_spec.cpp): tensors, tuples/lists, dicts, None, primitives,
// their flattening into graph inputs, --input-range, and the malformed specs' messages.
#include <gtest/gtest.h>

#include "torch2onnx/core/exporter.hpp"

using t2o::core::ExportError;
using t2o::core::InputSpec;
using t2o::core::flatten_input_spec;
using t2o::core::parse_input_range;
using t2o::core::parse_input_spec;
using Kind = InputSpec::Kind;

TEST(InputSpec, Tensor) {
  auto s = parse_input_spec("float32[1,3,224,224]");
  EXPECT_EQ(s.kind, Kind::Tensor);
  EXPECT_EQ(s.dtype, "float32");
  EXPECT_EQ(s.dims, (std::vector<int64_t>{1, 3, 224, 224}));
  auto scalar = parse_input_spec("int64[]");
  EXPECT_EQ(scalar.kind, Kind::Tensor);
  EXPECT_TRUE(scalar.dims.empty());
}

TEST(InputSpec, NestedTupleAndDict) {
  auto s = parse_input_spec("(float32[2,3], (int64[4], none), {a: float32[2], 'b c': bool[]})");
  ASSERT_EQ(s.kind, Kind::Sequence);
  ASSERT_EQ(s.elements.size(), 3u);
  EXPECT_EQ(s.elements[1].kind, Kind::Sequence);
  EXPECT_EQ(s.elements[1].elements[1].kind, Kind::None);
  ASSERT_EQ(s.elements[2].kind, Kind::Dict);
  EXPECT_EQ(s.elements[2].keys, (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(s.elements[1].text, "(int64[4], none)");
  auto leaves = flatten_input_spec(s);
  ASSERT_EQ(leaves.size(), 4u);  // None is no graph input
  EXPECT_EQ(leaves[0].text, "float32[2,3]");
  EXPECT_EQ(leaves[1].dtype, "int64");
  EXPECT_EQ(leaves[3].dtype, "bool");
  EXPECT_EQ(parse_input_spec("[float32[1],float32[2]]").kind, Kind::Sequence);
  EXPECT_TRUE(parse_input_spec("()").elements.empty());
}

TEST(InputSpec, Primitives) {
  auto i = parse_input_spec("int=-3");
  EXPECT_EQ(i.kind, Kind::Int);
  EXPECT_EQ(i.int_value, -3);
  auto f = parse_input_spec("float=2.5e-1");
  EXPECT_EQ(f.kind, Kind::Float);
  EXPECT_DOUBLE_EQ(f.float_value, 0.25);
  EXPECT_TRUE(parse_input_spec("bool=true").bool_value);
  EXPECT_FALSE(parse_input_spec("bool=false").bool_value);
  EXPECT_EQ(parse_input_spec("none").kind, Kind::None);
  EXPECT_TRUE(flatten_input_spec(parse_input_spec("int=3")).empty());
}

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_input_spec(text);
  } catch (const ExportError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(InputSpec, MalformedSpecsSayWhy) {
  EXPECT_NE(error_of("float32[1,3").find("no [DIMS]"), std::string::npos);
  EXPECT_NE(error_of("floot32[2]").find("unknown element type 'floot32'"), std::string::npos);
  EXPECT_NE(error_of("(float32[2]").find("no closing ')'"), std::string::npos);
  EXPECT_NE(error_of("{a float32[2]}").find("no ':' after dict key 'a'"), std::string::npos);
  EXPECT_NE(error_of("{a:float32[2],a:int64[]}").find("dict key 'a' given twice"), std::string::npos);
  EXPECT_NE(error_of("int=3.5").find("int=3.5 is not a valid int"), std::string::npos);
  EXPECT_NE(error_of("bool=yes").find("expected bool=true or bool=false"), std::string::npos);
  EXPECT_NE(error_of("int").find("'int' needs a value"), std::string::npos);
  EXPECT_NE(error_of("float32[2] x").find("unexpected"), std::string::npos);
  EXPECT_NE(error_of("float32[2,]").find("trailing comma"), std::string::npos);
  EXPECT_NE(error_of("").find("empty spec"), std::string::npos);
}

TEST(InputSpec, InputRange) {
  const std::pair<int64_t, int64_t> digits{0, 9}, negative{-5, -1};
  EXPECT_EQ(parse_input_range("0:9"), digits);
  EXPECT_EQ(parse_input_range("-5:-1"), negative);
  EXPECT_THROW(parse_input_range("9:0"), ExportError);
  EXPECT_THROW(parse_input_range("3"), ExportError);
  EXPECT_THROW(parse_input_range("a:b"), ExportError);
}
