#include "assemble/local_functions.hpp"

#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace t2o::core {

namespace {

// One module call a node came from.
struct Frame {
  std::string key;       // identity of the call: every call site from forward() down to it
  std::string instance;  // module path, "encoder.layers.0"
  std::string type;      // torch.typename of its class: "torch.nn.modules.linear.Linear", "__main__.Block"
};
using Path = std::vector<Frame>;  // outermost call first; empty at the top level of forward()

// TorchScript's qualified class name as torch.typename spells it: "__torch__.a.B" is a.B and
// "__torch__.B" is __main__.B; the ___torch_mangle_N parts (a type specialized per instance) dropped.
std::string python_type_name(const std::string& qualified) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = qualified.find('.', start);
    std::string part = qualified.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.rfind("___torch_mangle_", 0) != 0) parts.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.size() >= 2 && parts[0] == "__torch__") {
    if (parts.size() == 2) parts[0] = "__main__";
    else parts.erase(parts.begin());
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

// root: the call of the model's own forward() every node belongs to, as torch.onnx's root scope (none
// where torch2onnx.save's wrapper calls the model: that call is the first frame).
Path path_of(const torch::jit::Node* node, const Frame* root) {
  Path out;
  if (root) out.push_back(*root);
  if (!node) return out;
  auto cs = node->callstack();
  if (!cs) return out;
  std::string key, instance;
  for (const auto& entry : (*cs)->vec()) {
    // The call site tells apart two calls of one module; calls of plain functions are part of it.
    const auto& range = std::get<1>(entry);
    key += std::to_string(reinterpret_cast<uintptr_t>(range.source().get())) + ":" + std::to_string(range.start()) +
           "-" + std::to_string(range.end()) + "/";
    const auto& info = std::get<2>(entry);
    if (!info || !info->class_type() || !info->class_type()->name()) continue;
    instance += (instance.empty() ? "" : ".") + info->instance_name();
    key += info->instance_name() + "|";
    out.push_back({key, instance, python_type_name(info->class_type()->name()->qualifiedName())});
  }
  return out;
}

bool partial(const onnx::TypeProto& t) {
  switch (t.value_case()) {
    case onnx::TypeProto::kTensorType: return t.tensor_type().elem_type() == 0;
    case onnx::TypeProto::kSequenceType: return !t.sequence_type().has_elem_type() || partial(t.sequence_type().elem_type());
    case onnx::TypeProto::kOptionalType: return !t.optional_type().has_elem_type() || partial(t.optional_type().elem_type());
    default: return false;
  }
}

void drop_partial_types(onnx::NodeProto& n) {
  for (auto& a : *n.mutable_attribute()) {
    std::vector<onnx::GraphProto*> graphs;
    if (a.has_g()) graphs.push_back(a.mutable_g());
    for (auto& sub : *a.mutable_graphs()) graphs.push_back(&sub);
    for (auto* g : graphs) {
      for (auto* list : {g->mutable_input(), g->mutable_output(), g->mutable_value_info()})
        for (auto& v : *list)
          if (v.has_type() && partial(v.type())) v.clear_type();
      for (auto& inner : *g->mutable_node()) drop_partial_types(inner);
    }
  }
}

// Names a graph uses but does not define (its outer-scope values), in order of first use.
void free_names(const onnx::GraphProto& g, std::vector<std::string>& out, std::unordered_set<std::string>& seen) {
  std::unordered_set<std::string> defined;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(name);
  };
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) use(in);
    for (const auto& a : n.attribute()) {
      std::vector<std::string> inner;
      std::unordered_set<std::string> inner_seen;
      if (a.has_g()) free_names(a.g(), inner, inner_seen);
      for (const auto& sub : a.graphs()) free_names(sub, inner, inner_seen);
      for (const auto& name : inner) use(name);
    }
    for (const auto& o : n.output()) defined.insert(o);
  }
  for (const auto& o : g.output()) use(o.name());
}

// A node of the main graph as the extraction goes: an original node or a call of a function made.
struct Item {
  onnx::NodeProto node;
  Path path;
  size_t order = 0;                // position for the final order
  std::vector<std::string> reads;  // inputs, then the outer-scope values of its subgraphs
};

