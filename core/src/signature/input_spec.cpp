#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <cctype>
#include <cstring>
#include <stdexcept>

namespace t2o::core {

namespace {

constexpr size_t kMaxInputSpecDepth = 100;

// Recursive descent over the --input grammar (exporter.hpp). Errors name the whole spec and say
// what was expected where.
class SpecParser {
 public:
  explicit SpecParser(const std::string& text) : text_(text) {}

  InputSpec parse() {
    InputSpec spec = parse_spec();
    skip_spaces();
    if (pos_ != text_.size()) throw bad("unexpected '" + text_.substr(pos_) + "' after the spec");
    return spec;
  }

 private:
  ExportError bad(const std::string& why) const {
    // A long spec is quoted by its ends: the reason must stay on the (bounded) error line.
    const std::string quoted = text_.size() <= 120 ? text_ : text_.substr(0, 60) + "..." + text_.substr(text_.size() - 40);
    return ExportError("bad --input '" + quoted + "': " + why +
                       " (expected TYPE[DIMS], e.g. float32[1,3,224,224] or int64[]; (SPEC,...) for a tuple or list, "
                       "{KEY:SPEC,...} for a dict, none, int=N, float=X, bool=true|false, str=TEXT)");
  }
  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_])) ++pos_;
  }
  bool eat(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // A word: letters, digits, '_', '.', '+', '-' (numbers and type names).
  std::string word() {
    skip_spaces();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum((unsigned char)text_[pos_]) || std::strchr("_.+-", text_[pos_]) != nullptr))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }

  InputSpec parse_spec() {
    // Each level is a recursion: a spec from a file (the saved signature) may nest without end.
    struct Level {
      size_t& depth;
      ~Level() { --depth; }
    } level{++depth_};
    if (depth_ > kMaxInputSpecDepth)
      throw bad("nested more than " + std::to_string(kMaxInputSpecDepth) + " deep");
    skip_spaces();
    size_t start = pos_;
    InputSpec spec;
    if (eat('(') || eat('[')) {
      char close = text_[pos_ - 1] == '(' ? ')' : ']';
      spec.kind = InputSpec::Kind::Sequence;
      if (!eat(close)) {
        do spec.elements.push_back(parse_spec());
        while (eat(','));
        if (!eat(close)) throw bad(std::string("no closing '") + close + "'");
      }
    } else if (eat('{')) {
      spec.kind = InputSpec::Kind::Dict;
      if (!eat('}')) {
        do {
          skip_spaces();
          std::string key;
          if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
            char quote = text_[pos_++];
            size_t end = text_.find(quote, pos_);
            if (end == std::string::npos) throw bad("unterminated key");
            key = text_.substr(pos_, end - pos_);
            pos_ = end + 1;
          } else {
            key = word();
          }
          if (key.empty()) throw bad("empty dict key");
          for (const auto& k : spec.keys)
            if (k == key) throw bad("dict key '" + key + "' given twice");
          if (!eat(':')) throw bad("no ':' after dict key '" + key + "'");
          spec.keys.push_back(key);
          spec.elements.push_back(parse_spec());
        } while (eat(','));
        if (!eat('}')) throw bad("no closing '}'");
      }
    } else {
      std::string name = word();
      if (name.empty()) throw bad(pos_ < text_.size() ? "unexpected '" + text_.substr(pos_, 1) + "'" : "empty spec");
      if (name == "none") {
        spec.kind = InputSpec::Kind::None;
        spec.dtype = "none";
      } else if (name == "str" && eat('=')) {
        // str=TEXT: up to the next ',', ')', ']' or '}', or quoted ('a, b' / "a, b")
        skip_spaces();
        spec.kind = InputSpec::Kind::Str;
        if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
          char quote = text_[pos_++];
          size_t end = text_.find(quote, pos_);
          if (end == std::string::npos) throw bad("unterminated string");
          spec.str_value = text_.substr(pos_, end - pos_);
          pos_ = end + 1;
        } else {
          size_t end = text_.find_first_of(",)]}", pos_);
          if (end == std::string::npos) end = text_.size();
          spec.str_value = text_.substr(pos_, end - pos_);
          while (!spec.str_value.empty() && std::isspace((unsigned char)spec.str_value.back())) spec.str_value.pop_back();
          pos_ = end;
        }
      } else if (eat('=')) {
        std::string value = word();
        parse_primitive(spec, name, value);
      } else {
        parse_tensor(spec, name);
      }
    }
    skip_spaces();
    spec.text = text_.substr(start, pos_ - start);
    while (!spec.text.empty() && std::isspace((unsigned char)spec.text.back())) spec.text.pop_back();
    return spec;
  }

  void parse_primitive(InputSpec& spec, const std::string& kind, const std::string& value) {
    try {
      size_t used = 0;
      if (kind == "int") {
        spec.kind = InputSpec::Kind::Int;
        spec.int_value = std::stoll(value, &used);
      } else if (kind == "float") {
        spec.kind = InputSpec::Kind::Float;
        spec.float_value = std::stod(value, &used);
      } else if (kind == "bool") {
        spec.kind = InputSpec::Kind::Bool;
        if (value != "true" && value != "false" && value != "True" && value != "False")
          throw bad("bool=" + value + ": expected bool=true or bool=false");
        spec.bool_value = value == "true" || value == "True";
        used = value.size();
      } else {
        throw bad("unknown primitive '" + kind + "=' (int=N, float=X, bool=true|false, str=TEXT)");
      }
      if (used != value.size() || value.empty()) throw bad(kind + "=" + value + " is not a valid " + kind);
    } catch (const std::logic_error&) {  // stoll/stod: not a number or out of range
      throw bad(kind + "=" + value + " is not a valid " + kind);
    }
  }

  void parse_tensor(InputSpec& spec, const std::string& dtype) {
    spec.kind = InputSpec::Kind::Tensor;
    spec.dtype = dtype;
    if (pos_ >= text_.size() || text_[pos_] != '[') {
      if (dtype == "int" || dtype == "float" || dtype == "bool")
        throw bad("'" + dtype + "' needs a value: " + dtype + "=VALUE (a constant) or a 0-d tensor, e.g. int64[]");
      throw bad("no [DIMS] after '" + dtype + "'");
    }
    if (!dtype_from_name(dtype)) throw bad("unknown element type '" + dtype + "'; known: " + dtype_names());
    ++pos_;
    size_t close = text_.find(']', pos_);
    if (close == std::string::npos) throw bad("no [DIMS]");
    std::string body = text_.substr(pos_, close - pos_);
    pos_ = close + 1;
    size_t p = 0;
    while (p < body.size()) {
      size_t comma = body.find(',', p);
      std::string item = body.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
      while (!item.empty() && std::isspace((unsigned char)item.front())) item.erase(item.begin());
      while (!item.empty() && std::isspace((unsigned char)item.back())) item.pop_back();
      if (item.empty()) throw bad("empty dimension");
      for (char c : item)
        if (!std::isdigit((unsigned char)c)) throw bad("dimension '" + item + "' is not a non-negative integer");
      if (item.size() > 12) throw bad("dimension '" + item + "' is too large");
      spec.dims.push_back(std::stoll(item));
      if (comma == std::string::npos) break;
      p = comma + 1;
      if (p == body.size()) throw bad("trailing comma");
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
  size_t depth_ = 0;
};

void flatten_into(const InputSpec& spec, std::vector<InputSpec>& out) {
  if (spec.kind == InputSpec::Kind::Tensor) out.push_back(spec);
  for (const auto& e : spec.elements) flatten_into(e, out);
}

}  // namespace

