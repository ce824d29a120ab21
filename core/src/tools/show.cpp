// Reading ONNX files for verify and `show`: the graph's inputs and outputs, and the graph as text in
// the style of torch.onnx's verbose=True (typed values, one line per node with its attributes and
// the scope it came from, initializers summarized).
#include "torch2onnx/core/dtype_table.hpp"
#include "torch2onnx/core/verify.hpp"

#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace t2o::core {

namespace {

onnx::ModelProto load_onnx(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExportError(path + ": cannot be read (no such file?)");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in) || !model.has_graph())
    throw ExportError(path + ": not an ONNX model (it does not parse as a ModelProto)");
  return model;
}

std::unordered_set<std::string> initializer_names(const onnx::GraphProto& g) {
  std::unordered_set<std::string> names;
  for (const auto& t : g.initializer()) names.insert(t.name());
  return names;
}

// torch.onnx's spelling of element types: Float, Long, ...
std::string type_word(int32_t elem) {
  switch (elem) {
    case onnx::TensorProto::FLOAT: return "Float";
    case onnx::TensorProto::DOUBLE: return "Double";
    case onnx::TensorProto::FLOAT16: return "Half";
    case onnx::TensorProto::BFLOAT16: return "BFloat16";
    case onnx::TensorProto::INT64: return "Long";
    case onnx::TensorProto::INT32: return "Int";
    case onnx::TensorProto::INT16: return "Short";
    case onnx::TensorProto::INT8: return "Char";
    case onnx::TensorProto::UINT8: return "Byte";
    case onnx::TensorProto::BOOL: return "Bool";
    case onnx::TensorProto::STRING: return "String";
    case onnx::TensorProto::COMPLEX64: return "ComplexFloat";
    case onnx::TensorProto::COMPLEX128: return "ComplexDouble";
    default: return "Type" + std::to_string(elem);
  }
}

std::string dims_text(const onnx::TensorShapeProto& shape) {
  std::string s;
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    s += (i ? ", " : "") + (d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? d.dim_param() : "?");
  }
  return s;
}

std::string type_text(const onnx::TypeProto& type) {
  if (type.has_tensor_type()) {
    const auto& t = type.tensor_type();
    std::string w = type_word(t.elem_type());
    return t.has_shape() ? w + "(" + dims_text(t.shape()) + ")" : w;
  }
  if (type.has_sequence_type()) return "Sequence[" + type_text(type.sequence_type().elem_type()) + "]";
  if (type.has_optional_type()) return "Optional[" + type_text(type.optional_type().elem_type()) + "]";
  return "Dynamic";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string tensor_text(const onnx::TensorProto& t) {
  std::string s = type_word(t.data_type()) + "(";
  for (int i = 0; i < t.dims_size(); ++i) s += (i ? ", " : "") + std::to_string(t.dims(i));
  return s + ")";
}

// A constant's value when it is one number (as torch.onnx prints value={9216}), else its type.
std::string constant_text(const onnx::TensorProto& t) {
  // The element count, when it is a small one (the file's dims may be negative or multiply past int64).
  int64_t n = 1;
  for (auto d : t.dims())
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) n = INT64_MAX;
  auto st = torch_dtype(t.data_type());
  if (n == 1 && st && t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    switch (t.data_type()) {
      case onnx::TensorProto::FLOAT: if (raw.size() == 4) { float f; std::memcpy(&f, raw.data(), 4); return "{" + number(f) + "}"; } break;
      case onnx::TensorProto::DOUBLE: if (raw.size() == 8) { double f; std::memcpy(&f, raw.data(), 8); return "{" + number(f) + "}"; } break;
      case onnx::TensorProto::INT64: if (raw.size() == 8) { int64_t i; std::memcpy(&i, raw.data(), 8); return "{" + std::to_string(i) + "}"; } break;
      case onnx::TensorProto::INT32: if (raw.size() == 4) { int32_t i; std::memcpy(&i, raw.data(), 4); return "{" + std::to_string(i) + "}"; } break;
      case onnx::TensorProto::BOOL: if (raw.size() == 1) return std::string("{") + (raw[0] ? "1" : "0") + "}"; break;
      default: break;
    }
  }
  if (n == 1 && t.int64_data_size() == 1) return "{" + std::to_string(t.int64_data(0)) + "}";
  if (n == 1 && t.float_data_size() == 1) return "{" + number(t.float_data(0)) + "}";
  if (n == 1 && t.int32_data_size() == 1) return "{" + std::to_string(t.int32_data(0)) + "}";
  if (n <= 8 && t.data_type() == onnx::TensorProto::INT64 && t.has_raw_data() && t.raw_data().size() == size_t(n) * 8) {
    std::string s = "{";
    for (int64_t i = 0; i < n; ++i) {
      int64_t v;
      std::memcpy(&v, t.raw_data().data() + i * 8, 8);
      s += (i ? ", " : "") + std::to_string(v);
    }
    return s + "}";
  }
  return "<" + tensor_text(t) + ">";
}

class Printer {
 public:
  explicit Printer(std::ostringstream& os) : os_(os) {}