std::vector<std::string> reads_of(const onnx::NodeProto& n) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const auto& in : n.input())
    if (!in.empty() && seen.insert(in).second) out.push_back(in);
  for (const auto& a : n.attribute()) {
    if (a.has_g()) free_names(a.g(), out, seen);
    for (const auto& sub : a.graphs()) free_names(sub, out, seen);
  }
  return out;
}

// One call of a chosen module type, its nodes at the top level of the graph.
struct Instance {
  const Frame* frame = nullptr;
  std::vector<size_t> members;  // indices into the items, in graph order
  std::vector<std::string> inputs, outputs;
  std::string canonical;  // the body with values named by position: equal bodies, one function
};

// The body of an instance as text in which values are named by role (k-th input, output j of member
// i), subgraphs included; attribute values of the members themselves are left out (they may differ
// between the calls of one function: function attributes), those inside subgraphs kept.
std::string canonical_graph(const onnx::GraphProto& g, std::unordered_map<std::string, std::string> env,
                            const std::string& prefix);

std::string canonical_node(const onnx::NodeProto& n, const std::unordered_map<std::string, std::string>& env,
                           const std::string& prefix, bool attribute_values) {
  std::string s = n.domain() + "::" + n.op_type() + "(";
  for (const auto& in : n.input()) {
    auto it = env.find(in);
    s += (in.empty() ? std::string("-") : it == env.end() ? "?" + in : it->second) + ",";
  }
  s += ")->" + std::to_string(n.output_size()) + "[";
  for (const auto& a : n.attribute()) {
    s += a.name() + ":" + std::to_string((int)a.type());
    if (a.has_g()) s += "{" + canonical_graph(a.g(), env, prefix + "g") + "}";
    for (int k = 0; k < a.graphs_size(); ++k)
      s += "{" + canonical_graph(a.graphs(k), env, prefix + "g" + std::to_string(k)) + "}";
    if (attribute_values && !a.has_g() && a.graphs_size() == 0) {
      onnx::AttributeProto copy = a;
      s += "=" + copy.SerializeAsString();
    }
    s += ";";
  }
  return s + "]";
}

std::string canonical_graph(const onnx::GraphProto& g, std::unordered_map<std::string, std::string> env,
                            const std::string& prefix) {
  std::string s;
  for (int k = 0; k < g.input_size(); ++k) {
    env[g.input(k).name()] = prefix + ".in" + std::to_string(k);
    s += "in:" + g.input(k).type().SerializeAsString() + ";";
  }
  for (int k = 0; k < g.initializer_size(); ++k) {
    onnx::TensorProto t = g.initializer(k);
    env[t.name()] = prefix + ".init" + std::to_string(k);
    t.clear_name();
    s += "init:" + t.SerializeAsString() + ";";
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    s += canonical_node(n, env, prefix + "." + std::to_string(i), true) + "\n";
    for (int j = 0; j < n.output_size(); ++j) env[n.output(j)] = prefix + "." + std::to_string(i) + "." + std::to_string(j);
  }
  s += "out:";
  for (const auto& o : g.output()) {
    auto it = env.find(o.name());
    s += (it == env.end() ? "?" + o.name() : it->second) + ",";
  }
  return s;
}

// Nodes in an order where every value is made before it is read, as close to `order` as that allows.
bool topological_order(std::vector<Item>& items) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < items.size(); ++i)
    for (const auto& o : items[i].node.output())
      if (!o.empty()) producer[o] = i;
  std::vector<std::vector<size_t>> users(items.size());
  std::vector<size_t> waiting(items.size(), 0);
  for (size_t i = 0; i < items.size(); ++i) {
    std::unordered_set<size_t> from;
    for (const auto& r : items[i].reads) {
      auto p = producer.find(r);
      if (p != producer.end() && p->second != i && from.insert(p->second).second) {
        users[p->second].push_back(i);
        ++waiting[i];
      }
    }
  }
  using Entry = std::pair<size_t, size_t>;  // (order, index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (size_t i = 0; i < items.size(); ++i)
    if (!waiting[i]) ready.push({items[i].order, i});
  std::vector<Item> sorted;
  sorted.reserve(items.size());
  while (!ready.empty()) {
    size_t i = ready.top().second;
    ready.pop();
    for (size_t u : users[i])
      if (--waiting[u] == 0) ready.push({items[u].order, u});
    sorted.push_back(std::move(items[i]));
  }
  if (sorted.size() != items.size()) return false;
  items = std::move(sorted);
  return true;
}

