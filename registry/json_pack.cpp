// Declarative op packs: packs without a compiler.
//
// A *.json file in a plugin directory maps TorchScript ops to ONNX node templates. Format 1:
//
//   {
//     "torch2onnx_pack": 1,                       required: the format version
//     "name": "myvendor-json", "version": "1.0",  name required, version optional
//     "schemas": ["myvendor::leaky(Tensor x, float slope=0.01) -> Tensor"],   optional
//     "ops": [{                                   required, at least one
//       "op": "myvendor::leaky",                  the TorchScript op (namespace::name)
//       "domain": "",                             ONNX domain whose opset selects this entry ("" default)
//       "since_opset": 9,                         used for targets >= since_opset (of "domain")
//       "override": false,                        may replace another pack's entry of the same origin
//       "node": {
//         "op_type": "LeakyRelu",
//         "domain": "",                           the node's domain (default: the entry's "domain")
//         "inputs": [0],                          TorchScript input index per node input; null = omitted
//         "outputs": 1,                           node outputs, bound to the TorchScript outputs in order
//         "attributes": {                         name -> {"type", and "input" (a constant argument) or "value"}
//           "alpha": {"type": "float", "input": 1}
//         }
//       }
//     }]
//   }
//
// Attribute types: int, float, string, bool (an int 0/1), ints, floats, strings. An attribute taken
// from an argument that is None at the call is left out (the ONNX default applies); an argument that
// is not a constant is an error at export time. Unknown keys are refused (they are usually typos).
// A malformed file is refused with its name and the JSON key path ("ops[0].node.inputs[1]") or the
// line and column of a syntax error, and the reason; other packs still load.
#include "json_pack.hpp"

#include <nlohmann/json.hpp>

#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace t2o::registry::json_pack {
namespace {

using nlohmann::json;

struct AttrTemplate {
  std::string name;
  int32_t type = T2O_ATTR_INT;
  bool is_bool = false;
  int input = -1;  // TorchScript argument index, or -1 for a fixed value
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
};

struct OpTemplate {
  std::string file;  // for messages
  std::string op_type;
  std::string domain;
  std::vector<int> inputs;  // -1 = omitted
  int outputs = 1;
  std::vector<AttrTemplate> attrs;
};

// Templates live as long as the process (symbolics point to them), like loaded libraries.
struct Store {
  std::mutex mutex;
  std::deque<OpTemplate> templates;
};
Store& store() {
  static Store* s = new Store();
  return *s;
}

struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void bad(const std::string& key, const std::string& why) { throw Bad(key + ": " + why); }

const char* type_name(const json& j) { return j.type_name(); }

void only_keys(const json& obj, const std::string& where, std::initializer_list<const char*> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok |= it.key() == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      bad(where.empty() ? it.key() : where + "." + it.key(), "unknown key (expected one of: " + list + ")");
    }
  }
}

std::string get_string(const json& obj, const std::string& where, const char* key, bool required,
                       const std::string& fallback = "") {
  auto it = obj.find(key);
  std::string k = where.empty() ? key : where + "." + key;
  if (it == obj.end()) {
    if (required) bad(k, "missing (a string is required)");
    return fallback;
  }
  if (!it->is_string()) bad(k, std::string("expected a string, got ") + type_name(*it));
  return it->get<std::string>();
}

int64_t get_int(const json& obj, const std::string& where, const char* key, bool required, int64_t fallback = 0) {
  auto it = obj.find(key);
  std::string k = where.empty() ? key : where + "." + key;
  if (it == obj.end()) {
    if (required) bad(k, "missing (an integer is required)");
    return fallback;
  }
  if (!it->is_number_integer()) bad(k, std::string("expected an integer, got ") + type_name(*it));
  return it->get<int64_t>();
}

bool has_space(const std::string& s) {
  for (unsigned char c : s)
    if (c <= ' ' || c == 0x7f) return true;
  return false;
}

