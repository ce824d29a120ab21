// torch.onnx.ops for TorchScript (issue 15): the op library's kernels against ONNX Runtime's, the
// onnx_ops pack's exports (native nodes at opset 23, decompositions below) against the kernels, the
// documentation's examples, a Llama-style decoder with a KV cache, and `torch2onnx decompose`.
// Fixtures: make_onnx_ops_fixtures.py (expected outputs from the library's kernels).
#include <gtest/gtest.h>

#include "e2e_util.hpp"

#include <onnx/onnx_pb.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <type_traits>
#include <utility>

namespace t2o_e2e {
namespace {

const fs::path& fixture_root() {
  static const fs::path root = [] {
    fs::path dir = work_dir() / "onnx_ops";
    setenv("TORCH2ONNX_OPS_LIBRARY", T2O_OPS_LIBRARY, 1);
    const RunResult made =
        run({python(), (source_dir() / "tests" / "onnx_ops" / "make_onnx_ops_fixtures.py").string(), dir.string()});
    if (made.exit_code != 0) {
      ADD_FAILURE() << "fixtures failed\n" << made.describe();
      return fs::path();
    }
    return dir;
  }();
  return root;
}

// A list of cases.json ("kernels", "llama_runs"), by value: iterating a member of a temporary would dangle.
std::vector<std::string> index_list(const char* key) {
  std::ifstream f(fixture_root() / "cases.json");
  return nlohmann::json::parse(f).at(key).get<std::vector<std::string>>();
}

// Cases and seeds the PyTorch that made the fixtures refuses (make_onnx_ops_fixtures.py TORCH_REFUSES),
// or whose values its own torch.onnx.ops kernel computes otherwise than Attention-23 as ONNX Runtime
// does (pytorch_departs): cases.json "skipped", name -> why.
nlohmann::json skipped_cases() {
  std::ifstream f(fixture_root() / "cases.json");
  const auto index = nlohmann::json::parse(f);
  return index.contains("skipped") ? index.at("skipped") : nlohmann::json::object();
}
// "name: why" for a refused seed ("seeds/custom_op"), or "".
std::string refused_fixture(const std::string& name) {
  const auto skipped = skipped_cases();
  return skipped.contains(name) ? name + ": " + skipped.at(name).get<std::string>() : "";
}
// Kernel cases (names without '/') refused so: a test over every kernel case ends skipped, naming them,
// once the others passed.
void skip_refused_kernel_cases() {
  std::string names;
  size_t n = 0;
  const auto skipped = skipped_cases();  // items() of a temporary would dangle
  for (const auto& [name, why] : skipped.items())
    if (name.find('/') == std::string::npos) {
      names += "\n  " + name + ": " + why.get<std::string>();
      ++n;
    }
  if (n > 0) GTEST_SKIP() << n << " kernel cases skipped:" << names;
}

onnx::ModelProto read_model(const fs::path& path) {
  onnx::ModelProto model;
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(model.ParseFromIstream(&f)) << path;
  return model;
}

int64_t opset_of(const onnx::ModelProto& m, const std::string& domain) {
  for (const auto& o : m.opset_import())
    if (o.domain() == domain || (domain.empty() && o.domain() == "ai.onnx")) return o.version();
  return -1;
}

std::map<std::string, int> op_counts(const onnx::ModelProto& m) {
  std::map<std::string, int> counts;
  for (const auto& n : m.graph().node()) ++counts[n.op_type()];
  return counts;
}

// The export command for a fixture at an opset, with its --input specs.
std::vector<std::string> export_args(const fs::path& fx, const fs::path& out, int opset) {
  std::vector<std::string> args = {cli().string(), "export", (fx / "model.pt").string(), "-o", out.string(),
                                   "--opset", std::to_string(opset), "-q"};
  const auto meta = read_meta(fx);
  for (const auto& spec : meta.at("cli_inputs")) {
    args.push_back("--input");
    args.push_back(spec.get<std::string>());
  }
  return args;
}

// The same words without the program and `export`, for export_batch (which adds -q).
std::vector<std::string> batch_args(const fs::path& fx, const fs::path& out, int opset) {
  std::vector<std::string> args = export_args(fx, out, opset);
  args.erase(args.begin(), args.begin() + 2);
  args.erase(std::find(args.begin(), args.end(), "-q"));
  return args;
}

RunResult compare(const fs::path& model, const fs::path& fx) {
  return run({node(), (source_dir() / "tests" / "ort" / "compare.js").string(), model.string(), fx.string()});
}

// The largest max_abs_err=X that compare.js reports over a model's outputs.
double max_abs_err(const std::string& compare_output) {
  double worst = 0;
  for (const auto& line : lines(compare_output)) {
    auto at = line.find("max_abs_err=");
    if (at != std::string::npos) worst = std::max(worst, std::stod(line.substr(at + 12)));
  }
  return worst;
}

int32_t elem_type(const std::string& dtype) {
  static const std::map<std::string, int32_t> types = {{"float32", 1}, {"float16", 10}, {"float64", 11},
                                                       {"int64", 7},   {"bool", 9},     {"int32", 6}};
  return types.at(dtype);
}

// The single ONNX node a kernel fixture describes (meta.json "node"), at opset 23, typed from the
// fixture's inputs and outputs: ONNX Runtime runs its own kernel on the fixture's inputs.
void write_single_node_model(const nlohmann::json& meta, const fs::path& out) {
  onnx::ModelProto model;
  model.set_ir_version(10);
  model.set_producer_name("torch2onnx tests");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(23);
  auto* graph = model.mutable_graph();
  graph->set_name("single_node");
  const auto& spec = meta.at("node");
  auto* node = graph->add_node();
  node->set_op_type(spec.at("op_type").get<std::string>());
  size_t next_input = 0;
  for (const auto& name_json : spec.at("inputs")) {
    const std::string name = name_json;
    node->add_input(name);
    if (name.empty()) continue;
    const auto& in = meta.at("inputs").at(next_input++);
    auto* vi = graph->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type(in.at("dtype")));
    for (int64_t d : in.at("shape").get<std::vector<int64_t>>()) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  for (int k = 0; k < spec.at("num_outputs").get<int>(); ++k) {
    const std::string name = "output_" + std::to_string(k);
    node->add_output(name);
    auto* vi = graph->add_output();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type(meta.at("outputs").at(k).at("dtype")));
  }
  for (const auto& a : spec.at("attrs")) {
    auto* attr = node->add_attribute();
    attr->set_name(a.at("name").get<std::string>());
    if (a.at("type") == "int") {
      attr->set_type(onnx::AttributeProto::INT);
      attr->set_i(a.at("value").get<int64_t>());
    } else {
      attr->set_type(onnx::AttributeProto::FLOAT);
      attr->set_f(a.at("value").get<float>());
    }
  }
  std::ofstream f(out, std::ios::binary);
  ASSERT_TRUE(model.SerializeToOstream(&f));
}

template <class N, class = void>
struct has_metadata_props : std::false_type {};
template <class N>
struct has_metadata_props<N, std::void_t<decltype(std::declval<const N&>().metadata_props())>> : std::true_type {};

// metadata_props of a node: field 9 of ONNX >= 1.16's NodeProto (ONNX 1.20: the field itself), an
// unknown field to ONNX 1.12 (as core/src/common/onnx_compat.hpp writes it).
template <class N = onnx::NodeProto>
std::map<std::string, std::string> node_metadata(const N& node) {
  std::map<std::string, std::string> props;
  if constexpr (has_metadata_props<N>::value) {
    for (const auto& entry : node.metadata_props()) props[entry.key()] = entry.value();
  } else {
    const auto& unknown = node.GetReflection()->GetUnknownFields(node);
    for (int i = 0; i < unknown.field_count(); ++i) {
      const auto& field = unknown.field(i);
      if (field.number() != 9 || field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) continue;
      onnx::StringStringEntryProto entry;
      EXPECT_TRUE(entry.ParseFromString(field.length_delimited()));
      props[entry.key()] = entry.value();
    }
  }
  return props;
}

const onnx::NodeProto* find_node(const onnx::ModelProto& m, const std::string& op_type) {
  for (const auto& n : m.graph().node())
    if (n.op_type() == op_type) return &n;
  return nullptr;
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// ---- kernels: ONNX Runtime's RotaryEmbedding-23 / Attention-23 on the same inputs ----

TEST(OnnxOps, KernelsMatchOnnxRuntime) {
  ASSERT_FALSE(fixture_root().empty());
  const fs::path out_dir = fresh_out_dir();
  std::vector<std::string> names;
  std::vector<std::pair<fs::path, fs::path>> jobs;
  for (const auto& name : index_list("kernels")) {
    const fs::path fx = fixture_root() / "kernels" / name;
    const fs::path model = out_dir / (std::string(name) + "_node.onnx");
    write_single_node_model(read_meta(fx), model);
    names.push_back(name);
    jobs.push_back({model, fx});
  }
  const auto results = compare_batch(jobs, out_dir / "batch");
  int matched = 0;
  for (size_t k = 0; k < results.size(); ++k) {
    if (results[k].exit_code != 0) {
      ADD_FAILURE() << names[k] << ": ONNX Runtime's kernel disagrees with libtorch2onnx_ops\n" << results[k].text;
      continue;
    }
    ++matched;
  }
  std::cout << matched << " kernel cases match ONNX Runtime 1.30\n";
  skip_refused_kernel_cases();
}

// ---- the pack's decompositions (opsets 9..17) against the kernels ----

TEST(OnnxOps, DecompositionsMatchKernels) {
  ASSERT_FALSE(fixture_root().empty());
  const fs::path out_dir = fresh_out_dir();
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> jobs;
  std::vector<std::pair<fs::path, fs::path>> outs;  // model, fixture
  for (const auto& name_json : index_list("kernels")) {
    const std::string name = name_json;
    const fs::path fx = fixture_root() / "kernels" / name;
    for (int opset : read_meta(fx).at("opsets").get<std::vector<int>>()) {
      const fs::path out = out_dir / (name + "_" + std::to_string(opset) + ".onnx");
      labels.push_back(name + " opset " + std::to_string(opset));
      jobs.push_back(batch_args(fx, out, opset));
      outs.push_back({out, fx});
    }
  }
  const auto exported = export_batch(jobs, out_dir / "batch");
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<size_t> which;
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << labels[k] << ": export failed\n" << exported[k].describe(jobs[k]);
      continue;
    }
    const auto counts = op_counts(read_model(outs[k].first));
    EXPECT_EQ(counts.count("RotaryEmbedding") + counts.count("Attention"), 0u) << labels[k] << ": not decomposed";
    comparisons.push_back(outs[k]);
    which.push_back(k);
  }
  const auto results = compare_batch(comparisons, out_dir / "batch");
  int matched = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].exit_code != 0) {
      ADD_FAILURE() << labels[which[i]] << ": decomposition disagrees with the kernel\n" << results[i].text;
      continue;
    }
    ++matched;
  }
  std::cout << matched << " case x opset decompositions match the kernels\n";
  skip_refused_kernel_cases();
}