InputSpec parse_input_spec(const std::string& text) {
  InputSpec spec = SpecParser(text).parse();
  spec.text = text;
  return spec;
}

std::vector<InputSpec> flatten_input_spec(const InputSpec& spec) {
  std::vector<InputSpec> out;
  flatten_into(spec, out);
  return out;
}

std::pair<int64_t, int64_t> parse_input_range(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return ExportError("bad --input-range '" + text + "': " + why + " (expected LO:HI, e.g. 0:9, both included)");
  };
  auto colon = text.find(':', text.find_first_not_of('-') == std::string::npos ? 0 : 1);
  if (colon == std::string::npos) throw bad("no ':'");
  std::pair<int64_t, int64_t> range;
  try {
    size_t used_lo = 0, used_hi = 0;
    range.first = std::stoll(text.substr(0, colon), &used_lo);
    range.second = std::stoll(text.substr(colon + 1), &used_hi);
    if (used_lo != colon || used_hi != text.size() - colon - 1) throw bad("not two integers");
  } catch (const std::logic_error&) {
    throw bad("not two integers");
  }
  if (range.first > range.second) throw bad("LO is greater than HI");
  return range;
}

OperatorExportType parse_operator_export_type(const std::string& text) {
  if (text == "onnx") return OperatorExportType::Onnx;
  if (text == "aten-fallback" || text == "onnx_aten_fallback") return OperatorExportType::AtenFallback;
  if (text == "fallthrough" || text == "onnx_fallthrough") return OperatorExportType::Fallthrough;
  if (text == "aten" || text == "onnx_aten") return OperatorExportType::Aten;
  throw ExportError("bad --operator-export-type '" + text + "' (expected onnx, aten-fallback, fallthrough or aten)");
}