AttrTemplate parse_attr(const std::string& name, const json& a, const std::string& where, int max_inputs_hint) {
  (void)max_inputs_hint;
  if (!a.is_object()) bad(where, std::string("expected an object {\"type\": ..., \"input\" or \"value\": ...}, got ") + type_name(a));
  only_keys(a, where, {"type", "input", "value"});
  AttrTemplate t;
  t.name = name;
  std::string type = get_string(a, where, "type", true);
  if (type == "int") t.type = T2O_ATTR_INT;
  else if (type == "bool") { t.type = T2O_ATTR_INT; t.is_bool = true; }
  else if (type == "float") t.type = T2O_ATTR_FLOAT;
  else if (type == "string") t.type = T2O_ATTR_STRING;
  else if (type == "ints") t.type = T2O_ATTR_INTS;
  else if (type == "floats") t.type = T2O_ATTR_FLOATS;
  else if (type == "strings") t.type = T2O_ATTR_STRINGS;
  else bad(where + ".type", "unknown attribute type '" + type + "' (int, float, string, bool, ints, floats, strings)");
  const bool has_input = a.contains("input"), has_value = a.contains("value");
  if (has_input == has_value) bad(where, "give exactly one of \"input\" (an argument index) or \"value\"");
  if (has_input) {
    int64_t i = get_int(a, where, "input", true);
    if (i < 0 || i > 1000) bad(where + ".input", "argument index " + std::to_string(i) + " out of range");
    t.input = (int)i;
    return t;
  }
  const json& v = a.at("value");
  const std::string vk = where + ".value";
  auto need = [&](bool ok, const char* what) {
    if (!ok) bad(vk, std::string("expected ") + what + " for type '" + type + "', got " + type_name(v));
  };
  switch (t.type) {
    case T2O_ATTR_INT:
      if (t.is_bool) { need(v.is_boolean(), "true or false"); t.ints = {v.get<bool>() ? 1 : 0}; }
      else { need(v.is_number_integer(), "an integer"); t.ints = {v.get<int64_t>()}; }
      break;
    case T2O_ATTR_FLOAT: need(v.is_number(), "a number"); t.floats = {v.get<double>()}; break;
    case T2O_ATTR_STRING: need(v.is_string(), "a string"); t.strings = {v.get<std::string>()}; break;
    case T2O_ATTR_INTS:
      need(v.is_array(), "an array of integers");
      for (size_t k = 0; k < v.size(); ++k) {
        if (!v[k].is_number_integer()) bad(vk + "[" + std::to_string(k) + "]", std::string("expected an integer, got ") + type_name(v[k]));
        t.ints.push_back(v[k].get<int64_t>());
      }
      break;
    case T2O_ATTR_FLOATS:
      need(v.is_array(), "an array of numbers");
      for (size_t k = 0; k < v.size(); ++k) {
        if (!v[k].is_number()) bad(vk + "[" + std::to_string(k) + "]", std::string("expected a number, got ") + type_name(v[k]));
        t.floats.push_back(v[k].get<double>());
      }
      break;
    case T2O_ATTR_STRINGS:
      need(v.is_array(), "an array of strings");
      for (size_t k = 0; k < v.size(); ++k) {
        if (!v[k].is_string()) bad(vk + "[" + std::to_string(k) + "]", std::string("expected a string, got ") + type_name(v[k]));
        t.strings.push_back(v[k].get<std::string>());
      }
      break;
  }
  return t;
}

// ---- the interpreter: one symbolic for every template ----

t2o_status fail(const t2o_host_api* host, t2o_ctx* ctx, const OpTemplate& t, const std::string& why) {
  host->set_error(ctx, ("JSON pack " + t.file + ": " + t.op_type + ": " + why).c_str());
  return T2O_ERROR;
}

