// The dtype table: every c10::ScalarType ONNX can hold maps to exactly one TensorProto type and back.
#include <torch2onnx/core/dtype_table.hpp>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <set>

using namespace t2o::core;
using onnx::TensorProto;

TEST(DtypeTable, EveryEntryRoundTrips) {
  for (const auto& e : dtype_table()) {
    SCOPED_TRACE(e.name);
    ASSERT_TRUE(onnx_dtype(e.torch).has_value());
    EXPECT_EQ(*onnx_dtype(e.torch), e.onnx);
    ASSERT_TRUE(torch_dtype(e.onnx).has_value());
    EXPECT_EQ(*torch_dtype(e.onnx), e.torch);
    ASSERT_TRUE(dtype_from_name(e.name).has_value());
    EXPECT_EQ(*dtype_from_name(e.name), e.torch);
    if (e.alias) EXPECT_EQ(*dtype_from_name(e.alias), e.torch);
    EXPECT_EQ(dtype_name(e.torch), e.name);
    // The element size agrees between the two type systems.
    EXPECT_TRUE(TensorProto::DataType_IsValid(e.onnx));
  }
}

TEST(DtypeTable, ExpectedPairs) {
  const std::vector<std::pair<c10::ScalarType, int32_t>> expected = {
      {c10::kFloat, TensorProto::FLOAT},       {c10::kDouble, TensorProto::DOUBLE},
      {c10::kHalf, TensorProto::FLOAT16},      {c10::kBFloat16, TensorProto::BFLOAT16},
      {c10::kByte, TensorProto::UINT8},        {c10::kChar, TensorProto::INT8},
      {c10::kShort, TensorProto::INT16},       {c10::kInt, TensorProto::INT32},
      {c10::kLong, TensorProto::INT64},        {c10::kBool, TensorProto::BOOL},
      {c10::kComplexFloat, TensorProto::COMPLEX64}, {c10::kComplexDouble, TensorProto::COMPLEX128},
  };
  EXPECT_EQ(dtype_table().size(), expected.size());
  for (const auto& [torch, onnx_type] : expected) {
    SCOPED_TRACE(c10::toString(torch));
    EXPECT_EQ(onnx_dtype(torch), onnx_type);
  }
}

TEST(DtypeTable, EachTypeOnce) {
  std::set<int> torch_seen, onnx_seen;
  for (const auto& e : dtype_table()) {
    EXPECT_TRUE(torch_seen.insert((int)e.torch).second) << e.name;
    EXPECT_TRUE(onnx_seen.insert(e.onnx).second) << e.name;
  }
}

TEST(DtypeTable, TypesWithoutCounterpart) {
  // Every ScalarType is either in the table or has no ONNX element type.
  for (int i = 0; i < (int)c10::ScalarType::NumOptions; ++i) {
    auto st = (c10::ScalarType)i;
    bool in_table = false;
    for (const auto& e : dtype_table()) in_table |= e.torch == st;
    if (!in_table) EXPECT_FALSE(onnx_dtype(st).has_value()) << c10::toString(st);
  }
  EXPECT_FALSE(onnx_dtype(c10::kComplexHalf).has_value());
  EXPECT_FALSE(onnx_dtype(c10::kQInt8).has_value());
  EXPECT_FALSE(torch_dtype(TensorProto::UINT16).has_value());
  EXPECT_FALSE(torch_dtype(TensorProto::STRING).has_value());
  EXPECT_FALSE(dtype_from_name("float33").has_value());
}
