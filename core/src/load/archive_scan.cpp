#include "load/archive_scan.hpp"

#include <ATen/core/dispatch/Dispatcher.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace t2o::core {

namespace {

bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

bool known_to_libtorch(const std::string& qualified) {
  auto symbol = c10::Symbol::fromQualString(qualified);
  return !torch::jit::getAllOperatorsFor(symbol).empty();
}

}  // namespace

namespace {
std::string describe(const std::string& path, const std::vector<CustomOpUse>& uses) {
  std::string s = path + ": the model calls " + std::to_string(uses.size()) +
                  " custom op(s) that no loaded pack declares: ";
  for (size_t i = 0; i < uses.size(); ++i) {
    const auto& u = uses[i];
    s += (i ? "; " : "") + u.op + " (" + std::to_string(u.count) + " call" + (u.count == 1 ? "" : "s") +
         ", first at " + (u.locations.empty() ? "?" : u.locations[0]) + ")";
  }
  return s + "; what's missing is the library of their kernels (--load-library) or a pack declaring their "
             "schemas (--plugin-path)";
}
}  // namespace

UnknownCustomOpsError::UnknownCustomOpsError(const std::string& path, std::vector<CustomOpUse> uses)
    : ExportError(describe(path, uses)), ops(std::move(uses)) {}

std::vector<CustomOpUse> unknown_custom_ops(const std::string& path) {
  std::map<std::string, CustomOpUse> found;
  caffe2::serialize::PyTorchStreamReader reader(path);
  for (const auto& record : reader.getAllRecords()) {
    if (record.rfind("code/", 0) != 0 || record.size() < 3 || record.compare(record.size() - 3, 3, ".py") != 0)
      continue;
    auto [data, size] = reader.getRecord(record);
    std::string text(static_cast<const char*>(data.get()), size);
    size_t line = 1, pos = 0;
    // Serialized TorchScript calls custom ops as `ops.NS.NAME(...)`.
    for (size_t i = 0; i + 4 < text.size(); ++i) {
      if (text[i] == '\n') ++line;
      if (text.compare(i, 4, "ops.") != 0 || (i > 0 && (ident_char(text[i - 1]) || text[i - 1] == '.'))) continue;
      pos = i + 4;
      size_t ns_end = pos;
      while (ns_end < text.size() && ident_char(text[ns_end])) ++ns_end;
      if (ns_end == pos || ns_end >= text.size() || text[ns_end] != '.') continue;
      size_t name_end = ns_end + 1;
      while (name_end < text.size() && ident_char(text[name_end])) ++name_end;
      if (name_end == ns_end + 1 || name_end >= text.size() || text[name_end] != '(') continue;
      std::string op = text.substr(pos, ns_end - pos) + "::" + text.substr(ns_end + 1, name_end - ns_end - 1);
      // aten:: and prim:: are libtorch's own namespaces, never a custom op's: an unknown one is an op of
      // a newer PyTorch, which the loader's error names (model_loader.cpp).
      if (op.rfind("aten::", 0) == 0 || op.rfind("prim::", 0) == 0 || known_to_libtorch(op)) continue;
      auto& use = found[op];
      use.op = op;
      if (use.count++ < 3) use.locations.push_back(record + ":" + std::to_string(line));
    }
  }
  std::vector<CustomOpUse> out;
  for (auto& [_, use] : found) out.push_back(std::move(use));
  std::stable_sort(out.begin(), out.end(), [](const CustomOpUse& a, const CustomOpUse& b) { return a.count > b.count; });
  return out;
}

}  // namespace t2o::core
