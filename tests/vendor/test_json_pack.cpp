// The registry's declarative JSON packs (registry/json_pack.cpp), loaded directly.
#include <torch2onnx/registry.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using t2o::registry::Origin;
using t2o::registry::Registry;

bool contains(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("t2o_json_pack_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return path / name;
  }
};

const char* kGood = R"({
  "torch2onnx_pack": 1, "name": "j", "version": "2.0",
  "schemas": ["myv::op(Tensor x, float a=1.0) -> Tensor"],
  "ops": [
    {"op": "myv::op", "since_opset": 9, "node": {"op_type": "LeakyRelu", "inputs": [0],
      "attributes": {"alpha": {"type": "float", "input": 1}}}},
    {"op": "myv::op", "domain": "com.myv", "since_opset": 2, "node": {"op_type": "MyOp", "inputs": [0, null]}}
  ]})";

TEST(JsonPackLoading, ValidPackRegistersItsOpsAndSchemas) {
  TempDir tmp;
  tmp.write("a.json", kGood);
  Registry r;
  r.load_directory(tmp.path.string(), Origin::UserPath);
  for (const auto& x : r.refused()) ADD_FAILURE() << x.reason;
  ASSERT_EQ(r.plugins().size(), 1u);
  EXPECT_EQ(r.plugins()[0].name, "j");
  EXPECT_EQ(r.plugins()[0].version, "2.0");
  EXPECT_EQ(r.plugins()[0].format, "json");
  EXPECT_EQ(r.plugins()[0].num_symbolics, 2u);
  ASSERT_NE(r.lookup("myv::op", "", 9), nullptr);
  EXPECT_EQ(r.lookup("myv::op", "", 8), nullptr);
  ASSERT_NE(r.lookup("myv::op", "com.myv", 5), nullptr);
  EXPECT_EQ(r.lookup("myv::op", "com.myv", 1), nullptr);
  EXPECT_EQ(r.domains_of("myv::op"), (std::vector<std::string>{"", "com.myv"}));
  ASSERT_EQ(r.schemas().size(), 1u);
  EXPECT_EQ(r.schemas()[0].schema, "myv::op(Tensor x, float a=1.0) -> Tensor");
}

struct BadCase {
  const char* text;
  std::vector<std::string> in_reason;
};

TEST(JsonPackLoading, MalformedFilesAreRefusedWithKeyOrLine) {
  const std::vector<BadCase> cases = {
      {"{\n\"torch2onnx_pack\": 1,\n\"name\": \"x\",\n\"ops\": [}\n", {"line 4", "invalid JSON"}},
      {"[1, 2]", {"expected an object"}},
      {R"({"name": "x", "ops": []})", {"torch2onnx_pack", "missing"}},
      {R"({"torch2onnx_pack": 2, "name": "x", "ops": []})", {"torch2onnx_pack", "format 2"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": []})", {"ops", "empty"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "opz": []})", {"opz", "unknown key"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": [{"op": "relu", "since_opset": 9, "node": {"op_type": "Relu", "inputs": [0]}}]})",
       {"ops[0].op", "qualified"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": [{"op": "a::b", "since_opset": 0, "node": {"op_type": "Relu", "inputs": [0]}}]})",
       {"ops[0].since_opset", ">= 1"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": [{"op": "a::b", "since_opset": 9}]})", {"ops[0].node", "missing"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": [{"op": "a::b", "since_opset": 9, "node": {"op_type": "Relu", "inputs": ["x"]}}]})",
       {"ops[0].node.inputs[0]", "argument index"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": [{"op": "a::b", "since_opset": 9, "node": {"op_type": "Relu", "inputs": [0], "attributes": {"k": {"type": "int"}}}}]})",
       {"ops[0].node.attributes.k", "exactly one"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": [{"op": "a::b", "since_opset": 9, "node": {"op_type": "Relu", "inputs": [0], "attributes": {"k": {"type": "ints", "value": [1, "2"]}}}}]})",
       {"ops[0].node.attributes.k.value[1]", "expected an integer"}},
      {R"({"torch2onnx_pack": 1, "name": "x", "ops": [
          {"op": "a::b", "since_opset": 9, "node": {"op_type": "Relu", "inputs": [0]}},
          {"op": "a::b", "since_opset": 9, "node": {"op_type": "Elu", "inputs": [0]}}]})",
       {"duplicate", "a::b"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    TempDir tmp;
    const std::string name = "bad" + std::to_string(i) + ".json";
    tmp.write(name, cases[i].text);
    tmp.write("good.json", kGood);
    Registry r;
    r.load_directory(tmp.path.string(), Origin::UserPath);
    ASSERT_EQ(r.refused().size(), 1u) << "case " << i;
    const auto& why = r.refused()[0].reason;
    EXPECT_TRUE(contains(why, name + ": ")) << why;
    for (const auto& s : cases[i].in_reason) EXPECT_TRUE(contains(why, s)) << "case " << i << ": '" << s << "' not in " << why;
    EXPECT_FALSE(contains(why, "\n")) << why;
    EXPECT_EQ(r.plugins().size(), 1u) << "the good pack still loads (case " << i << ")";
    EXPECT_EQ(r.lookup("a::b", "", 9), nullptr) << "nothing of a refused pack is kept";
  }
}

TEST(JsonPackLoading, PrecedenceAndOverridesAsForLibraries) {
  TempDir tmp;
  const std::string entry = R"("ops": [{"op": "aten::relu", "since_opset": 9, "node": {"op_type": "Relu", "inputs": [0]}}])";
  auto bundled = tmp.write("bundled.json", R"({"torch2onnx_pack": 1, "name": "b", )" + entry + "}");
  auto user1 = tmp.write("user1.json", R"({"torch2onnx_pack": 1, "name": "u1", )" + entry + "}");
  auto user2 = tmp.write("user2.json", R"({"torch2onnx_pack": 1, "name": "u2", )" + entry + "}");
  auto user3 = tmp.write("user3.json", R"({"torch2onnx_pack": 1, "name": "u3", "ops": [{"op": "aten::relu", "since_opset": 9, "override": true, "node": {"op_type": "Relu", "inputs": [0]}}]})");
  Registry r;
  ASSERT_TRUE(r.load_file(bundled.string(), Origin::Bundled));
  ASSERT_TRUE(r.load_file(user1.string(), Origin::UserPath));
  EXPECT_EQ(r.lookup("aten::relu", "", 17)->plugin_index, 1u);  // explicit over bundled
  EXPECT_FALSE(r.load_file(user2.string(), Origin::UserPath));   // same op, domain, version: error
  ASSERT_EQ(r.refused().size(), 1u);
  EXPECT_TRUE(contains(r.refused()[0].reason, "user1.json")) << r.refused()[0].reason;
  EXPECT_TRUE(contains(r.refused()[0].reason, "user2.json")) << r.refused()[0].reason;
  EXPECT_TRUE(r.load_file(user3.string(), Origin::UserPath));  // marked as an override
  EXPECT_EQ(r.lookup("aten::relu", "", 17)->plugin_index, 2u);
}

}  // namespace
