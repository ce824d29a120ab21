#include "program/checked_json.hpp"

#include "torch2onnx/core/exporter.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace t2o::core::program {

const char* json_type_name(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "something else";
  }
}

void JsonAt::fail(const std::string& what) const {
  throw ExportError(file_ + ": " + (path_.empty() ? std::string("the top level") : path_) + ": " + what);
}

bool JsonAt::has(const char* key) const {
  return j_->is_object() && j_->contains(key) && !(*j_)[key].is_null();
}

JsonAt JsonAt::at(const char* key) const {
  if (!j_->is_object()) fail(std::string("expected an object, found ") + json_type_name(*j_));
  auto it = j_->find(key);
  std::string sub = path_.empty() ? std::string(key) : path_ + "." + key;
  if (it == j_->end()) fail(std::string("the field '") + key + "' is missing");
  return JsonAt(*it, file_, sub);
}

std::optional<JsonAt> JsonAt::opt(const char* key) const {
  if (!j_->is_object()) fail(std::string("expected an object, found ") + json_type_name(*j_));
  auto it = j_->find(key);
  if (it == j_->end() || it->is_null()) return std::nullopt;
  return JsonAt(*it, file_, path_.empty() ? std::string(key) : path_ + "." + key);
}

size_t JsonAt::size() const {
  if (!j_->is_array()) fail(std::string("expected an array, found ") + json_type_name(*j_));
  return j_->size();
}

JsonAt JsonAt::at(size_t i) const {
  if (i >= size()) fail("index " + std::to_string(i) + " is out of range");
  return JsonAt((*j_)[i], file_, path_ + "[" + std::to_string(i) + "]");
}

std::vector<JsonAt> JsonAt::items() const {
  std::vector<JsonAt> out;
  const size_t n = size();
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.emplace_back((*j_)[i], file_, path_ + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::pair<std::string, JsonAt>> JsonAt::members() const {
  if (!j_->is_object()) fail(std::string("expected an object, found ") + json_type_name(*j_));
  std::vector<std::pair<std::string, JsonAt>> out;
  for (auto it = j_->begin(); it != j_->end(); ++it)
    out.emplace_back(it.key(), JsonAt(it.value(), file_, path_.empty() ? it.key() : path_ + "." + it.key()));
  return out;
}

std::pair<std::string, JsonAt> JsonAt::union_member() const {
  auto all = members();
  // A union is written with its one set member; older writers may add others as null.
  std::vector<std::pair<std::string, JsonAt>> set;
  for (auto& m : all)
    if (!m.second.is_null() || m.first == "as_none") set.push_back(m);
  if (set.size() != 1) fail("expected one member of a union, found " + std::to_string(set.size()));
  return set[0];
}

std::string JsonAt::str() const {
  if (!j_->is_string()) fail(std::string("expected a string, found ") + json_type_name(*j_));
  return j_->get<std::string>();
}

int64_t JsonAt::integer() const {
  if (j_->is_number_integer()) return j_->get<int64_t>();
  if (j_->is_number_unsigned()) {
    auto v = j_->get<uint64_t>();
    if (v > (uint64_t)std::numeric_limits<int64_t>::max()) fail("the integer " + std::to_string(v) + " is out of range");
    return (int64_t)v;
  }
  fail(std::string("expected an integer, found ") + json_type_name(*j_));
}

double JsonAt::number() const {
  if (j_->is_number()) return j_->get<double>();
  if (j_->is_string()) {
    const auto& s = j_->get_ref<const std::string&>();
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  fail(std::string("expected a number, found ") + json_type_name(*j_));
}

bool JsonAt::boolean() const {
  if (!j_->is_boolean()) fail(std::string("expected a boolean, found ") + json_type_name(*j_));
  return j_->get<bool>();
}

nlohmann::json parse_program_json(const char* data, size_t size, const std::string& file) {
  // Quote the bare words outside strings; everything else is left as written.
  std::string text;
  text.reserve(size + 64);
  bool in_string = false;
  for (size_t i = 0; i < size; ++i) {
    const char c = data[i];
    if (in_string) {
      text += c;
      if (c == '\\' && i + 1 < size) text += data[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      text += c;
      continue;
    }
    bool replaced = false;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      const size_t n = std::strlen(word);
      if (i + n <= size && std::memcmp(data + i, word, n) == 0) {
        text += '"';
        text.append(word, n);
        text += '"';
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) text += c;
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw ExportError(file + ": not valid JSON (" + std::string(e.what()).substr(0, 200) + ")");
  }
}

}  // namespace t2o::core::program
