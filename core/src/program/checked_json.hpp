// Reads of the program's JSON that check what they read: a missing field, a field of the wrong type
// or an unknown enum value is one ExportError line naming the file and the field's path
// ("models/model.json: graph_module.graph.nodes[3].target: expected a string, found a number").
// Fields the schema allows to be missing or null read as absent; unknown fields are ignored (any
// minor version of schema 8 may add some).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace t2o::core::program {

class JsonAt {
 public:
  JsonAt(const nlohmann::json& j, std::string file, std::string path) : j_(&j), file_(std::move(file)), path_(std::move(path)) {}

  const nlohmann::json& raw() const { return *j_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;

  bool is_null() const { return j_->is_null(); }
  bool has(const char* key) const;  // present and not null
  JsonAt at(const char* key) const;  // required
  std::optional<JsonAt> opt(const char* key) const;
  JsonAt at(size_t i) const;  // of an array
  size_t size() const;        // of an array (checked)
  std::vector<JsonAt> items() const;  // of an array (checked)
  // An object's members in file order, or the only member of a one-key union ("as_tensor": {...}).
  std::vector<std::pair<std::string, JsonAt>> members() const;
  std::pair<std::string, JsonAt> union_member() const;

  std::string str() const;
  int64_t integer() const;
  double number() const;  // also "Infinity", "-Infinity", "NaN" (how the writer spells those)
  bool boolean() const;

 private:
  const nlohmann::json* j_;
  std::string file_, path_;
};

const char* json_type_name(const nlohmann::json& j);

// Parses a program's JSON. PyTorch 2.6 writes infinite and NaN floats as the bare words Infinity,
// -Infinity and NaN (Python's json default), which JSON lacks: they are read as the strings 2.14
// writes ("Infinity"), which JsonAt::number() understands. Throws ExportError naming `file`.
nlohmann::json parse_program_json(const char* data, size_t size, const std::string& file);

}  // namespace t2o::core::program