class Extractor {
 public:
  Extractor(onnx::ModelProto& model, GraphBuilder& graph, const ExportOptions& options, const std::string& root_type)
      : model_(model), graph_(graph), options_(options) {
    // torch2onnx.save traces a wrapper (torch2onnx._Flat) that calls the model: that call is the root.
    // A program whose nodes name no module class has only torch2onnx's own root module: no root call.
    const std::string type = python_type_name(root_type);
    if (type != "torch2onnx._Flat" && type.rfind("torch2onnx.program.", 0) != 0) root_ = std::make_unique<Frame>(Frame{"root", "", type});
  }

  void run();

 private:
  bool chosen(const std::string& type) const {
    return options_.function_module_types.empty() || requested_.count(type) > 0;
  }
  void warn(const std::string& what) const {
    if (options_.warn) options_.warn(what);
  }
  // Members, inputs, outputs and canonical body of the call `frame` among the current items; false
  // when its nodes cannot become one call (a value leaves it and comes back through other nodes).
  bool describe(const Frame& frame, Instance& inst) const;
  void make_function(const std::vector<Instance>& group, const std::string& type);

  onnx::ModelProto& model_;
  GraphBuilder& graph_;
  const ExportOptions& options_;
  std::unique_ptr<Frame> root_;
  std::set<std::string> requested_;
  std::vector<Item> items_;
  std::unordered_set<std::string> initializers_, graph_outputs_;
  std::map<std::string, int> variants_;  // module type -> functions made for it
  std::set<std::string> domains_;
};

bool Extractor::describe(const Frame& frame, Instance& inst) const {
  inst.frame = &frame;
  std::unordered_set<size_t> member_set;
  for (size_t i = 0; i < items_.size(); ++i)
    for (const auto& f : items_[i].path)
      if (f.key == frame.key) {
        inst.members.push_back(i);
        member_set.insert(i);
        break;
      }
  if (inst.members.empty()) return false;
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < items_.size(); ++i)
    for (const auto& o : items_[i].node.output())
      if (!o.empty()) producer[o] = i;
  // Inputs: read by a member, made outside (the model's inputs, weights, other nodes' results);
  // torch.onnx lists the weights last.
  std::vector<std::string> values, weights;
  std::unordered_set<std::string> seen;
  for (size_t m : inst.members)
    for (const auto& r : items_[m].reads) {
      auto p = producer.find(r);
      if (p != producer.end() && member_set.count(p->second)) continue;
      if (seen.insert(r).second) (initializers_.count(r) ? weights : values).push_back(r);
    }
  inst.inputs = values;
  inst.inputs.insert(inst.inputs.end(), weights.begin(), weights.end());
  // Outputs: made by a member, read outside it or returned by the model.
  std::unordered_map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < items_.size(); ++i)
    for (const auto& r : items_[i].reads) readers[r].push_back(i);
  for (size_t m : inst.members)
    for (const auto& o : items_[m].node.output()) {
      if (o.empty()) continue;
      bool outside = graph_outputs_.count(o) > 0;
      auto rd = readers.find(o);
      if (rd != readers.end())
        for (size_t u : rd->second) outside |= !member_set.count(u);
      if (outside) inst.outputs.push_back(o);
    }
  if (inst.outputs.empty()) {  // nothing of it is read: no call to make
    inst.members.clear();
    return false;
  }
  // One call cannot hold nodes between which a value passes through a node outside: the call would
  // need its own result. Such a call stays inlined.
  std::vector<size_t> stack;
  std::unordered_set<size_t> reached;
  for (const auto& o : inst.outputs) {
    auto rd = readers.find(o);
    if (rd == readers.end()) continue;
    for (size_t u : rd->second)
      if (!member_set.count(u) && reached.insert(u).second) stack.push_back(u);
  }
  while (!stack.empty()) {
    size_t i = stack.back();
    stack.pop_back();
    for (const auto& o : items_[i].node.output()) {
      auto rd = readers.find(o);
      if (rd == readers.end()) continue;
      for (size_t u : rd->second) {
        if (member_set.count(u)) return false;
        if (reached.insert(u).second) stack.push_back(u);
      }
    }
  }
  std::unordered_map<std::string, std::string> env;
  for (size_t k = 0; k < inst.inputs.size(); ++k) env[inst.inputs[k]] = "in" + std::to_string(k);
  std::string s;
  for (size_t i = 0; i < inst.members.size(); ++i) {
    const auto& n = items_[inst.members[i]].node;
    s += canonical_node(n, env, "n" + std::to_string(i), false) + "\n";
    for (int j = 0; j < n.output_size(); ++j) env[n.output(j)] = "n" + std::to_string(i) + "." + std::to_string(j);
  }
  s += "out:";
  for (const auto& o : inst.outputs) s += env[o] + ",";
  inst.canonical = std::move(s);
  return true;
}