// ---- the pack's native nodes (opset 23) in ONNX Runtime against the kernels ----

TEST(OnnxOps, NativeNodesAtOpset23) {
  ASSERT_FALSE(fixture_root().empty());
  const fs::path out_dir = fresh_out_dir();
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> jobs;
  std::vector<std::pair<fs::path, fs::path>> outs;
  for (const auto& name : index_list("kernels")) {
    const fs::path fx = fixture_root() / "kernels" / name;
    const fs::path out = out_dir / (std::string(name) + "_23.onnx");
    names.push_back(name);
    jobs.push_back(batch_args(fx, out, T2O_ONNX_OPS_NATIVE_OPSET));
    outs.push_back({out, fx});
  }
  const auto exported = export_batch(jobs, out_dir / "batch");
  std::vector<std::pair<fs::path, fs::path>> comparisons;
  std::vector<size_t> which;
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (exported[k].exit_code != 0) {
      ADD_FAILURE() << names[k] << " opset 23: export failed\n" << exported[k].describe(jobs[k]);
      continue;
    }
    const auto model = read_model(outs[k].first);
    const std::string op = read_meta(outs[k].second).at("node").at("op_type");
    EXPECT_EQ(model.graph().node_size(), 1) << names[k];
    if (model.graph().node_size() == 1) EXPECT_EQ(model.graph().node(0).op_type(), op) << names[k];
    EXPECT_EQ(opset_of(model, ""), 23);
    comparisons.push_back(outs[k]);
    which.push_back(k);
  }
  const auto results = compare_batch(comparisons, out_dir / "batch");
  int matched = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].exit_code != 0) {
      ADD_FAILURE() << names[which[i]] << " opset 23: ONNX Runtime disagrees with the kernel\n" << results[i].text;
      continue;
    }
    ++matched;
  }
  std::cout << matched << " cases exported as one native node at opset 23 match the kernels\n";
  skip_refused_kernel_cases();
}

