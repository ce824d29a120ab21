#include "program/symbolic_sizes.hpp"

#include "program/exported_program.hpp"

#include <cctype>
#include <functional>
#include <set>

namespace t2o::core::program {

// A size expression: an integer, a symbol, or an operation over sub-expressions.
struct SymbolicSizes::Expr {
  enum Kind { Int, Sym, Add, Sub, Mul, FloorDiv, Mod, Max, Min, Neg } kind = Int;
  int64_t value = 0;
  std::string symbol;
  std::vector<std::shared_ptr<Expr>> args;

  std::optional<int64_t> eval(const std::map<std::string, int64_t>& env) const {
    switch (kind) {
      case Int: return value;
      case Sym: {
        auto it = env.find(symbol);
        if (it == env.end()) return std::nullopt;
        return it->second;
      }
      default: break;
    }
    std::vector<int64_t> xs;
    for (const auto& a : args) {
      auto x = a->eval(env);
      if (!x) return std::nullopt;
      xs.push_back(*x);
    }
    auto floordiv = [](int64_t a, int64_t b) -> std::optional<int64_t> {
      if (b == 0) return std::nullopt;
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    };
    int64_t r = 0;
    switch (kind) {
      case Add: for (auto x : xs) r += x; return r;
      case Mul: r = 1; for (auto x : xs) r *= x; return r;
      case Sub: return xs.size() == 2 ? std::optional<int64_t>(xs[0] - xs[1]) : std::nullopt;
      case Neg: return xs.size() == 1 ? std::optional<int64_t>(-xs[0]) : std::nullopt;
      case FloorDiv: return xs.size() == 2 ? floordiv(xs[0], xs[1]) : std::nullopt;
      case Mod: {
        if (xs.size() != 2 || xs[1] == 0) return std::nullopt;
        auto q = floordiv(xs[0], xs[1]);
        return xs[0] - *q * xs[1];
      }
      case Max: case Min: {
        if (xs.empty()) return std::nullopt;
        r = xs[0];
        for (auto x : xs) r = kind == Max ? std::max(r, x) : std::min(r, x);
        return r;
      }
      default: return std::nullopt;
    }
  }
  // The str() spelling, as the dim_param of a derived dim ("2*s0", "s0 + 1").
  std::string render() const {
    auto join = [&](const char* sep) {
      std::string r;
      for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i]->render();
        if (args[i]->kind == Add || args[i]->kind == Sub) a = "(" + a + ")";
        r += (i ? sep : "") + a;
      }
      return r;
    };
    switch (kind) {
      case Int: return std::to_string(value);
      case Sym: return symbol;
      case Add: return join(" + ");
      case Sub: return join(" - ");
      case Mul: return join("*");
      case FloorDiv: return join("//");
      case Mod: return join("%");
      case Neg: return "-" + join("");
      case Max: return "Max(" + join(", ") + ")";
      case Min: return "Min(" + join(", ") + ")";
    }
    return "?";
  }
  void collect(std::set<std::string>& out) const {
    if (kind == Sym) out.insert(symbol);
    for (const auto& a : args) a->collect(out);
  }
};

namespace {

using ExprPtr = std::shared_ptr<SymbolicSizes::Expr>;

// Recursive descent over both spellings sympy gives: str() ("2*s0 + 1", "(s0//2)") and srepr()
// ("Add(Mul(Integer(2), Symbol('s0', integer=True)), Integer(1))").
class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  ExprPtr parse() {
    auto e = sum();
    skip();
    if (pos_ != s_.size()) return nullptr;
    return e;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_])) ++pos_;
  }
  bool eat(const std::string& t) {
    skip();
    if (s_.compare(pos_, t.size(), t) == 0) {
      pos_ += t.size();
      return true;
    }
    return false;
  }
  static ExprPtr make(SymbolicSizes::Expr::Kind k, std::vector<ExprPtr> args) {
    for (auto& a : args)
      if (!a) return nullptr;
    auto e = std::make_shared<SymbolicSizes::Expr>();
    e->kind = k;
    e->args = std::move(args);
    return e;
  }
  ExprPtr sum() {
    auto left = product();
    while (left) {
      if (eat("+")) left = make(SymbolicSizes::Expr::Add, {left, product()});
      else if (eat("-")) left = make(SymbolicSizes::Expr::Sub, {left, product()});
      else break;
    }
    return left;
  }
  ExprPtr product() {
    auto left = unary();
    while (left) {
      if (eat("//")) left = make(SymbolicSizes::Expr::FloorDiv, {left, unary()});
      else if (eat("*")) left = make(SymbolicSizes::Expr::Mul, {left, unary()});
      else if (eat("%")) left = make(SymbolicSizes::Expr::Mod, {left, unary()});
      else break;
    }
    return left;
  }
  ExprPtr unary() {
    if (eat("-")) return make(SymbolicSizes::Expr::Neg, {unary()});
    return atom();
  }
  ExprPtr atom() {
    skip();
    if (pos_ >= s_.size()) return nullptr;
    if (eat("(")) {
      auto e = sum();
      if (!eat(")")) return nullptr;
      return e;
    }
    if (std::isdigit((unsigned char)s_[pos_])) {
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit((unsigned char)s_[pos_])) {
        if (v > (INT64_MAX - 9) / 10) return nullptr;
        v = v * 10 + (s_[pos_++] - '0');
      }
      auto e = std::make_shared<SymbolicSizes::Expr>();
      e->value = v;
      return e;
    }
    std::string name;
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_')) name += s_[pos_++];
    if (name.empty()) return nullptr;
    if (!eat("(")) {
      auto e = std::make_shared<SymbolicSizes::Expr>();
      e->kind = SymbolicSizes::Expr::Sym;
      e->symbol = name;
      return e;
    }
    // A call: srepr's constructors and sympy's functions.
    if (name == "Symbol") {
      skip();
      if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return nullptr;
      char quote = s_[pos_++];
      std::string sym;
      while (pos_ < s_.size() && s_[pos_] != quote) sym += s_[pos_++];
      if (pos_ >= s_.size()) return nullptr;
      ++pos_;
      // Assumptions (positive=True, integer=True) say nothing about the value.
      int depth = 1;
      while (pos_ < s_.size() && depth > 0) {
        if (s_[pos_] == '(') ++depth;
        if (s_[pos_] == ')') --depth;
        ++pos_;
      }
      if (depth != 0) return nullptr;
      auto e = std::make_shared<SymbolicSizes::Expr>();
      e->kind = SymbolicSizes::Expr::Sym;
      e->symbol = sym;
      return e;
    }
    std::vector<ExprPtr> args;
    if (!eat(")")) {
      do {
        args.push_back(sum());
        if (!args.back()) return nullptr;
      } while (eat(","));
      if (!eat(")")) return nullptr;
    }
    using K = SymbolicSizes::Expr::Kind;
    if (name == "Integer" && args.size() == 1) return args[0];
    if (name == "Add") return make(K::Add, args);
    if (name == "Mul") return make(K::Mul, args);
    if (name == "FloorDiv" && args.size() == 2) return make(K::FloorDiv, args);
    if ((name == "Mod" || name == "PythonMod") && args.size() == 2) return make(K::Mod, args);
    if (name == "Max") return make(K::Max, args);
    if (name == "Min") return make(K::Min, args);
    return nullptr;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