TrainingMode parse_training_mode(const std::string& text) {
  // torch.onnx's enum names too (TrainingMode.TRAINING, as str() of it prints), in any case.
  std::string t = text.rfind("TrainingMode.", 0) == 0 ? text.substr(13) : text;
  for (auto& c : t) c = (char)std::tolower((unsigned char)c);
  if (t == "eval") return TrainingMode::Eval;
  if (t == "preserve") return TrainingMode::Preserve;
  if (t == "train" || t == "training") return TrainingMode::Train;
  throw ExportError("bad --training '" + text + "' (expected eval, preserve or train)");
}

const char* training_mode_name(TrainingMode mode) {
  switch (mode) {
    case TrainingMode::Eval: return "eval";
    case TrainingMode::Preserve: return "preserve";
    case TrainingMode::Train: return "train";
  }
  return "eval";
}

DynamicAxes parse_dynamic_axes(const std::string& text) {
  auto bad = [&](const std::string& why) -> ExportError {
    return ExportError("bad --dynamic-axes '" + text + "': " + why +
                       " (expected NAME=AXES, e.g. input_ids=0,1 or input_ids=0:batch,1:seq)");
  };
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw bad("no NAME=");
  DynamicAxes out;
  out.name = text.substr(0, eq);
  std::string body = text.substr(eq + 1);
  if (body.empty()) throw bad("no axes");
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t comma = body.find(',', pos);
    std::string item = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::string axis = item, symbol;
    auto colon = item.find(':');
    if (colon != std::string::npos) {
      axis = item.substr(0, colon);
      symbol = item.substr(colon + 1);
      if (symbol.empty()) throw bad("empty dim name in '" + item + "'");
      for (char c : symbol)
        if (!std::isalnum((unsigned char)c) && c != '_') throw bad("dim name '" + symbol + "' is not an identifier");
    }
    if (axis.empty() || axis.size() > 6) throw bad("axis '" + axis + "' is not a non-negative integer");
    for (char c : axis)
      if (!std::isdigit((unsigned char)c)) throw bad("axis '" + axis + "' is not a non-negative integer");
    int64_t a = std::stoll(axis);
    for (const auto& [seen, _] : out.axes)
      if (seen == a) throw bad("axis " + axis + " given twice");
    out.axes.emplace_back(a, symbol);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::vector<std::vector<int64_t>> dynamic_run_shapes(const std::vector<InputSpec>& dynamic_inputs,
                                                     const std::vector<InputSpec>& specs,
                                                     const std::vector<std::vector<int64_t>>& shapes,
                                                     const std::vector<std::vector<int64_t>>& default_sizes) {
  if (dynamic_inputs.empty()) return default_sizes;
  if (dynamic_inputs.size() != specs.size())
    throw ExportError(std::to_string(dynamic_inputs.size()) + " --dynamic-input given for " +
                      std::to_string(specs.size()) + " --input; give one per input, in order");
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& d = dynamic_inputs[i];
    auto bad = [&](const std::string& why) {
      return ExportError("--dynamic-input " + d.text + " (input " + std::to_string(i) + ", --input " + specs[i].text +
                         "): " + why);
    };
    if (d.dtype != specs[i].dtype) throw bad("another element type");
    if (d.dims.size() != shapes[i].size()) throw bad("another rank");
    for (size_t a = 0; a < d.dims.size(); ++a) {
      bool dynamic = default_sizes[i][a] != shapes[i][a];
      if (!dynamic && d.dims[a] != shapes[i][a])
        throw bad("axis " + std::to_string(a) + " is not in --dynamic-axes but has another size");
      if (dynamic && d.dims[a] == shapes[i][a])
        throw bad("dynamic axis " + std::to_string(a) + " must take another size than in --input");
    }
    out.push_back(d.dims);
  }
  return out;
}

}  // namespace t2o::core