// ---- the documentation's examples ----

TEST(OnnxOps, SeedCustomOpNode) {
  ASSERT_FALSE(fixture_root().empty());
  if (const std::string why = refused_fixture("seeds/custom_op"); !why.empty()) GTEST_SKIP() << why;
  const fs::path fx = fixture_root() / "seeds" / "custom_op";
  const fs::path out = fresh_out_dir() / "custom_op.onnx";
  const RunResult e = run(export_args(fx, out, 17));
  ASSERT_EQ(e.exit_code, 0) << e.describe();
  const auto model = read_model(out);
  const onnx::NodeProto* node = find_node(model, "CustomOp");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->domain(), "custom_domain");
  ASSERT_EQ(node->input_size(), 1);
  ASSERT_EQ(node->output_size(), 1);
  const auto* a = find_attr(*node, "attr_key");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->type(), onnx::AttributeProto::STRING);
  EXPECT_EQ(a->s(), "attr_value");
  EXPECT_EQ(opset_of(model, "custom_domain"), 1);
  EXPECT_EQ(opset_of(model, ""), 17);
  const auto props = node_metadata(*node);
  ASSERT_EQ(props.size(), 1u);
  EXPECT_EQ(props.at("origin"), "torch2onnx_ops");
  // The node's output is typed as declared (float, [2, 3]) and feeds Relu.
  bool typed = false;
  for (const auto& vi : model.graph().value_info())
    if (vi.name() == node->output(0)) {
      typed = true;
      EXPECT_EQ(vi.type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
      ASSERT_EQ(vi.type().tensor_type().shape().dim_size(), 2);
      EXPECT_EQ(vi.type().tensor_type().shape().dim(0).dim_value(), 2);
      EXPECT_EQ(vi.type().tensor_type().shape().dim(1).dim_value(), 3);
    }
  EXPECT_TRUE(typed) << "no value_info for the CustomOp output";
  EXPECT_NE(find_node(model, "Relu"), nullptr);
}

