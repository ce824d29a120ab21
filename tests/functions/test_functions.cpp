// --export-modules-as-functions (fixtures: tests/functions/make_function_fixtures.py, and the .pt2
// programs of tests/pt2): models with repeated blocks exported with and without the option; the
// checker accepts both (export runs it), ONNX Runtime gives the same outputs for both (bit for bit)
// and matches PyTorch; one FunctionProto per module type, the right number of calls, function
// attributes where node attributes differ between calls. Bad input (below opset 15, an unknown type
// name) is one line.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <map>
#include <set>

namespace t2o_e2e {
namespace {

fs::path fixtures_root() {
  static const fs::path root = [] {
    const fs::path r = work_dir() / "functions";
    fs::create_directories(r);
    const RunResult made =
        run({python(), (source_dir() / "tests" / "functions" / "make_function_fixtures.py").string(), r.string()});
    EXPECT_EQ(made.exit_code, 0) << made.describe();
    return r;
  }();
  return root;
}

RunResult export_case(const std::string& name, const fs::path& out, const std::vector<std::string>& extra,
                      int opset = 15) {
  const fs::path root = fixtures_root();
  std::ifstream f(root / name / "export.json");
  EXPECT_TRUE(f) << "no export.json for " << name;
  const auto spec = nlohmann::json::parse(f);
  std::vector<std::string> args = {cli().string(), "export", (root / name / "model.pt").string(), "-o", out.string(),
                                   "--opset", std::to_string(opset), "-q"};
  for (const auto& a : spec.at("cli_args")) args.push_back(a.get<std::string>());
  args.insert(args.end(), extra.begin(), extra.end());
  return run(args);
}

onnx::ModelProto read_model(const fs::path& path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&f)) << path;
  return m;
}

// The model's output tensors as ONNX Runtime computes them (core's tools/ort_runner.js), raw bytes.
std::vector<std::string> ort_outputs(const fs::path& model, const fs::path& fixture, const fs::path& dir) {
  const fs::path in = dir / "in", out = dir / "out";
  fs::create_directories(in);
  fs::create_directories(out);
  fs::copy_file(fixture / "input_0.pb", in / "input_0.pb", fs::copy_options::overwrite_existing);
  const RunResult r = run({node(), (fs::path(T2O_BINARY_DIR) / "share" / "torch2onnx" / "ort_runner.js").string(),
                           (source_dir() / "tests" / "ort" / "node_modules").string(), model.string(), in.string(),
                           out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  std::vector<std::string> values;
  for (int k = 0; fs::exists(out / ("output_" + std::to_string(k) + ".pb")); ++k) {
    onnx::TensorProto t;
    std::ifstream f(out / ("output_" + std::to_string(k) + ".pb"), std::ios::binary);
    EXPECT_TRUE(t.ParseFromIstream(&f));
    values.push_back(t.raw_data());
  }
  return values;
}

struct Exported {
  onnx::ModelProto model;
  std::vector<std::string> outputs;
};

// Exports NAME with `extra` options, compares with PyTorch (compare.js) and returns the model and the
// outputs ONNX Runtime gives.
Exported export_and_run(const std::string& name, const std::vector<std::string>& extra, const std::string& tag) {
  const fs::path dir = fresh_out_dir() / tag;
  fs::create_directories(dir);
  const fs::path out = dir / (name + ".onnx");
  const RunResult exported = export_case(name, out, extra);
  EXPECT_EQ(exported.exit_code, 0) << exported.describe();
  const fs::path fixture = fixtures_root() / name / "size_0";
  const RunResult cmp = run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(),
                             fixture.string()});
  EXPECT_EQ(cmp.exit_code, 0) << tag << ":\n" << cmp.describe();
  return {read_model(out), ort_outputs(out, fixture, dir)};
}

const onnx::FunctionProto* find_function(const onnx::ModelProto& m, const std::string& domain, const std::string& name) {
  for (const auto& f : m.functions())
    if (f.domain() == domain && f.name() == name) return &f;
  return nullptr;
}

// Calls of each function (domain::name), in the main graph and in function bodies.
std::map<std::string, int> calls(const onnx::ModelProto& m) {
  std::set<std::string> functions;
  for (const auto& f : m.functions()) functions.insert(f.domain() + "::" + f.name());
  std::map<std::string, int> out;
  auto count = [&](const auto& nodes) {
    for (const auto& n : nodes)
      if (functions.count(n.domain() + "::" + n.op_type())) ++out[n.domain() + "::" + n.op_type()];
  };
  count(m.graph().node());
  for (const auto& f : m.functions()) count(f.node());
  return out;
}

