// The symbolic sizes of a program's inputs: each dim is an integer or an expression over symbols
// (`s0`, `s77`, `2*s0`, `s0 + 1`, and the srepr spelling `Symbol('s0', positive=True, integer=True)`,
// `Mul(Integer(2), Symbol('s0', ...))`). A plain symbol names its ONNX dim_param; a derived dim is
// named by its expression. Each symbol gets its example value (the sample input's size, else the
// writer's hint) and another value inside its range constraints for the second example run, from
// which every dim, derived ones included, is evaluated.
#pragma once

#include "program/checked_json.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core::program {

struct SymbolRange;

class SymbolicSizes {
 public:
  SymbolicSizes();
  ~SymbolicSizes();
  // Records a dim whose size is `expr` (with the example size `hint`); returns its dim_param name.
  std::string add_dim(const std::string& expr, std::optional<int64_t> hint,
                      const std::map<std::string, SymbolRange>& ranges, const JsonAt& where);
  int64_t example_value(const std::string& expr) const;
  // Picks each symbol's second value: one more, else one less, inside its range and above 1 (0 and 1
  // are sizes export specializes); a symbol that cannot move is reported in `warnings` and keeps its value.
  void choose_other_values(std::vector<std::string>& warnings);
  int64_t other_value(const std::string& expr) const;
  std::vector<std::string> symbols() const;
  // The dim_param an expression is named by ("s0", "u0", "2*s0"), "" when it cannot be read.
  std::string name_of(const std::string& expr) const;

  struct Expr;  // symbolic_sizes.cpp

 private:
  std::shared_ptr<Expr> parsed(const std::string& expr, const JsonAt* where) const;
  mutable std::map<std::string, std::shared_ptr<Expr>> cache_;
  std::map<std::string, int64_t> example_, other_;
  std::map<std::string, std::pair<int64_t, int64_t>> bounds_;
  std::vector<std::string> order_;
};

}  // namespace t2o::core::program