t2o_status run_template(const t2o_host_api* host, t2o_ctx* ctx, void* user_data) noexcept {
  const auto& t = *static_cast<const OpTemplate*>(user_data);
  try {
    const int32_t n_in = host->num_inputs(ctx);
    std::vector<t2o_value> inputs;
    for (int i : t.inputs) {
      if (i < 0) { inputs.push_back(T2O_NO_VALUE); continue; }
      if (i >= n_in)
        return fail(host, ctx, t, "the template reads argument " + std::to_string(i) + " but the call has " +
                                      std::to_string(n_in) + " argument(s)");
      t2o_value v = host->input(ctx, i);
      if (host->value_kind(ctx, v) == T2O_KIND_NONE) { inputs.push_back(T2O_NO_VALUE); continue; }
      t2o_value onnx = T2O_NO_VALUE;
      t2o_status s = host->value_as_onnx(ctx, v, &onnx);
      if (s != T2O_OK) return s;  // the host said why
      inputs.push_back(onnx);
    }

    // Attribute storage lives until emit_node returns.
    struct Storage {
      std::vector<int64_t> ints;
      std::vector<double> floats;
      std::vector<std::string> strings;
      std::vector<const char*> cstrings;
    };
    std::deque<Storage> storage;
    std::vector<t2o_attr> attrs;
    for (const auto& a : t.attrs) {
      Storage st;
      if (a.input < 0) {
        st.ints = a.ints;
        st.floats = a.floats;
        st.strings = a.strings;
      } else {
        if (a.input >= n_in)
          return fail(host, ctx, t, "attribute '" + a.name + "' reads argument " + std::to_string(a.input) +
                                        " but the call has " + std::to_string(n_in) + " argument(s)");
        t2o_value v = host->input(ctx, a.input);
        int32_t kind = host->value_kind(ctx, v);
        if (kind == T2O_KIND_NONE) continue;  // left out: the ONNX default applies
        if (!host->value_is_constant(ctx, v))
          return fail(host, ctx, t, "attribute '" + a.name + "' needs argument " + std::to_string(a.input) +
                                        " to be a constant, but it is computed at run time");
        auto read_one = [&](t2o_value item) -> t2o_status {
          switch (a.type) {
            case T2O_ATTR_INT:
            case T2O_ATTR_INTS: { int64_t x = 0; t2o_status s = host->value_int(ctx, item, &x); if (s == T2O_OK) st.ints.push_back(x); return s; }
            case T2O_ATTR_FLOAT:
            case T2O_ATTR_FLOATS: { double x = 0; t2o_status s = host->value_float(ctx, item, &x); if (s == T2O_OK) st.floats.push_back(x); return s; }
            default: { const char* x = nullptr; t2o_status s = host->value_string(ctx, item, &x); if (s == T2O_OK) st.strings.emplace_back(x ? x : ""); return s; }
          }
        };
        const bool list_type = a.type == T2O_ATTR_INTS || a.type == T2O_ATTR_FLOATS || a.type == T2O_ATTR_STRINGS;
        if (list_type && kind == T2O_KIND_LIST) {
          int64_t n = 0;
          if (t2o_status s = host->value_list_size(ctx, v, &n); s != T2O_OK) return s;
          for (int64_t k = 0; k < n; ++k) {
            t2o_value item = T2O_NO_VALUE;
            if (t2o_status s = host->value_list_item(ctx, v, k, &item); s != T2O_OK) return s;
            if (t2o_status s = read_one(item); s != T2O_OK) return s;
          }
        } else if (t2o_status s = read_one(v); s != T2O_OK) {
          return s;
        }
        if (a.is_bool && !st.ints.empty()) st.ints[0] = st.ints[0] != 0;
      }
      storage.push_back(std::move(st));
      Storage& s = storage.back();
      for (const auto& x : s.strings) s.cstrings.push_back(x.c_str());
      t2o_attr r{};
      r.struct_size = sizeof(t2o_attr);
      r.name = a.name.c_str();
      r.type = a.type;
      r.count = a.type == T2O_ATTR_INTS ? (int64_t)s.ints.size()
                : a.type == T2O_ATTR_FLOATS ? (int64_t)s.floats.size()
                : a.type == T2O_ATTR_STRINGS ? (int64_t)s.strings.size() : 1;
      if ((a.type == T2O_ATTR_INT && s.ints.empty()) || (a.type == T2O_ATTR_FLOAT && s.floats.empty()) ||
          (a.type == T2O_ATTR_STRING && s.strings.empty()))
        return fail(host, ctx, t, "attribute '" + a.name + "' has no value");
      r.ints = s.ints.data();
      r.floats = s.floats.data();
      r.strings = s.cstrings.data();
      r.tensor = T2O_NO_VALUE;
      attrs.push_back(r);
    }

    const int32_t n_out = host->num_outputs(ctx);
    if (n_out > t.outputs)
      return fail(host, ctx, t, "the call has " + std::to_string(n_out) + " output(s) but the node template " +
                                    std::to_string(t.outputs));
    t2o_node_spec spec{};
    spec.struct_size = sizeof(t2o_node_spec);
    spec.op_type = t.op_type.c_str();
    spec.domain = t.domain.c_str();
    spec.inputs = inputs.data();
    spec.num_inputs = (int32_t)inputs.size();
    spec.num_outputs = t.outputs;
    spec.attrs = attrs.data();
    spec.num_attrs = (int32_t)attrs.size();
    std::vector<t2o_value> outs((size_t)t.outputs, T2O_NO_VALUE);
    if (t2o_status s = host->emit_node(ctx, &spec, outs.data()); s != T2O_OK) return s;
    for (int32_t k = 0; k < n_out; ++k)
      if (t2o_status s = host->set_output(ctx, k, outs[(size_t)k]); s != T2O_OK) return s;
    return T2O_OK;
  } catch (const std::exception& e) {
    return fail(host, ctx, t, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(host, ctx, t, "internal error");
  }
}

std::string line_col_of(const std::string& text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; col = 1; }
    else ++col;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

constexpr size_t kMaxPackBytes = 16u << 20;
constexpr size_t kMaxPackDepth = 64;  // a pack's own structure is 5 levels deep

// The offset of the bracket that opens level kMaxPackDepth + 1, or npos (strings skipped).
size_t too_deep(const std::string& text) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxPackDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string::npos;
}

}  // namespace