int main_graph_calls(const onnx::ModelProto& m, const std::string& domain, const std::string& name) {
  int n = 0;
  for (const auto& node : m.graph().node()) n += node.domain() == domain && node.op_type() == name;
  return n;
}

bool imports(const onnx::ModelProto& m, const std::string& domain) {
  for (const auto& op : m.opset_import())
    if (op.domain() == domain) return true;
  return false;
}

std::set<std::string> attributes(const onnx::FunctionProto& f) { return {f.attribute().begin(), f.attribute().end()}; }

class Functions : public ::testing::TestWithParam<std::string> {};

// Every module type: the model itself (Blocks, as torch.onnx makes the root module a function too),
// Block, Linear and LeakyReLU each one function; Blocks calls Block twice, Block's body the others.
TEST_P(Functions, EveryModuleTypeMatchesTheInlinedExport) {
  const Exported inlined = export_and_run(GetParam(), {}, "inlined");
  const Exported functions = export_and_run(GetParam(), {"--export-modules-as-functions"}, "functions");
  EXPECT_EQ(inlined.model.functions_size(), 0);
  ASSERT_FALSE(inlined.outputs.empty());
  EXPECT_EQ(functions.outputs, inlined.outputs) << "ONNX Runtime's outputs differ from the inlined export's";
  const auto& m = functions.model;
  EXPECT_EQ(m.ir_version(), 8);
  ASSERT_EQ(m.functions_size(), 4) << m.DebugString();
  const auto* root = find_function(m, "__main__", "Blocks");
  const auto* block = find_function(m, "__main__", "Block");
  const auto* linear = find_function(m, "torch.nn.modules.linear", "Linear");
  const auto* leaky = find_function(m, "torch.nn.modules.activation", "LeakyReLU");
  ASSERT_TRUE(root && block && linear && leaky) << m.DebugString();
  for (const char* d : {"__main__", "torch.nn.modules.linear", "torch.nn.modules.activation"})
    EXPECT_TRUE(imports(m, d)) << d;
  // The main graph is one call of Blocks; the Block calls are in its body, Linear's and LeakyReLU's in Block's.
  ASSERT_EQ(m.graph().node_size(), 1) << m.graph().DebugString();
  EXPECT_EQ(main_graph_calls(m, "__main__", "Blocks"), 1);
  const auto n = calls(m);
  EXPECT_EQ(n.at("__main__::Blocks"), 1);
  EXPECT_EQ(n.at("__main__::Block"), 2);
  EXPECT_EQ(n.at("torch.nn.modules.linear::Linear"), 1);
  EXPECT_EQ(n.at("torch.nn.modules.activation::LeakyReLU"), 1);
  // LeakyRelu's alpha differs between the calls: a function attribute, referenced in the body, passed
  // on by Block (its LeakyReLU call's attribute differs too), named as torch.onnx names them.
  EXPECT_EQ(attributes(*leaky), std::set<std::string>{"inferred::LeakyRelu_alpha"});
  ASSERT_EQ(leaky->node_size(), 1);
  ASSERT_EQ(leaky->node(0).attribute_size(), 1);
  EXPECT_EQ(leaky->node(0).attribute(0).ref_attr_name(), "inferred::LeakyRelu_alpha");
  EXPECT_EQ(attributes(*block), std::set<std::string>{"inferred::LeakyReLU_inferred::LeakyRelu_alpha"});
  EXPECT_TRUE(attributes(*linear).empty());
  // Linear's weight and bias are inputs (after the activation).
  EXPECT_EQ(linear->input_size(), 3);
  std::set<float> alphas;
  for (const auto& node : root->node())
    if (node.op_type() == "Block")
      for (const auto& a : node.attribute()) alphas.insert(a.f());
  EXPECT_EQ(alphas, (std::set<float>{0.1f, 0.2f}));
}

// Only the Block type: one function whose body holds Gemm, LeakyRelu (alpha by reference), Relu.
TEST_P(Functions, OneTypeByQualifiedName) {
  const Exported inlined = export_and_run(GetParam(), {}, "inlined");
  const Exported functions = export_and_run(GetParam(), {"--export-modules-as-functions=__main__.Block"}, "block");
  EXPECT_EQ(functions.outputs, inlined.outputs);
  const auto& m = functions.model;
  ASSERT_EQ(m.functions_size(), 1) << m.DebugString();
  EXPECT_EQ(m.functions(0).domain(), "__main__");
  EXPECT_EQ(m.functions(0).name(), "Block");
  EXPECT_EQ(attributes(m.functions(0)), std::set<std::string>{"inferred::LeakyRelu_alpha"});
  EXPECT_EQ(main_graph_calls(m, "__main__", "Block"), 2);
  std::set<std::string> body;
  for (const auto& node : m.functions(0).node()) body.insert(node.op_type());
  EXPECT_TRUE(body.count("LeakyRelu") && body.count("Relu")) << m.functions(0).DebugString();
}