void Extractor::make_function(const std::vector<Instance>& group, const std::string& type) {
  // Domain and name from the module's type, as torch.onnx: torch.nn.modules.linear / Linear; a second
  // body of one type (its calls differ in structure) is Linear.1, and so on.
  const size_t dot = type.rfind('.');
  const std::string domain = dot == std::string::npos ? type : type.substr(0, dot);
  std::string name = dot == std::string::npos ? type : type.substr(dot + 1);
  int& variant = variants_[type];
  if (variant > 0) name += "." + std::to_string(variant);
  ++variant;
  domains_.insert(domain);

  const Instance& ref = group.front();
  // Attributes whose value differs between the calls become function attributes, named as torch.onnx
  // names them (inferred::OpType_attr, then .1, .2 for the next of the same name).
  std::map<std::pair<size_t, int>, std::string> refs;  // (member, attribute) -> function attribute
  std::map<std::string, int> base_count;
  std::vector<std::string> attribute_names;
  for (size_t i = 0; i < ref.members.size(); ++i) {
    const auto& n = items_[ref.members[i]].node;
    for (int a = 0; a < n.attribute_size(); ++a) {
      const auto& attr = n.attribute(a);
      if (attr.has_g() || attr.graphs_size() > 0) continue;  // equal in every call (canonical form)
      const std::string bytes = attr.SerializeAsString();
      bool differs = false;
      for (size_t g = 1; g < group.size() && !differs; ++g)
        differs = items_[group[g].members[i]].node.attribute(a).SerializeAsString() != bytes;
      if (!differs) continue;
      std::string attr_name = "inferred::" + n.op_type() + "_" + attr.name();
      auto count = base_count.find(attr_name);
      if (count == base_count.end()) base_count[attr_name] = 1;
      else attr_name += "." + std::to_string(count->second++);
      refs[{i, a}] = attr_name;
      attribute_names.push_back(attr_name);
    }
  }

  onnx::FunctionProto* f = model_.add_functions();
  f->set_name(name);
  f->set_domain(domain);
  f->set_doc_string("module " + type + ", " + std::to_string(group.size()) + " call(s)");
  for (const auto& in : ref.inputs) f->add_input(in);
  for (const auto& out : ref.outputs) f->add_output(out);
  for (const auto& a : attribute_names) f->add_attribute(a);
  for (size_t i = 0; i < ref.members.size(); ++i) {
    onnx::NodeProto* n = f->add_node();
    *n = items_[ref.members[i]].node;
    for (int a = 0; a < n->attribute_size(); ++a) {
      auto r = refs.find({i, a});
      if (r == refs.end()) continue;
      onnx::AttributeProto* attr = n->mutable_attribute(a);
      onnx::AttributeProto by_ref;
      by_ref.set_name(attr->name());
      by_ref.set_type(attr->type());
      by_ref.set_ref_attr_name(r->second);
      *attr = std::move(by_ref);
    }
  }

  // Each call replaces its nodes; it belongs to the calls around it (path without its own frame).
  std::vector<bool> removed(items_.size(), false);
  std::vector<Item> calls;
  for (const auto& inst : group) {
    Item call;
    call.node.set_op_type(name);
    call.node.set_domain(domain);
    call.node.set_name(graph_.unique_name(inst.frame->instance.empty() ? "/" + name : inst.frame->instance));
    for (const auto& in : inst.inputs) call.node.add_input(in);
    for (const auto& out : inst.outputs) call.node.add_output(out);
    for (const auto& [pos, attr_name] : refs) {
      onnx::AttributeProto* attr = call.node.add_attribute();
      *attr = items_[inst.members[pos.first]].node.attribute(pos.second);
      attr->set_name(attr_name);
    }
    const Item& last = items_[inst.members.back()];
    for (const auto& fr : last.path) {
      if (fr.key == inst.frame->key) break;
      call.path.push_back(fr);
    }
    call.order = last.order;
    call.reads = reads_of(call.node);
    // Provenance: the call stands for the module's forward(); its TorchScript node is the last one.
    NodeOrigin origin;
    auto o = graph_.provenance().find(last.node.name());
    if (o != graph_.provenance().end()) origin = o->second;
    origin.torch_op = "module call";
    origin.location = inst.frame->instance + " (" + type + ")";
    origin.pack = "functions";
    graph_.record_origin(call.node.name(), origin);
    for (size_t m : inst.members) removed[m] = true;
    calls.push_back(std::move(call));
  }
  std::vector<Item> kept;
  kept.reserve(items_.size());
  for (size_t i = 0; i < items_.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(items_[i]));
  for (auto& c : calls) kept.push_back(std::move(c));
  items_ = std::move(kept);
  if (!topological_order(items_))  // ruled out by describe(): a call that feeds itself
    throw ExportError("--export-modules-as-functions: the calls of " + type + " cannot be ordered (internal error)");
}