TEST(OnnxOps, SeedMultiOutNode) {
  ASSERT_FALSE(fixture_root().empty());
  if (const std::string why = refused_fixture("seeds/multi_out"); !why.empty()) GTEST_SKIP() << why;
  const fs::path fx = fixture_root() / "seeds" / "multi_out";
  const fs::path out = fresh_out_dir() / "multi_out.onnx";
  const RunResult e = run(export_args(fx, out, 13));
  ASSERT_EQ(e.exit_code, 0) << e.describe();
  const auto model = read_model(out);
  const onnx::NodeProto* node = find_node(model, "CustomOp");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->domain(), "custom_domain");
  ASSERT_EQ(node->output_size(), 2);
  EXPECT_EQ(opset_of(model, "custom_domain"), 1);
  std::map<std::string, onnx::AttributeProto::AttributeType> want = {
      {"attr_key", onnx::AttributeProto::STRING}, {"ints", onnx::AttributeProto::INTS},
      {"floats", onnx::AttributeProto::FLOATS},   {"flag", onnx::AttributeProto::INT},
      {"names", onnx::AttributeProto::STRINGS},   {"gain", onnx::AttributeProto::FLOAT}};
  ASSERT_EQ(node->attribute_size(), (int)want.size());
  for (const auto& [name, type] : want) {
    const auto* a = find_attr(*node, name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(a->type(), type) << name;
  }
  EXPECT_EQ(find_attr(*node, "ints")->ints_size(), 2);
  EXPECT_FLOAT_EQ(find_attr(*node, "floats")->floats(1), 1.0f);
  EXPECT_EQ(find_attr(*node, "flag")->i(), 1);
  EXPECT_EQ(find_attr(*node, "names")->strings(1), "b");
  EXPECT_FLOAT_EQ(find_attr(*node, "gain")->f(), 2.5f);
  std::map<std::string, int32_t> types;
  for (const auto& vi : model.graph().value_info()) types[vi.name()] = vi.type().tensor_type().elem_type();
  ASSERT_TRUE(types.count(node->output(0)) && types.count(node->output(1)));
  EXPECT_EQ(types[node->output(0)], onnx::TensorProto::FLOAT);
  EXPECT_EQ(types[node->output(1)], onnx::TensorProto::INT64);
}