  void graph(const onnx::GraphProto& g, const std::string& indent, const std::string& title) {
    types_.clear();
    collect_types(g);
    auto inits = initializer_names(g);
    os_ << indent << title << "(";
    bool first = true;
    const std::string pad(indent.size() + title.size() + 1, ' ');
    for (const auto& in : g.input()) {
      if (inits.count(in.name())) continue;
      os_ << (first ? "" : ",\n" + pad) << "%" << in.name() << " : " << type_text(in.type());
      first = false;
    }
    os_ << ") {\n";
    body(g, indent + "  ");
    os_ << indent << "  return (";
    for (int i = 0; i < g.output_size(); ++i) os_ << (i ? ", " : "") << "%" << g.output(i).name();
    os_ << ")\n" << indent << "}\n";
    if (g.initializer_size()) {
      size_t bytes = 0;
      for (const auto& t : g.initializer()) bytes += t.raw_data().size() + 4 * (t.float_data_size() + t.int32_data_size()) +
                                                     8 * (t.int64_data_size() + t.double_data_size());
      // Initializers listed as graph inputs too (IR < 4 style, --keep-initializers-as-inputs) can be
      // overridden at run time: say how many.
      size_t as_inputs = 0;
      for (const auto& in : g.input()) as_inputs += inits.count(in.name());
      os_ << indent << "initializers (" << g.initializer_size() << ", " << bytes / 1024 << " KiB";
      if (as_inputs) os_ << "; " << as_inputs << " also graph inputs";
      os_ << "):\n";
      for (const auto& t : g.initializer()) os_ << indent << "  %" << t.name() << " : " << tensor_text(t) << "\n";
    }
  }

 private:
  void collect_types(const onnx::GraphProto& g) {
    for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
      for (const auto& vi : *list) types_[vi.name()] = type_text(vi.type());
  }

  void body(const onnx::GraphProto& g, const std::string& indent) {
    for (const auto& n : g.node()) {
      os_ << indent;
      for (int i = 0; i < n.output_size(); ++i) {
        auto t = types_.find(n.output(i));
        os_ << (i ? ", " : "") << "%" << n.output(i) << " : " << (t == types_.end() ? "Dynamic" : t->second);
      }
      os_ << " = " << (n.domain().empty() || n.domain() == "ai.onnx" ? "onnx" : n.domain()) << "::" << n.op_type();
      std::vector<const onnx::AttributeProto*> graphs;
      if (n.attribute_size()) {
        os_ << "[";
        for (int i = 0; i < n.attribute_size(); ++i) {
          const auto& a = n.attribute(i);
          os_ << (i ? ", " : "") << a.name() << "=" << attribute_text(a);
          if (a.has_g()) graphs.push_back(&a);
        }
        os_ << "]";
      }
      os_ << "(";
      for (int i = 0; i < n.input_size(); ++i) os_ << (i ? ", " : "") << (n.input(i).empty() ? "None" : "%" + n.input(i));
      os_ << ")";
      if (!n.doc_string().empty()) os_ << ", scope: " << n.doc_string();
      os_ << "\n";
      for (const auto* a : graphs) {
        auto saved = types_;
        graph(a->g(), indent + "  ", a->name() + ": graph");
        types_ = std::move(saved);
      }
    }
  }

  std::string attribute_text(const onnx::AttributeProto& a) {
    switch (a.type()) {
      case onnx::AttributeProto::INT: return std::to_string(a.i());
      case onnx::AttributeProto::FLOAT: return number(a.f());
      case onnx::AttributeProto::STRING: return "\"" + a.s() + "\"";
      case onnx::AttributeProto::TENSOR: return constant_text(a.t());
      case onnx::AttributeProto::GRAPH: return "<graph " + a.g().name() + ">";
      case onnx::AttributeProto::INTS: {
        std::string s = "[";
        for (int i = 0; i < a.ints_size(); ++i) s += (i ? ", " : "") + std::to_string(a.ints(i));
        return s + "]";
      }
      case onnx::AttributeProto::FLOATS: {
        std::string s = "[";
        for (int i = 0; i < a.floats_size(); ++i) s += (i ? ", " : "") + number(a.floats(i));
        return s + "]";
      }
      case onnx::AttributeProto::STRINGS: {
        std::string s = "[";
        for (int i = 0; i < a.strings_size(); ++i) s += (i ? ", \"" : "\"") + a.strings(i) + "\"";
        return s + "]";
      }
      default: return "<attribute type " + std::to_string(a.type()) + ">";
    }
  }

  std::ostringstream& os_;
  std::unordered_map<std::string, std::string> types_;
};

std::string elem_name(int32_t elem) {
  auto st = torch_dtype(elem);
  return st ? dtype_name(*st) : "element type " + std::to_string(elem);
}

}  // namespace

std::vector<OnnxInputInfo> onnx_inputs(const std::string& path) {
  auto model = load_onnx(path);
  auto inits = initializer_names(model.graph());
  std::vector<OnnxInputInfo> out;
  for (const auto& in : model.graph().input()) {
    if (inits.count(in.name())) continue;
    OnnxInputInfo info;
    info.name = in.name();
    const auto& t = in.type().tensor_type();
    info.dtype = elem_name(t.elem_type());
    for (const auto& d : t.shape().dim()) info.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<std::string> onnx_outputs(const std::string& path) {
  auto model = load_onnx(path);
  std::vector<std::string> out;
  for (const auto& o : model.graph().output()) out.push_back(o.name());
  return out;
}

std::string format_onnx_file(const std::string& path) {
  auto model = load_onnx(path);
  std::ostringstream os;
  os << "# ir_version " << model.ir_version() << ", opset";
  for (int i = 0; i < model.opset_import_size(); ++i) {
    const auto& op = model.opset_import(i);
    os << (i ? ", " : " ") << (op.domain().empty() ? "ai.onnx" : op.domain()) << " " << op.version();
  }
  if (!model.producer_name().empty()) os << ", producer " << model.producer_name() << " " << model.producer_version();
  os << "\n";
  Printer(os).graph(model.graph(), "", "graph");
  return os.str();
}

}  // namespace t2o::core