INSTANTIATE_TEST_SUITE_P(Blocks, Functions, ::testing::Values("blocks_trace", "blocks_script"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// torch2onnx.save(..., export_modules_as_functions={Block}) records the choice; export honours it.
TEST(FunctionsSaved, SignatureChoosesTheTypes) {
  const Exported functions = export_and_run("blocks_saved", {}, "saved");
  const auto& m = functions.model;
  ASSERT_EQ(m.functions_size(), 1) << m.DebugString();
  EXPECT_EQ(m.functions(0).domain(), "__main__");
  EXPECT_EQ(m.functions(0).name(), "Block");
  EXPECT_EQ(main_graph_calls(m, "__main__", "Block"), 2);
}

// Calls of one type whose bodies differ (CELU(1.0) converts without the Muls of CELU(2.0)): one
// function per body, Block and Block.1, as torch.onnx names them.
TEST(FunctionsVariants, TwoBodiesTwoFunctions) {
  const Exported inlined = export_and_run("variants_trace", {}, "inlined");
  const Exported functions = export_and_run("variants_trace", {"--export-modules-as-functions=__main__.Block"}, "block");
  EXPECT_EQ(functions.outputs, inlined.outputs);
  const auto& m = functions.model;
  ASSERT_EQ(m.functions_size(), 2) << m.DebugString();
  EXPECT_TRUE(find_function(m, "__main__", "Block") && find_function(m, "__main__", "Block.1")) << m.DebugString();
  EXPECT_EQ(main_graph_calls(m, "__main__", "Block"), 1);
  EXPECT_EQ(main_graph_calls(m, "__main__", "Block.1"), 1);
}

TEST(FunctionsTransformer, EncoderLayersAsOneFunction) {
  const Exported inlined = export_and_run("transformer_trace", {}, "inlined");
  const Exported functions = export_and_run(
      "transformer_trace", {"--export-modules-as-functions=torch.nn.modules.transformer.TransformerEncoderLayer"},
      "layer");
  ASSERT_FALSE(inlined.outputs.empty());
  EXPECT_EQ(functions.outputs, inlined.outputs);
  const auto& m = functions.model;
  ASSERT_EQ(m.functions_size(), 1) << m.DebugString();
  EXPECT_EQ(m.functions(0).domain(), "torch.nn.modules.transformer");
  EXPECT_EQ(m.functions(0).name(), "TransformerEncoderLayer");
  EXPECT_EQ(main_graph_calls(m, "torch.nn.modules.transformer", "TransformerEncoderLayer"), 2);
  // Both layers' calls are the whole graph: nothing of theirs is left outside.
  EXPECT_EQ(m.graph().node_size(), 2) << m.graph().DebugString();
  // The same, spelled as TorchScript names the class.
  const Exported scripted_name = export_and_run(
      "transformer_trace",
      {"--export-modules-as-functions=__torch__.torch.nn.modules.transformer.TransformerEncoderLayer"}, "torch_name");
  EXPECT_EQ(scripted_name.model.functions_size(), 1);
}

TEST(FunctionsTransformer, EveryModuleType) {
  const Exported inlined = export_and_run("transformer_trace", {}, "inlined");
  const Exported functions = export_and_run("transformer_trace", {"--export-modules-as-functions"}, "all");
  EXPECT_EQ(functions.outputs, inlined.outputs);
  const auto& m = functions.model;
  EXPECT_NE(find_function(m, "torch.nn.modules.transformer", "TransformerEncoderLayer"), nullptr) << m.DebugString();
  EXPECT_NE(find_function(m, "__main__", "Encoder"), nullptr) << m.DebugString();
  EXPECT_EQ(main_graph_calls(m, "__main__", "Encoder"), 1);
  EXPECT_EQ(calls(m).at("torch.nn.modules.transformer::TransformerEncoderLayer"), 2);
  // One function per module type and body: no two functions alike.
  std::set<std::string> names;
  for (const auto& f : m.functions()) EXPECT_TRUE(names.insert(f.domain() + "::" + f.name()).second) << f.name();
  EXPECT_TRUE(find_function(m, "torch.nn.modules.linear", "Linear")) << m.DebugString();
  EXPECT_TRUE(find_function(m, "torch.nn.modules.normalization", "LayerNorm")) << m.DebugString();
}

void expect_one_line_error(const RunResult& r, const std::vector<std::string>& needles, const fs::path& out) {
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_FALSE(r.crashed()) << r.describe();
  const auto err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.describe();
  EXPECT_EQ(err[0].rfind("torch2onnx: error: ", 0), 0u) << err[0];
  for (const auto& n : needles) EXPECT_NE(err[0].find(n), std::string::npos) << n << " not in: " << err[0];
  EXPECT_FALSE(fs::exists(out)) << "a refused export left a file";
}

TEST(FunctionsRefused, BelowOpset15) {
  const fs::path out = fresh_out_dir() / "m.onnx";
  expect_one_line_error(export_case("blocks_trace", out, {"--export-modules-as-functions"}, 14),
                        {"--export-modules-as-functions needs --opset 15", "IR version 8"}, out);
}

TEST(FunctionsRefused, UnknownTypeListsTheModelsTypes) {
  const fs::path out = fresh_out_dir() / "m.onnx";
  expect_one_line_error(export_case("blocks_trace", out, {"--export-modules-as-functions=torch.nn.modules.conv.Conv2d"}),
                        {"no module of type 'torch.nn.modules.conv.Conv2d'", "__main__.Block", "__main__.Blocks",
                         "torch.nn.modules.linear.Linear", "torch.nn.modules.activation.LeakyReLU"},
                        out);
}

TEST(FunctionsRefused, EmptyTypeList) {
  const fs::path out = fresh_out_dir() / "m.onnx";
  const RunResult r = export_case("blocks_trace", out, {"--export-modules-as-functions="});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
}

// --- Programs (.pt2 files of tests/pt2/fixtures, written by PyTorch 2.6 and 2.14): each node's module
// calls come from its `nn_module_stack`; the exported module's class is the root function, as for
// TorchScript.
fs::path program_fixture(const std::string& dir, const std::string& version, const std::string& name) {
  return source_dir() / "tests" / "pt2" / dir / version / name;
}

struct ProgramExport {
  onnx::ModelProto model;
  RunResult run;
};

// Exports the program at opset 17 with `extra` options and compares it with PyTorch (compare.js) at
// the example inputs and at every other input set the fixture has.
ProgramExport export_program(const fs::path& fixture, const std::vector<std::string>& extra, const std::string& tag) {
  const fs::path dir = fresh_out_dir() / tag;
  fs::create_directories(dir);
  const fs::path out = dir / "model.onnx";
  std::vector<std::string> args = {cli().string(), "export", (fixture / "model.pt2").string(), "-o", out.string(),
                                   "--opset", "17"};
  args.insert(args.end(), extra.begin(), extra.end());
  ProgramExport e;
  e.run = run(args);
  EXPECT_EQ(e.run.exit_code, 0) << e.run.describe();
  if (e.run.exit_code != 0) return e;
  std::vector<fs::path> sets = {fixture};
  for (const auto& entry : fs::directory_iterator(fixture))
    if (entry.is_directory() && fs::exists(entry.path() / "meta.json")) sets.push_back(entry.path());
  EXPECT_GE(sets.size(), 2u) << fixture << " has no other input set";
  for (const auto& set : sets) {
    const RunResult cmp =
        run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), out.string(), set.string()});
    EXPECT_EQ(cmp.exit_code, 0) << tag << " vs " << set << ":\n" << cmp.describe();
  }
  e.model = read_model(out);
  return e;
}