TEST(OnnxOps, SeedRotaryEmbeddingDynamicBatch) {
  ASSERT_FALSE(fixture_root().empty());
  const fs::path fx = fixture_root() / "seeds" / "rotary";
  const fs::path out_dir = fresh_out_dir();
  std::vector<int> opsets = {17};
  if (T2O_ONNX_OPS_NATIVE_OPSET > 17) opsets.push_back(T2O_ONNX_OPS_NATIVE_OPSET);
  for (int opset : opsets) {
    const fs::path out = out_dir / ("rotary_" + std::to_string(opset) + ".onnx");
    auto args = export_args(fx, out, opset);
    for (const char* axes : {"input_data=0:batch", "position_ids_data=0:batch"}) {
      args.push_back("--dynamic-axes");
      args.push_back(axes);
    }
    const RunResult e = run(args);
    ASSERT_EQ(e.exit_code, 0) << e.describe();
    const auto model = read_model(out);
    if (opset >= 23) {
      ASSERT_EQ(model.graph().node_size(), 1);
      EXPECT_EQ(model.graph().node(0).op_type(), "RotaryEmbedding");
      EXPECT_EQ(model.graph().node(0).input_size(), 4);
    }
    EXPECT_FALSE(model.graph().input(0).type().tensor_type().shape().dim(0).dim_param().empty());
    for (const fs::path& run_dir : {fx, fx / "batch5"}) {
      const RunResult r = compare(out, run_dir);
      EXPECT_EQ(r.exit_code, 0) << "opset " << opset << " " << run_dir << "\n" << r.describe();
    }
  }
}

TEST(OnnxOps, ScriptedModel) {
  ASSERT_FALSE(fixture_root().empty());
  if (const std::string why = refused_fixture("seeds/scripted"); !why.empty()) GTEST_SKIP() << why;
  const fs::path fx = fixture_root() / "seeds" / "scripted";
  const fs::path out_dir = fresh_out_dir();
  for (int opset : {17, T2O_ONNX_OPS_NATIVE_OPSET}) {
    const fs::path out = out_dir / ("scripted_" + std::to_string(opset) + ".onnx");
    const RunResult e = run(export_args(fx, out, opset));
    ASSERT_EQ(e.exit_code, 0) << e.describe();
    const auto counts = op_counts(read_model(out));
    if (opset >= 23) {
      EXPECT_EQ(counts.count("RotaryEmbedding") ? counts.at("RotaryEmbedding") : 0, 2);
      EXPECT_EQ(counts.count("Attention") ? counts.at("Attention") : 0, 1);
    }
    const RunResult r = compare(out, fx);
    EXPECT_EQ(r.exit_code, 0) << "opset " << opset << "\n" << r.describe();
  }
}

// ---- a Llama-style decoder with a KV cache ----

std::vector<std::string> llama_export_args(const fs::path& fx, const fs::path& out, int opset) {
  auto args = export_args(fx, out, opset);
  for (const char* axes : {"input_ids=0:batch,1:seq", "position_ids=0:batch,1:seq", "past_key_0=0:batch,2:past",
                           "past_value_0=0:batch,2:past", "past_key_1=0:batch,2:past", "past_value_1=0:batch,2:past"}) {
    args.push_back("--dynamic-axes");
    args.push_back(axes);
  }
  return args;
}

