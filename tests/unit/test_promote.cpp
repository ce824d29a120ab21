// plugins/common/promote.hpp against PyTorch: every pair of operands (a tensor with dims, a 0-d
// tensor, a Python number; every dtype ONNX has) given to torch.result_type, and every dtype pair
// given to torch.promote_types. The table is made at test time by promote_table.py (beside this
// file) with the Python that has torch (T2O_PYTHON, default /usr/bin/python3).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "../../plugins/common/promote.hpp"

namespace {

using t2o::pack::Operand;

nlohmann::json torch_table() {
  const char* env = std::getenv("T2O_PYTHON");
  std::string python = env && *env ? env : "/usr/bin/python3";
  std::string script = (std::filesystem::path(__FILE__).parent_path() / "promote_table.py").string();
  std::string out;
  if (FILE* p = popen((python + " " + script).c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    if (pclose(p) != 0) out.clear();
  }
  if (out.empty()) return nullptr;
  return nlohmann::json::parse(out);
}

std::pair<Operand, t2o_dtype> operand(const nlohmann::json& spec) {
  const std::string form = spec[0];
  if (form == "tensor") return {Operand::Tensor, (t2o_dtype)spec[1].get<int>()};
  if (form == "zero_dim") return {Operand::ZeroDim, (t2o_dtype)spec[1].get<int>()};
  const std::string number = spec[1];
  t2o_dtype d = number == "bool" ? T2O_DTYPE_BOOL : number == "int" ? T2O_DTYPE_INT64
                : number == "float" ? T2O_DTYPE_DOUBLE : T2O_DTYPE_COMPLEX128;  // a number's category is what counts
  return {Operand::Number, d};
}

TEST(Promote, MatchesTorchResultTypeAndPromoteTypes) {
  const auto table = torch_table();
  ASSERT_FALSE(table.is_null()) << "promote_table.py failed (is torch installed for T2O_PYTHON?)";
  size_t checked = 0;
  for (const auto& row : table.at("promote_types")) {
    auto a = (t2o_dtype)row[0].get<int>(), b = (t2o_dtype)row[1].get<int>();
    EXPECT_EQ((int)t2o::pack::promote_types(a, b), row[2].get<int>()) << "promote_types(" << a << ", " << b << ")";
    ++checked;
  }
  for (const auto& row : table.at("result_type")) {
    auto got = t2o::pack::result_type({operand(row.at("a")), operand(row.at("b"))});
    EXPECT_EQ((int)got, row.at("result").get<int>()) << "result_type(" << row.at("a") << ", " << row.at("b") << ")";
    ++checked;
  }
  EXPECT_GT(checked, 800u);
}

TEST(Promote, ThreeOperands) {
  // where(cond, int tensor, float number), clamp(int tensor, 0-d double, float): as torch.result_type
  // folds them (dims first, then 0-d tensors, then numbers).
  using t2o::pack::result_type;
  EXPECT_EQ(result_type({{Operand::Tensor, T2O_DTYPE_INT32}, {Operand::ZeroDim, T2O_DTYPE_DOUBLE},
                         {Operand::Number, T2O_DTYPE_FLOAT}}),
            T2O_DTYPE_DOUBLE);
  EXPECT_EQ(result_type({{Operand::Tensor, T2O_DTYPE_BOOL}, {Operand::ZeroDim, T2O_DTYPE_INT8},
                         {Operand::Number, T2O_DTYPE_INT64}}),
            T2O_DTYPE_INT8);
  EXPECT_EQ(result_type({{Operand::Tensor, T2O_DTYPE_FLOAT16}, {Operand::Number, T2O_DTYPE_FLOAT}}),
            T2O_DTYPE_FLOAT16);
}

}  // namespace