int calls_of(const std::map<std::string, int>& n, const std::string& function) {
  auto it = n.find(function);
  return it == n.end() ? 0 : it->second;
}

class FunctionsProgram : public ::testing::TestWithParam<std::string> {};

// A BERT-style encoder: every module type a function, the encoder itself the one call of the main graph.
TEST_P(FunctionsProgram, EveryModuleType) {
  const auto e = export_program(program_fixture("fixtures", GetParam(), "bert_encoder"),
                                {"--export-modules-as-functions"}, "bert");
  const auto& m = e.model;
  ASSERT_GT(m.functions_size(), 0) << e.run.describe();
  EXPECT_EQ(m.ir_version(), 8);
  ASSERT_EQ(m.graph().node_size(), 1) << m.graph().DebugString();
  EXPECT_EQ(main_graph_calls(m, "__main__", "BertEncoder"), 1);
  for (const auto& [domain, name] : std::vector<std::pair<std::string, std::string>>{
           {"__main__", "BertMhaLayer"},
           {"__main__", "BertSdpaLayer"},
           {"torch.nn.modules.activation", "MultiheadAttention"},
           {"torch.nn.modules.normalization", "LayerNorm"},
           {"torch.nn.modules.sparse", "Embedding"},
           {"torch.nn.modules.linear", "Linear"}})
    EXPECT_TRUE(find_function(m, domain, name)) << domain << "::" << name << " missing";
  const auto n = calls(m);
  EXPECT_EQ(calls_of(n, "__main__::BertMhaLayer"), 1);
  EXPECT_EQ(calls_of(n, "__main__::BertSdpaLayer"), 1);
  EXPECT_EQ(calls_of(n, "torch.nn.modules.normalization::LayerNorm"), 5);  // ln, and two per layer
  // ff1, ff2 of both layers, qkv, out, pool (a 2-d input: Gemm, a body of its own, Linear.1)
  EXPECT_EQ(calls_of(n, "torch.nn.modules.linear::Linear") + calls_of(n, "torch.nn.modules.linear::Linear.1"), 7);
  EXPECT_EQ(calls_of(n, "torch.nn.modules.sparse::Embedding") + calls_of(n, "torch.nn.modules.sparse::Embedding.1"), 3);
  // No function of torch2onnx's own making (the module that holds the program's state).
  for (const auto& f : m.functions()) EXPECT_EQ(f.domain().rfind("torch2onnx", 0), std::string::npos) << f.domain();
}

