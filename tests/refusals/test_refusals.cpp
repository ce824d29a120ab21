// Arguments the decomposed op families cannot convert exactly are refused: exit status 1, one
// `torch2onnx: error:` line naming the op and why, and no output file.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

namespace t2o_e2e {
namespace {

fs::path refusal_fixtures() {
  static const fs::path dir = [] {
    const fs::path d = work_dir() / "refusals";
    const RunResult made =
        run({python(), (source_dir() / "tests" / "refusals" / "make_refusal_fixtures.py").string(), d.string()});
    EXPECT_EQ(made.exit_code, 0) << made.describe();
    return d;
  }();
  return dir;
}

struct Refusal {
  const char* model;
  std::vector<std::string> inputs;
  int opset;
  std::vector<std::string> message;  // substrings of the error line
  std::vector<std::string> extra = {};  // more export arguments (--dynamic-axes)
  // From this libtorch release on the refusal is not made (the reason why): the case is skipped.
  std::pair<int, int> not_from = {0, 0};
  const char* not_why = "";
};

class Refused : public ::testing::TestWithParam<Refusal> {};

TEST_P(Refused, WithOneLineNamingTheOpAndReason) {
  const Refusal& c = GetParam();
  if (c.not_from.first > 0 && libtorch_at_least(c.not_from.first, c.not_from.second))
    GTEST_SKIP() << c.model << " under libtorch " << libtorch_version() << ": " << c.not_why;
  const fs::path out = fresh_out_dir() / (std::string(c.model) + ".onnx");
  std::vector<std::string> args = {cli().string(), "export", (refusal_fixtures() / (std::string(c.model) + ".pt")).string(),
                                   "-o", out.string(), "--opset", std::to_string(c.opset)};
  for (const auto& i : c.inputs) {
    args.push_back("--input");
    args.push_back(i);
  }
  args.insert(args.end(), c.extra.begin(), c.extra.end());
  const RunResult r = run(args);
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
  EXPECT_EQ(r.err.rfind("torch2onnx: error: ", 0), 0u) << r.describe();
  for (const auto& s : c.message) EXPECT_NE(r.err.find(s), std::string::npos) << s << "\n" << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(
    Ops, Refused,
    ::testing::Values(
        Refusal{"det_7x7", {"float32[7,7]"}, 17, {"aten::linalg_det", "7x7", "up to 6x6"}},
        Refusal{"one_hot_made_up", {"int64[3]", "int64[3]"}, 17,
                {"Class values must be smaller than num_classes", "input 'i' was made up (ones, then zeros)",
                 "aten::one_hot", "--example-inputs"},
                {},
                {2, 14},
                "the example run on the meta device has a one_hot kernel that checks no class "
                "ids, so the made-up values are not refused and the model is exported (the same graph; "
                "PyTorch raises at run time on such values)"},
        Refusal{"dict_write_in_branch", {"float32[2,3]"}, 17,
                {"aten::_set_item", "a dict written inside a branch (prim::If at ", "ONNX has no dicts"}},
        Refusal{"dict_write_in_loop", {"float32[2,3]"}, 17,
                {"aten::_set_item", "a dict written inside a loop (prim::Loop at ", "known at export time"}},
        Refusal{"dict_write_runtime_key", {"float32[2,3]"}, 17,
                {"aten::_set_item", "a dict written under a key computed at run time (at ", "ONNX has no dicts"}},
        Refusal{"dict_pop", {"float32[2,3]"}, 17, {"aten::pop", "a dict changed by pop() at ", "ONNX has no dicts"}},
        Refusal{"inverse_5x5", {"float32[5,5]"}, 17, {"aten::linalg_inv", "up to 4x4"}},
        Refusal{"unique_unsorted", {"int64[3]"}, 17, {"aten::_unique2", "sorted=False", "hash-table order"}},
        Refusal{"median_dim", {"float32[3,4]"}, 10, {"aten::median", "needs --opset 11", "(value, index)"}},
        Refusal{"bitwise_int", {"int64[2]", "int64[2]"}, 10, {"aten::__and__", "needs opset >= 11"}},
        Refusal{"complex_output", {"float32[4,8]"}, 17, {"model output 0 is a complex tensor", "view_as_real"}},
        Refusal{"complex_into_mul", {"float32[4,8]"}, 20, {"aten::mul", "'self' is a complex tensor (complex64)"}},
        Refusal{"fft_below_17", {"float32[4,8]"}, 16, {"aten::fft_fft", "17"}},
        Refusal{"linspace_runtime_steps", {"float32[4]"}, 10, {"aten::linspace", "'steps'", "--opset 11"}},
        Refusal{"nested_list_append", {"float32[3]", "int64[]"}, 17,
                {"t2o::list_append", "nested list", "sequences hold tensors only"}},
        Refusal{"list_index_runtime", {"float32[3,4]", "int64[]"}, 10,
                {"aten::__getitem__", "a list indexed at a position computed at run time", "needs --opset 11"}},
        Refusal{"tensor_split_dynamic", {"float32[3,7]"}, 9,
                {"aten::tensor_split", "sections of dynamic axis 1", "needs --opset 10 (Slice with run-time bounds)"},
                {"--dynamic-axes", "x=0,1"}},
        Refusal{"list_set_runtime", {"float32[3,4]", "int64[]"}, 10,
                {"t2o::list_set", "a list set at a position computed at run time", "needs --opset 11"}},
        Refusal{"optional_if", {"float32[2,3]", "bool[]"}, 15,
                {"prim::If", "output 0 that is None in one branch", "needs --opset 16 (optionals through If and Loop"}},
        Refusal{"optional_loop", {"float32[2,3]", "int64[]"}, 15,
                {"prim::Loop", "carried value 0 that is None on entry", "needs --opset 16 (optionals through If and Loop"}},
        Refusal{"optional_into_op", {"float32[2,3]", "float32[4,3]", "bool[]"}, 16,
                {"aten::linear", "'bias' is an Optional that is None on some run-time path"}},
        Refusal{"empty_lists_only", {"float32[4,4,3,4]"}, 14,
                {"the model returns only empty lists of tensors", "at least one output"}},
        Refusal{"list_concat_runtime_lists", {"float32[3,4]"}, 17,
                {"aten::add", "concatenating two lists built at run time", "no op that joins sequences"},
                {"--dynamic-axes", "x=0"}},
        Refusal{"slice_step_runtime", {"float32[6,3]", "int64[]"}, 10,
                {"aten::slice_scatter", "a step computed at run time", "needs --opset 11 (Range)"}}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.model); });

}  // namespace
}  // namespace t2o_e2e