TEST(OnnxOps, LlamaDecoder) {
  ASSERT_FALSE(fixture_root().empty());
  const fs::path fx = fixture_root() / "llama";
  const fs::path out_dir = fresh_out_dir();
  std::vector<int> opsets = {17};
  if (T2O_ONNX_OPS_NATIVE_OPSET > 17) opsets.push_back(T2O_ONNX_OPS_NATIVE_OPSET);
  for (int opset : opsets) {
    const fs::path out = out_dir / ("llama_" + std::to_string(opset) + ".onnx");
    const RunResult e = run(llama_export_args(fx, out, opset));
    ASSERT_EQ(e.exit_code, 0) << e.describe();
    const auto model = read_model(out);
    const auto counts = op_counts(model);
    const int rope = counts.count("RotaryEmbedding") ? counts.at("RotaryEmbedding") : 0;
    const int attention = counts.count("Attention") ? counts.at("Attention") : 0;
    if (opset >= 23) {
      EXPECT_EQ(rope, 4);
      EXPECT_EQ(attention, 2);
    } else {
      EXPECT_EQ(rope + attention, 0);
    }
    std::cout << "llama opset " << opset << ": " << model.graph().node_size() << " nodes (" << rope
              << " RotaryEmbedding, " << attention << " Attention)\n";
    // Runs whose expected values this PyTorch's own kernel would get wrong are not made (cases.json
    // "skipped" names them and why).
    const auto skipped = skipped_cases();  // items() of a temporary would dangle
    for (const auto& [name, why] : skipped.items())
      if (name.rfind("llama/", 0) == 0) std::cout << "  skipped " << name << ": " << why.get<std::string>() << "\n";
    ASSERT_FALSE(index_list("llama_runs").empty());
    for (const auto& k : index_list("llama_runs")) {
      const fs::path run_dir = fx / "runs" / k;
      const auto meta = read_meta(run_dir);
      const RunResult r = compare(out, run_dir);
      EXPECT_EQ(r.exit_code, 0) << "opset " << opset << " (batch, seq, past) = " << meta.at("batch_seq_past")
                                << "\n" << r.describe();
      EXPECT_LE(meta.at("eager_max_abs_diff").get<double>(), 1e-5) << "the traced model differs from the eager one";
      std::cout << "  run (batch, seq, past) = " << meta.at("batch_seq_past").dump() << ": "
                << (r.exit_code == 0 ? "match" : "MISMATCH") << ", max |ONNX Runtime - PyTorch| = " << max_abs_err(r.out)
                << "\n";
    }
  }
}

// ---- torch2onnx decompose: the rewritten model runs in PyTorch without the op library ----

TEST(OnnxOps, DecomposeRunsWithoutTheLibrary) {
  ASSERT_FALSE(fixture_root().empty());
  const fs::path out_dir = fresh_out_dir();
  std::vector<std::pair<fs::path, std::vector<fs::path>>> models;  // model dir, fixture dirs to compare
  std::vector<fs::path> llama_runs;
  for (const auto& k : index_list("llama_runs")) llama_runs.push_back(fixture_root() / "llama" / "runs" / k);
  models.push_back({fixture_root() / "llama", llama_runs});
  for (const auto& name_json : index_list("kernels")) {
    const fs::path fx = fixture_root() / "kernels" / name_json;
    models.push_back({fx, {fx}});
  }
  std::vector<std::string> check = {python(), (source_dir() / "tests" / "onnx_ops" / "check_decomposed.py").string()};
  for (const auto& [dir, runs] : models) {
    const fs::path out = out_dir / (dir.filename().string() + "_aten.pt");
    const RunResult d = run({cli().string(), "decompose", (dir / "model.pt").string(), "-o", out.string()});
    if (d.exit_code != 0) {
      ADD_FAILURE() << dir.filename() << ": decompose failed\n" << d.describe();
      continue;
    }
    std::string dirs;
    for (const auto& r : runs) dirs += (dirs.empty() ? "" : ",") + r.string();
    check.push_back(out.string());
    check.push_back(dirs);
  }
  // One Python process, which never loads the op library, runs every decomposed model.
  const RunResult c = run(check);
  EXPECT_EQ(c.exit_code, 0) << c.describe();
  std::cout << "decomposed models (" << (check.size() - 2) / 2 << ") in PyTorch without the library:\n" << c.out;
  skip_refused_kernel_cases();
}

TEST(OnnxOps, DecomposeBadInput) {
  const fs::path out_dir = fresh_out_dir();
  const RunResult r = run({cli().string(), "decompose", (out_dir / "missing.pt").string(), "-o",
                           (out_dir / "x.pt").string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
  EXPECT_EQ(r.err.rfind("torch2onnx: error: ", 0), 0u) << r.describe();
  EXPECT_FALSE(fs::exists(out_dir / "x.pt"));
}

}  // namespace
}  // namespace t2o_e2e