Parsed parse_file(const std::string& path) {
  Parsed out;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) { out.error = "cannot be opened for reading"; return out; }
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string file = std::filesystem::path(path).filename().string();

    // Bounds before parsing: nlohmann builds every nested level (about 100 bytes each) before any
    // check of ours could see it.
    if (text.size() > kMaxPackBytes) {
      out.error = std::to_string(text.size()) + " bytes (a JSON pack is at most " + std::to_string(kMaxPackBytes) + ")";
      return out;
    }
    if (size_t at = too_deep(text); at != std::string::npos) {
      out.error = line_col_of(text, at) + ": nested more than " + std::to_string(kMaxPackDepth) + " deep";
      return out;
    }
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::parse_error& e) {
      // e.what(): "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
      std::string what = e.what();
      auto pos = what.find(": ", what.find("parse error"));
      std::string why = pos == std::string::npos ? what : what.substr(pos + 2);
      out.error = line_col_of(text, e.byte ? e.byte - 1 : 0) + ": invalid JSON: " + why;
      return out;
    }
    if (!doc.is_object()) bad("(top level)", std::string("expected an object, got ") + type_name(doc));
    only_keys(doc, "", {"torch2onnx_pack", "name", "version", "schemas", "ops", "description"});
    if (!doc.contains("torch2onnx_pack")) bad("torch2onnx_pack", "missing: not a torch2onnx pack (expected \"torch2onnx_pack\": 1)");
    int64_t fmt = get_int(doc, "", "torch2onnx_pack", true);
    if (fmt != 1) bad("torch2onnx_pack", "format " + std::to_string(fmt) + " is not supported (this host reads format 1)");
    out.name = get_string(doc, "", "name", true);
    if (out.name.empty()) bad("name", "must not be empty");
    out.version = get_string(doc, "", "version", false);
    get_string(doc, "", "description", false);

    if (auto it = doc.find("schemas"); it != doc.end()) {
      if (!it->is_array()) bad("schemas", std::string("expected an array of strings, got ") + type_name(*it));
      for (size_t k = 0; k < it->size(); ++k) {
        const auto& s = (*it)[k];
        if (!s.is_string()) bad("schemas[" + std::to_string(k) + "]", std::string("expected a string, got ") + type_name(s));
        out.schemas.push_back(s.get<std::string>());
      }
    }

    auto ops = doc.find("ops");
    if (ops == doc.end()) bad("ops", "missing (an array of op entries is required)");
    if (!ops->is_array()) bad("ops", std::string("expected an array, got ") + type_name(*ops));
    if (ops->empty()) bad("ops", "is empty: the pack converts nothing");

    std::vector<OpTemplate> templates;
    for (size_t k = 0; k < ops->size(); ++k) {
      const std::string where = "ops[" + std::to_string(k) + "]";
      const json& e = (*ops)[k];
      if (!e.is_object()) bad(where, std::string("expected an object, got ") + type_name(e));
      only_keys(e, where, {"op", "domain", "since_opset", "override", "node", "description"});
      Symbolic s;
      s.op = get_string(e, where, "op", true);
      auto sep = s.op.find("::");
      if (sep == std::string::npos || sep == 0 || sep + 2 >= s.op.size() || has_space(s.op))
        bad(where + ".op", "'" + s.op + "' is not a qualified op name (namespace::name)");
      s.domain = get_string(e, where, "domain", false);
      if (s.domain == "ai.onnx") s.domain.clear();
      if (has_space(s.domain)) bad(where + ".domain", "contains whitespace");
      s.since_opset = get_int(e, where, "since_opset", true);
      if (s.since_opset < 1) bad(where + ".since_opset", "must be >= 1");
      if (auto ov = e.find("override"); ov != e.end()) {
        if (!ov->is_boolean()) bad(where + ".override", std::string("expected true or false, got ") + type_name(*ov));
        if (ov->get<bool>()) s.flags |= T2O_SYMBOLIC_OVERRIDE;
      }
      get_string(e, where, "description", false);

      auto node = e.find("node");
      const std::string nw = where + ".node";
      if (node == e.end()) bad(nw, "missing (the ONNX node template)");
      if (!node->is_object()) bad(nw, std::string("expected an object, got ") + type_name(*node));
      only_keys(*node, nw, {"op_type", "domain", "inputs", "outputs", "attributes"});
      OpTemplate t;
      t.file = file;
      t.op_type = get_string(*node, nw, "op_type", true);
      if (t.op_type.empty() || has_space(t.op_type)) bad(nw + ".op_type", "must be a non-empty name without spaces");
      t.domain = get_string(*node, nw, "domain", false, s.domain);
      if (t.domain == "ai.onnx") t.domain.clear();
      auto ins = node->find("inputs");
      if (ins == node->end()) bad(nw + ".inputs", "missing (e.g. [0] feeds argument 0 to the node's first input)");
      if (!ins->is_array()) bad(nw + ".inputs", std::string("expected an array, got ") + type_name(*ins));
      for (size_t j = 0; j < ins->size(); ++j) {
        const json& x = (*ins)[j];
        const std::string xk = nw + ".inputs[" + std::to_string(j) + "]";
        if (x.is_null()) { t.inputs.push_back(-1); continue; }
        if (!x.is_number_integer()) bad(xk, std::string("expected an argument index or null, got ") + type_name(x));
        int64_t i = x.get<int64_t>();
        if (i < 0 || i > 1000) bad(xk, "argument index " + std::to_string(i) + " out of range");
        t.inputs.push_back((int)i);
      }
      int64_t n_out = get_int(*node, nw, "outputs", false, 1);
      if (n_out < 1 || n_out > 1000) bad(nw + ".outputs", "must be between 1 and 1000");
      t.outputs = (int)n_out;
      if (auto at = node->find("attributes"); at != node->end()) {
        if (!at->is_object()) bad(nw + ".attributes", std::string("expected an object (name -> attribute), got ") + type_name(*at));
        for (auto it = at->begin(); it != at->end(); ++it) {
          if (it.key().empty() || has_space(it.key())) bad(nw + ".attributes", "attribute name '" + it.key() + "' is empty or has spaces");
          t.attrs.push_back(parse_attr(it.key(), it.value(), nw + ".attributes." + it.key(), (int)t.inputs.size()));
        }
      }
      templates.push_back(std::move(t));
      out.symbolics.push_back(std::move(s));
    }

    // Valid: keep the templates for the life of the process and point the symbolics at them.
    auto& st = store();
    std::lock_guard<std::mutex> lock(st.mutex);
    for (size_t k = 0; k < templates.size(); ++k) {
      st.templates.push_back(std::move(templates[k]));
      out.symbolics[k].fn = &run_template;
      out.symbolics[k].user_data = &st.templates.back();
    }
  } catch (const Bad& e) {
    out.error = e.what();
    out.symbolics.clear();
  } catch (const std::exception& e) {
    out.error = std::string("internal error: ") + e.what();
    out.symbolics.clear();
  }
  return out;
}

}  // namespace t2o::registry::json_pack