// One module called twice in a call of its parent (ResNet's BasicBlock calls self.relu twice; the
// program tells the calls apart as relu and relu@1): two calls, not one call spanning both.
TEST_P(FunctionsProgram, TwoCallsOfOneModuleAreTwoCalls) {
  const auto e = export_program(program_fixture("fixtures", GetParam(), "resnet_tiny"),
                                {"--export-modules-as-functions=torch.nn.modules.activation.ReLU"}, "relu");
  const auto& m = e.model;
  ASSERT_EQ(m.functions_size(), 1) << e.run.describe();
  EXPECT_EQ(m.functions(0).domain(), "torch.nn.modules.activation");
  EXPECT_EQ(m.functions(0).name(), "ReLU");
  int relu_nodes = 0;
  for (const auto& node : m.graph().node()) relu_nodes += node.op_type() == "Relu";
  EXPECT_EQ(relu_nodes, 0) << "a ReLU call stayed inlined";
  EXPECT_EQ(main_graph_calls(m, "torch.nn.modules.activation", "ReLU"), 8);  // stem 1, blocks 2+2, bottleneck 3
  EXPECT_EQ(e.run.err.find("stays inlined"), std::string::npos) << e.run.err;
}

// A branch of torch.cond: PyTorch 2.6 records the branch's module calls (inlined, with a warning),
// 2.14 none; either way the root function holds the If and ONNX Runtime runs it, both branches.
TEST_P(FunctionsProgram, ModulesInsideCond) {
  const auto e = export_program(program_fixture("fixtures_world", GetParam(), "cond_params"),
                                {"--export-modules-as-functions"}, "cond");
  const auto& m = e.model;
  ASSERT_EQ(m.graph().node_size(), 1) << m.graph().DebugString();
  EXPECT_EQ(main_graph_calls(m, "__main__", "CondParams"), 1);
  if (GetParam() == "torch2.6")
    EXPECT_NE(e.run.err.find("a (torch.nn.modules.linear.Linear) stays inlined: it is called inside a loop or branch"),
              std::string::npos)
        << e.run.err;
}

TEST_P(FunctionsProgram, UnknownTypeListsTheProgramsTypes) {
  const fs::path out = fresh_out_dir() / "m.onnx";
  const RunResult r = run({cli().string(), "export",
                           (program_fixture("fixtures", GetParam(), "bert_encoder") / "model.pt2").string(), "-o",
                           out.string(), "--opset", "17", "--export-modules-as-functions=torch.nn.modules.conv.Conv2d"});
  expect_one_line_error(r, {"no module of type 'torch.nn.modules.conv.Conv2d'", "__main__.BertEncoder",
                            "__main__.BertMhaLayer", "torch.nn.modules.linear.Linear"},
                        out);
  EXPECT_EQ(r.err.find("torch2onnx.program"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Pt2, FunctionsProgram, ::testing::Values("torch2.6", "torch2.14"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "torch2.6" ? std::string("torch2_6") : std::string("torch2_14");
                         });

}  // namespace
}  // namespace t2o_e2e