void Extractor::run() {
  onnx::GraphProto& g = *model_.mutable_graph();
  for (const auto& t : g.initializer()) initializers_.insert(t.name());
  for (const auto& o : g.output()) graph_outputs_.insert(o.name());
  auto& provenance = graph_.provenance();
  auto torch_node_of = [&](const std::string& onnx_name) -> const torch::jit::Node* {
    auto it = provenance.find(onnx_name);
    return it == provenance.end() ? nullptr : static_cast<const torch::jit::Node*>(it->second.torch_node);
  };
  for (int i = 0; i < g.node_size(); ++i) {
    Item item;
    item.node = g.node(i);
    item.path = path_of(torch_node_of(item.node.name()), root_.get());
    item.order = (size_t)i;
    item.reads = reads_of(item.node);
    items_.push_back(std::move(item));
  }
  // Every module type of the model, calls inside loops and branches included (for the message).
  std::set<std::string> types;
  std::map<std::string, Frame> nested_calls;  // key -> a call seen inside a subgraph
  std::function<void(const onnx::GraphProto&, bool)> scan = [&](const onnx::GraphProto& graph, bool nested) {
    for (const auto& n : graph.node()) {
      if (nested)
        for (const auto& f : path_of(torch_node_of(n.name()), root_.get())) {
          types.insert(f.type);
          nested_calls.emplace(f.key, f);
        }
      for (const auto& a : n.attribute()) {
        if (a.has_g()) scan(a.g(), true);
        for (const auto& sub : a.graphs()) scan(sub, true);
      }
    }
  };
  scan(g, false);
  for (const auto& item : items_)
    for (const auto& f : item.path) types.insert(f.type);
  for (const auto& t : options_.function_module_types) {
    // Accepted as torch.typename gives it, or as TorchScript names the class (__torch__.…).
    const std::string name = t.rfind("__torch__.", 0) == 0 ? python_type_name(t) : t;
    if (!types.count(name)) {
      std::string list;
      for (const auto& known : types) list += (list.empty() ? "" : ", ") + known;
      throw ExportError("--export-modules-as-functions: no module of type '" + t + "' in the model; its module types are: " +
                        (list.empty() ? "(none: forward() calls no submodule)" : list));
    }
    requested_.insert(name);
  }

  // The calls of chosen types, each with its height: 0 for one that holds no other chosen call, one
  // more than the highest it holds. Lower heights first, so a function's body calls the functions
  // made before it.
  std::map<std::string, Frame> frames;  // key -> frame
  std::map<std::string, size_t> height, first_seen;
  for (size_t i = 0; i < items_.size(); ++i) {
    std::vector<const Frame*> on_path;
    for (const auto& f : items_[i].path)
      if (chosen(f.type)) on_path.push_back(&f);
    for (size_t k = 0; k < on_path.size(); ++k) {
      const Frame& f = *on_path[k];
      frames.emplace(f.key, f);
      first_seen.emplace(f.key, i);
      height[f.key] = std::max(height[f.key], on_path.size() - 1 - k);
    }
  }
  for (const auto& [key, f] : nested_calls)
    if (chosen(f.type) && !frames.count(key))
      warn("--export-modules-as-functions: " + f.instance + " (" + f.type +
           ") stays inlined: it is called inside a loop or branch (a subgraph)");
  size_t max_height = 0;
  for (const auto& h : height) max_height = std::max(max_height, h.second);
  for (size_t h = 0; h <= max_height && !frames.empty(); ++h) {
    std::vector<std::pair<size_t, const Frame*>> calls;
    for (const auto& [key, f] : frames)
      if (height[key] == h) calls.push_back({first_seen[key], &f});
    std::sort(calls.begin(), calls.end());
    // Calls of one type with equal bodies share a function (attributes may differ).
    std::vector<std::pair<std::string, std::vector<Instance>>> groups;  // type -> instances
    for (const auto& c : calls) {
      Instance inst;
      if (!describe(*c.second, inst)) {
        if (!inst.members.empty())
          warn("--export-modules-as-functions: " + c.second->instance + " (" + c.second->type +
               ") stays inlined: a value leaves its nodes and comes back through nodes outside it");
        continue;
      }
      bool placed = false;
      for (auto& [type, insts] : groups)
        if (type == c.second->type && insts.front().canonical == inst.canonical) {
          insts.push_back(std::move(inst));
          placed = true;
          break;
        }
      if (!placed) groups.push_back({c.second->type, {std::move(inst)}});
    }
    // Instances describe positions in items_, which each function changes: redo the others'.
    for (size_t k = 0; k < groups.size(); ++k) {
      std::vector<Instance> fresh;
      for (const auto& old : groups[k].second) {
        Instance inst;
        if (describe(*old.frame, inst) && inst.canonical == old.canonical) fresh.push_back(std::move(inst));
      }
      if (!fresh.empty()) make_function(fresh, groups[k].first);
    }
  }

  // The graph, its opset imports (one per function domain, version 1, as torch.onnx), and the
  // functions' imports (the model's: their bodies hold ops of any domain and calls of other functions).
  g.clear_node();
  std::unordered_set<std::string> made;
  for (auto& item : items_) {
    for (const auto& o : item.node.output()) made.insert(o);
    *g.add_node() = std::move(item.node);
  }
  std::set<std::string> imported;
  for (const auto& op : model_.opset_import()) imported.insert(op.domain());
  for (const auto& d : domains_)
    if (!imported.count(d)) {
      auto* op = model_.add_opset_import();
      op->set_domain(d);
      op->set_version(1);
    }
  // A function imports, at the model's versions, the default domain and the domains its body uses.
  std::map<std::string, int64_t> versions;
  for (const auto& op : model_.opset_import()) versions[op.domain()] = op.version();
  std::function<void(const onnx::NodeProto&, std::set<std::string>&)> uses = [&](const onnx::NodeProto& n,
                                                                                  std::set<std::string>& out) {
    out.insert(n.domain());
    for (const auto& a : n.attribute()) {
      if (a.has_g())
        for (const auto& sub : a.g().node()) uses(sub, out);
      for (const auto& g2 : a.graphs())
        for (const auto& sub : g2.node()) uses(sub, out);
    }
  };
  for (auto& f : *model_.mutable_functions()) {
    std::set<std::string> used = {""};
    for (const auto& n : f.node()) uses(n, used);
    f.clear_opset_import();
    for (const auto& d : used) {
      auto* op = f.add_opset_import();
      op->set_domain(d);
      op->set_version(versions.count(d) ? versions[d] : 1);
    }
  }
  // value_info of values now inside functions goes.
  for (const auto& in : g.input()) made.insert(in.name());
  for (const auto& t : g.initializer()) made.insert(t.name());
  auto* vi = g.mutable_value_info();
  vi->erase(std::remove_if(vi->begin(), vi->end(), [&](const onnx::ValueInfoProto& v) { return !made.count(v.name()); }),
            vi->end());
}

}  // namespace

void untype_partial_function_values(onnx::ModelProto& model) {
  for (auto& f : *model.mutable_functions())
    for (auto& n : *f.mutable_node()) drop_partial_types(n);
}

void extract_local_functions(onnx::ModelProto& model, GraphBuilder& graph, const ExportOptions& options,
                             const std::string& root_type) {
  if (options.opset < 15)
    throw ExportError("--export-modules-as-functions needs --opset 15 or later (the target is " +
                      std::to_string(options.opset) +
                      "): ONNX local functions need IR version 8, which comes with opset 15");
  Extractor(model, graph, options, root_type).run();
}

}  // namespace t2o::core