SymbolicSizes::SymbolicSizes() = default;
SymbolicSizes::~SymbolicSizes() = default;

std::shared_ptr<SymbolicSizes::Expr> SymbolicSizes::parsed(const std::string& expr, const JsonAt* where) const {
  auto it = cache_.find(expr);
  if (it != cache_.end()) return it->second;
  auto e = Parser(expr).parse();
  if (!e && where) where->fail("a symbolic size torch2onnx cannot read: '" + expr.substr(0, 120) + "'");
  cache_[expr] = e;
  return e;
}

std::string SymbolicSizes::add_dim(const std::string& expr, std::optional<int64_t> hint,
                                   const std::map<std::string, SymbolRange>& ranges, const JsonAt& where) {
  auto e = parsed(expr, &where);
  std::set<std::string> syms;
  e->collect(syms);
  for (const auto& s : syms) {
    if (bounds_.count(s)) continue;
    int64_t lo = 2, hi = INT64_MAX / 4;
    if (auto it = ranges.find(s); it != ranges.end()) {
      if (it->second.min) lo = std::max<int64_t>(*it->second.min, 0);
      if (it->second.max) hi = *it->second.max;
    }
    bounds_[s] = {lo, hi};
    order_.push_back(s);
  }
  if (e->kind == Expr::Sym) {
    if (!example_.count(e->symbol)) {
      const auto [lo, hi] = bounds_[e->symbol];
      example_[e->symbol] = hint ? *hint : std::max<int64_t>(lo, 2);
    }
    return e->symbol;
  }
  // A derived dim: the symbols it uses get values that reproduce its example size, where one is unknown.
  std::vector<std::string> unknown;
  for (const auto& s : syms)
    if (!example_.count(s)) unknown.push_back(s);
  if (unknown.size() == 1 && hint) {
    const auto [lo, hi] = bounds_[unknown[0]];
    for (int64_t v = std::max<int64_t>(lo, 0); v <= std::min<int64_t>(hi, 1 << 16); ++v) {
      auto env = example_;
      env[unknown[0]] = v;
      if (e->eval(env) == hint) {
        example_[unknown[0]] = v;
        break;
      }
    }
  }
  return e->render();
}

int64_t SymbolicSizes::example_value(const std::string& expr) const {
  auto e = parsed(expr, nullptr);
  auto v = e ? e->eval(example_) : std::nullopt;
  return v ? *v : -1;
}

void SymbolicSizes::choose_other_values(std::vector<std::string>& warnings) {
  other_ = example_;
  for (const auto& s : order_) {
    auto it = example_.find(s);
    if (it == example_.end()) continue;
    const int64_t v = it->second;
    const auto [lo, hi] = bounds_[s];
    const int64_t floor = std::max<int64_t>(lo, 2);
    if (v + 1 <= hi && v + 1 >= floor) other_[s] = v + 1;
    else if (v - 1 >= floor && v - 1 <= hi) other_[s] = v - 1;
    else warnings.push_back("symbol " + s + " cannot take another size inside its range [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]: its dims are exported at size " + std::to_string(v));
  }
}

int64_t SymbolicSizes::other_value(const std::string& expr) const {
  auto e = parsed(expr, nullptr);
  auto v = e ? e->eval(other_) : std::nullopt;
  return v ? *v : example_value(expr);
}

std::vector<std::string> SymbolicSizes::symbols() const { return order_; }

std::string SymbolicSizes::name_of(const std::string& expr) const {
  auto e = parsed(expr, nullptr);
  return e ? e->render() : "";
}

}  // namespace t2o::core::program
