// torch.save archives: the zip, the pickle machine, the tensors (torch_pickle.hpp says what is read).
//
// Three parts, each checking what it reads against the bytes it was given:
//  - Zip (torch_save_zip.cpp): the central directory of an in-memory zip (zip64 too), every member inside
//    the buffer;
//  - Unpickler: the protocol-2 opcodes torch.save writes, building a graph of Nodes (a container is
//    frozen once put inside another, so the graph has no cycles and its depth is known when built);
//  - Records: one c10::Storage per storage key, aliasing the buffer or copied, and the tensors' views
//    of it, checked against the storage's bytes.
// At STOP the graph becomes a c10::IValue (shared nodes stay shared).
#include "program/torch_pickle.hpp"
#include "program/torch_save_zip.hpp"

#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/core/printable.hpp>

#include <ATen/core/Dict.h>
#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/jit_type.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/ScalarType.h>
#include <c10/core/Storage.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace t2o::core::program {
namespace {

// Containers inside containers (the graph's depth: conversion, destruction and whoever walks the result
// recurse over it).
constexpr uint32_t kMaxNesting = 1000;
// Dimensions of one tensor.
constexpr size_t kMaxRank = 64;
// Where aliased records must start in memory (torch.save aligns them so in the file).
constexpr uintptr_t kAliasAlignment = 64;

// The zip, Refusal, le(), shown(): torch_save_zip.hpp.
using namespace torch_save_zip;

// ---- dtypes and globals ---------------------------------------------------------------------------------

const std::unordered_map<std::string, c10::ScalarType>& dtype_names() {
  using S = c10::ScalarType;
  static const std::unordered_map<std::string, S> names = {
      {"float32", S::Float},   {"float", S::Float},         {"float64", S::Double},       {"double", S::Double},
      {"float16", S::Half},    {"half", S::Half},           {"bfloat16", S::BFloat16},    {"int64", S::Long},
      {"long", S::Long},       {"int32", S::Int},           {"int", S::Int},              {"int16", S::Short},
      {"short", S::Short},     {"int8", S::Char},           {"uint8", S::Byte},           {"bool", S::Bool},
      {"complex64", S::ComplexFloat}, {"cfloat", S::ComplexFloat}, {"complex128", S::ComplexDouble},
      {"cdouble", S::ComplexDouble},  {"complex32", S::ComplexHalf}, {"chalf", S::ComplexHalf}};
  return names;
}

// PyTorch 2.x dtypes (and quantized ones) libtorch 1.13 cannot hold: named in the refusal.
bool known_unsupported_dtype(const std::string& name) {
  static const char* const names[] = {"uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2",
                                      "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
                                      "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "bits1x8", "bits2x4",
                                      "bits4x2", "bits8", "bits16"};
  for (const char* n : names)
    if (name == n) return true;
  // int1..int7, uint1..uint7
  const size_t digits = name.rfind("int") == 0 ? 3 : name.rfind("uint") == 0 ? 4 : 0;
  return digits && name.size() == digits + 1 && name[digits] >= '1' && name[digits] <= '7';
}

const std::unordered_map<std::string, c10::ScalarType>& storage_names() {
  using S = c10::ScalarType;
  static const std::unordered_map<std::string, S> names = {
      {"DoubleStorage", S::Double}, {"FloatStorage", S::Float},   {"HalfStorage", S::Half},
      {"BFloat16Storage", S::BFloat16}, {"LongStorage", S::Long}, {"IntStorage", S::Int},
      {"ShortStorage", S::Short},   {"CharStorage", S::Char},     {"ByteStorage", S::Byte},
      {"BoolStorage", S::Bool},     {"ComplexFloatStorage", S::ComplexFloat},
      {"ComplexDoubleStorage", S::ComplexDouble}};
  return names;
}

std::string dtype_text(c10::ScalarType t) {
  for (const auto& [name, type] : dtype_names())
    if (type == t && name.find_first_of("0123456789") != std::string::npos) return "torch." + name;
  for (const auto& [name, type] : dtype_names())
    if (type == t) return "torch." + name;
  return "dtype " + std::to_string((int)t);
}

enum class Global : uint8_t {
  OrderedDict,
  RebuildTensorV2,
  RebuildTensorV3,
  RebuildParameter,
  RebuildParameterWithState,
  RebuildFromTypeV2,
  TensorClass,
  ParameterClass,
  TypedStorage,
  UntypedStorage,
  Dtype,
};

// ---- the pickle's values ----------------------------------------------------------------------------------

enum class Kind : uint8_t { None, Bool, Int, Float, Str, Tensor, Tuple, List, Dict, Global, Storage };

struct Node;
using NodeP = std::shared_ptr<Node>;

struct Node {
  explicit Node(Kind k) : kind(k) {}
  Kind kind;
  bool frozen = false;  // put inside a container or tuple: its contents are final
  bool pure = true;     // no global or storage inside, at any depth
  uint32_t depth = 0;   // containers from here down (0 for a leaf)
  bool b = false;
  int64_t i = 0;        // Int; Storage: its numel
  double f = 0;
  std::string s;        // Str; Global: its dotted name; Storage: its key
  uint64_t key_id = 0;  // Str used as a dict key: its interned id (0: not yet)
  at::Tensor t;
  std::vector<NodeP> items;  // Tuple, List; Dict: key, value, key, value, ...
  std::unique_ptr<std::unordered_map<uint64_t, size_t>> str_keys, int_keys;  // Dict: key -> index of its key in items
  Global g = Global::OrderedDict;
  c10::ScalarType dtype = c10::ScalarType::Undefined;  // Global TypedStorage/Dtype; Storage (typed)
  bool untyped = false;                                 // Storage: a torch.UntypedStorage (numel is bytes)
};

std::string describe(const Node& n) {
  switch (n.kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Int: return "an int";
    case Kind::Float: return "a float";
    case Kind::Str: return "a str";
    case Kind::Tensor: return "a tensor";
    case Kind::Tuple: return "a tuple";
    case Kind::List: return "a list";
    case Kind::Dict: return "a dict";
    case Kind::Global: return n.s;
    case Kind::Storage: return "a storage";
  }
  return "a value";
}

// ---- storages and tensors ----------------------------------------------------------------------------------

class Records {
 public:
  Records(const Zip& zip, std::string top, bool big_endian, std::shared_ptr<const void> owner)
      : zip_(zip), top_(std::move(top)), big_endian_(big_endian), owner_(std::move(owner)) {}

  at::Tensor tensor(const Node& storage, c10::ScalarType dtype, const Node& offset, const Node& sizes,
                    const Node& strides) {
    if (storage.kind != Kind::Storage) refuse("a tensor's storage is " + describe(storage));
    if (offset.kind != Kind::Int) refuse("a tensor's storage offset is " + describe(offset));
    const std::vector<int64_t> size = int_tuple(sizes, "sizes"), stride = int_tuple(strides, "strides");
    if (size.size() != stride.size())
      refuse("a tensor has " + std::to_string(size.size()) + " sizes but " + std::to_string(stride.size()) + " strides");
    if (size.size() > kMaxRank) refuse("a tensor of rank " + std::to_string(size.size()) + " (at most 64)");
    if (offset.i < 0) refuse("a tensor's storage offset is negative (" + std::to_string(offset.i) + ")");
    for (size_t d = 0; d < size.size(); ++d)
      if (size[d] < 0 || stride[d] < 0) refuse("a tensor's size or stride is negative (" + shape_text(size, stride) + ")");
    const uint64_t item = c10::elementSize(dtype);
    Entry& e = entry(storage, dtype);
    // Elements: their count fits int64; the last one's end lies inside the storage.
    const bool empty = std::find(size.begin(), size.end(), 0) != size.end();
    unsigned __int128 numel = 1, last = (unsigned __int128)offset.i;
    for (size_t d = 0; d < size.size() && !empty; ++d) {
      numel *= (uint64_t)size[d];
      if (numel > (unsigned __int128)std::numeric_limits<int64_t>::max())
        refuse("a tensor of shape " + shape_text(size, stride) + " has more than 2^63 elements");
      last += (unsigned __int128)(uint64_t)(size[d] - 1) * (uint64_t)stride[d];
      if (last >= e.nbytes) break;  // past the end already: refused below, before anything overflows
    }
    const unsigned __int128 end = empty ? (unsigned __int128)offset.i * item
                                  : last >= e.nbytes ? (unsigned __int128)e.nbytes + 1 : (last + 1) * item;
    if (end > e.nbytes)
      refuse("a " + dtype_text(dtype) + " tensor of " + shape_text(size, stride) + " at offset " +
             std::to_string(offset.i) + " needs " + (!empty && last >= e.nbytes ? "more than " + std::to_string(e.nbytes) : big_text(end)) + " bytes of storage record " + shown(e.name) +
             ", which has " + std::to_string(e.nbytes));
    if (dtype == c10::ScalarType::Bool && !e.bool_checked) {
      const auto* p = static_cast<const unsigned char*>(e.storage.data_ptr().get());
      for (uint64_t k = 0; k < e.nbytes; ++k)
        if (p[k] > 1)
          refuse("storage record " + shown(e.name) + " of a torch.bool tensor holds byte " + std::to_string(p[k]) +
                 " at " + std::to_string(k) + " (0 or 1 expected)");
      e.bool_checked = true;
    }
    auto t = at::detail::make_tensor<c10::TensorImpl>(c10::Storage(e.storage),
                                                      c10::DispatchKeySet(c10::DispatchKey::CPU),
                                                      c10::scalarTypeToTypeMeta(dtype));
    t.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride, offset.i);
    return t;
  }

 private:
  struct Entry {
    std::string name;
    c10::Storage storage;
    uint64_t nbytes = 0;
    uint64_t swap_unit = 1;
    bool bool_checked = false;
  };

  static std::vector<int64_t> int_tuple(const Node& n, const char* what) {
    if (n.kind != Kind::Tuple && n.kind != Kind::List) refuse(std::string("a tensor's ") + what + " are " + describe(n));
    std::vector<int64_t> v;
    for (const NodeP& x : n.items) {
      if (x->kind != Kind::Int) refuse(std::string("a tensor's ") + what + " hold " + describe(*x));
      v.push_back(x->i);
    }
    return v;
  }
  static std::string shape_text(const std::vector<int64_t>& size, const std::vector<int64_t>& stride) {
    std::string s = "shape [";
    for (size_t d = 0; d < size.size(); ++d) s += (d ? "," : "") + std::to_string(size[d]);
    s += "] strides [";
    for (size_t d = 0; d < stride.size(); ++d) s += (d ? "," : "") + std::to_string(stride[d]);
    return s + "]";
  }
  static std::string big_text(unsigned __int128 v) {
    if (v <= std::numeric_limits<uint64_t>::max()) return std::to_string((uint64_t)v);
    return "more than 2^64";
  }
  static uint64_t swap_unit(c10::ScalarType t) {
    return c10::isComplexType(t) ? c10::elementSize(t) / 2 : c10::elementSize(t);
  }

  // The storage of a key: made on its first tensor (aliasing the buffer or copied), then shared.
  Entry& entry(const Node& storage, c10::ScalarType dtype) {
    auto it = entries_.find(storage.s);
    if (it != entries_.end()) {
      if (big_endian_ && it->second.swap_unit != swap_unit(dtype))
        refuse("big-endian storage record " + shown(it->second.name) + " is viewed with elements of different sizes");
      return it->second;
    }
    Entry e;
    e.name = top_ + "/data/" + storage.s;
    const Member* m = zip_.find(e.name);
    if (!m) refuse("storage record " + shown(e.name) + " is missing");
    const std::string_view bytes = zip_.stored(*m, false);
    const uint64_t unit = storage.untyped ? 1 : c10::elementSize(storage.dtype);
    if (storage.i < 0) refuse("storage " + shown(storage.s) + " claims " + std::to_string(storage.i) + " elements");
    const unsigned __int128 claimed = (unsigned __int128)(uint64_t)storage.i * unit;
    if (claimed > bytes.size())
      refuse("storage record " + shown(e.name) + " holds " + std::to_string(bytes.size()) + " bytes, its storage claims " +
             big_text(claimed) + " (" + std::to_string(storage.i) + " " +
             (storage.untyped ? std::string("bytes") : dtype_text(storage.dtype) + " elements") + ")");
    e.nbytes = (uint64_t)claimed;
    e.swap_unit = swap_unit(dtype);
    const unsigned char* src = reinterpret_cast<const unsigned char*>(bytes.data());
    if (e.nbytes > 0 && (!big_endian_ || e.swap_unit == 1) && reinterpret_cast<uintptr_t>(src) % kAliasAlignment == 0) {
      auto holder = std::make_unique<std::shared_ptr<const void>>(owner_);
      c10::DataPtr data(const_cast<unsigned char*>(src), holder.get(),
                        [](void* ctx) { delete static_cast<std::shared_ptr<const void>*>(ctx); },
                        c10::Device(c10::DeviceType::CPU));
      holder.release();
      e.storage = c10::Storage(c10::Storage::use_byte_size_t(), (size_t)e.nbytes, std::move(data), nullptr, false);
    } else {
      e.storage = c10::Storage(c10::Storage::use_byte_size_t(), (int64_t)e.nbytes, c10::GetDefaultCPUAllocator(), false);
      auto* dst = static_cast<unsigned char*>(e.storage.data_ptr().get());
      if (e.nbytes) std::memcpy(dst, src, e.nbytes);
      if (big_endian_ && e.swap_unit > 1)
        for (uint64_t k = 0; k + e.swap_unit <= e.nbytes; k += e.swap_unit) std::reverse(dst + k, dst + k + e.swap_unit);
    }
    return entries_.emplace(storage.s, std::move(e)).first->second;
  }

  const Zip& zip_;
  std::string top_;
  bool big_endian_;
  std::shared_ptr<const void> owner_;
  std::unordered_map<std::string, Entry> entries_;
};

// ---- the pickle machine -----------------------------------------------------------------------------------

class Unpickler {
 public:
  Unpickler(std::string_view pickle, Records& records)
      : p_(reinterpret_cast<const unsigned char*>(pickle.data())), n_(pickle.size()), records_(records) {}

  NodeP run() {
    try {
      while (true) {
        op_pos_ = pos_;
        const unsigned char op = *take(1);
        if (op == '.') break;  // STOP
        step(op);
      }
    } catch (Refusal& r) {
      refuse("data.pkl, byte " + std::to_string(op_pos_) + ": " + r.what);
    }
    if (stack_.size() <= floor()) refuse("data.pkl: STOP with nothing to return");
    NodeP result = stack_.back();
    if (!result->pure) refuse("data.pkl holds " + describe(*find_impure(*result)) + " where data was expected");
    return result;
  }

 private:
  // ---- reading
  const unsigned char* take(size_t k) {
    if (k > n_ - pos_) refuse("the pickle is truncated (" + std::to_string(k) + " bytes wanted, " + std::to_string(n_ - pos_) + " left)");
    const unsigned char* q = p_ + pos_;
    pos_ += k;
    return q;
  }
  std::string line() {
    const void* nl = std::memchr(p_ + pos_, '\n', n_ - pos_);
    if (!nl) refuse("the pickle is truncated (a GLOBAL without its newline)");
    const size_t len = static_cast<const unsigned char*>(nl) - (p_ + pos_);
    std::string s(reinterpret_cast<const char*>(take(len)), len);
    take(1);
    return s;
  }

  // ---- the stack and marks
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  NodeP pop(const char* op) {
    if (stack_.size() <= floor()) refuse(std::string(op) + " on an empty stack");
    NodeP n = std::move(stack_.back());
    stack_.pop_back();
    return n;
  }
  const NodeP& top(const char* op) const {
    if (stack_.size() <= floor()) refuse(std::string(op) + " on an empty stack");
    return stack_.back();
  }
  std::vector<NodeP> pop_mark(const char* op) {
    if (marks_.empty()) refuse(std::string(op) + " without a MARK");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<NodeP> items(std::make_move_iterator(stack_.begin() + m), std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }
  void push(NodeP n) { stack_.push_back(std::move(n)); }

  // ---- values
  static NodeP make(Kind k) { return std::make_shared<Node>(k); }
  NodeP make_int(int64_t v) {
    NodeP n = make(Kind::Int);
    n->i = v;
    return n;
  }
  static void adopt(Node& parent, const NodeP& child) {
    if (child->depth + 1 > kMaxNesting) refuse("containers nested deeper than " + std::to_string(kMaxNesting));
    parent.depth = std::max(parent.depth, child->depth + 1);
    parent.pure = parent.pure && child->pure;
    child->frozen = true;
  }
  NodeP make_tuple(std::vector<NodeP> items) {
    NodeP n = make(Kind::Tuple);
    n->depth = 1;
    for (const NodeP& x : items) adopt(*n, x);
    n->items = std::move(items);
    return n;
  }
  NodeP make_container(Kind k) {
    NodeP n = make(k);
    n->depth = 1;
    if (k == Kind::Dict) {
      n->str_keys = std::make_unique<std::unordered_map<uint64_t, size_t>>();
      n->int_keys = std::make_unique<std::unordered_map<uint64_t, size_t>>();
    }
    return n;
  }
  Node& mutable_container(const NodeP& n, Kind k, const char* op) {
    if (n->kind != k) refuse(std::string(op) + " on " + describe(*n));
    if (n->frozen) refuse(std::string(op) + " on " + describe(*n) + " already inside another container (a cycle?)");
    return *n;
  }
  void append(Node& list, const NodeP& item) {
    if (item.get() == &list) refuse("a list inside itself");
    if (!item->pure) refuse("a list holds " + describe(*find_impure(*item)));
    adopt(list, item);
    list.items.push_back(item);
  }
  void set_item(Node& dict, const NodeP& key, const NodeP& value) {
    if (!value->pure) refuse("a dict holds " + describe(*find_impure(*value)));
    if (value.get() == &dict) refuse("a dict inside itself");
    std::unordered_map<uint64_t, size_t>* keys = nullptr;
    uint64_t k = 0;
    if (key->kind == Kind::Str) {
      if (!key->key_id) key->key_id = interned_.emplace(key->s, interned_.size() + 1).first->second;
      keys = dict.str_keys.get();
      k = key->key_id;
    } else if (key->kind == Kind::Int) {
      keys = dict.int_keys.get();
      k = (uint64_t)key->i;
    } else {
      refuse("a dict key is " + describe(*key) + " (str or int expected)");
    }
    adopt(dict, key);
    adopt(dict, value);
    auto [it, fresh] = keys->emplace(k, dict.items.size());
    if (fresh) {
      dict.items.push_back(key);
      dict.items.push_back(value);
    } else {
      dict.items[it->second + 1] = value;  // Python: the key keeps its place, the value is replaced
    }
  }
  static const Node* find_impure(const Node& n) {
    const Node* at = &n;
    while (at->kind == Kind::Tuple || at->kind == Kind::List || at->kind == Kind::Dict) {
      const Node* next = nullptr;
      for (const NodeP& x : at->items)
        if (!x->pure) {
          next = x.get();
          break;
        }
      if (!next) break;
      at = next;
    }
    return at;
  }

  // ---- globals
  NodeP global(const std::string& module, const std::string& name) {
    NodeP n = make(Kind::Global);
    n->pure = false;
    n->s = module + "." + name;
    static const std::unordered_map<std::string, Global> known = {
        {"collections.OrderedDict", Global::OrderedDict},
        {"torch._utils._rebuild_tensor_v2", Global::RebuildTensorV2},
        {"torch._utils._rebuild_tensor_v3", Global::RebuildTensorV3},
        {"torch._utils._rebuild_parameter", Global::RebuildParameter},
        {"torch._utils._rebuild_parameter_with_state", Global::RebuildParameterWithState},
        {"torch._tensor._rebuild_from_type_v2", Global::RebuildFromTypeV2},
        {"torch.Tensor", Global::TensorClass},
        {"torch._tensor.Tensor", Global::TensorClass},
        {"torch.nn.parameter.Parameter", Global::ParameterClass},
        {"torch.nn.Parameter", Global::ParameterClass},
        {"torch.storage.UntypedStorage", Global::UntypedStorage},
        {"torch.UntypedStorage", Global::UntypedStorage},
        {"torch._UntypedStorage", Global::UntypedStorage}};
    if (auto it = known.find(n->s); it != known.end()) {
      n->g = it->second;
      return n;
    }
    if (module == "torch") {
      if (auto it = storage_names().find(name); it != storage_names().end()) {
        n->g = Global::TypedStorage;
        n->dtype = it->second;
        return n;
      }
      if (auto it = dtype_names().find(name); it != dtype_names().end()) {
        n->g = Global::Dtype;
        n->dtype = it->second;
        return n;
      }
      if (known_unsupported_dtype(name))
        refuse("a tensor of dtype " + shown(n->s) + ", which libtorch 1.13 does not have");
    }
    refuse("unsupported pickle global " + shown(n->s) +
           " (only tensors, parameters, dicts, lists, tuples, numbers, strings and None are read: a custom class or "
           "a tensor subclass?)");
  }

  NodeP persistent_load(const NodeP& pid) {
    const auto& v = pid->items;
    if (pid->kind != Kind::Tuple || v.size() != 5 || v[0]->kind != Kind::Str || v[0]->s != "storage")
      refuse("a persistent id that is not ('storage', type, key, location, numel)");
    if (v[1]->kind != Kind::Global || (v[1]->g != Global::TypedStorage && v[1]->g != Global::UntypedStorage))
      refuse("a persistent id whose storage type is " + describe(*v[1]));
    if (v[2]->kind != Kind::Str) refuse("a persistent id whose key is " + describe(*v[2]));
    if (v[3]->kind != Kind::Str) refuse("a persistent id whose location is " + describe(*v[3]));
    if (v[4]->kind != Kind::Int || v[4]->i < 0) refuse("a persistent id whose size is not a count");
    NodeP n = make(Kind::Storage);
    n->pure = false;
    n->s = v[2]->s;
    n->i = v[4]->i;
    n->untyped = v[1]->g == Global::UntypedStorage;
    n->dtype = n->untyped ? c10::ScalarType::Byte : v[1]->dtype;
    return n;
  }

  NodeP tensor_node(at::Tensor t) {
    NodeP n = make(Kind::Tensor);
    n->t = std::move(t);
    return n;
  }

  // A callable global applied to its arguments (REDUCE; NEWOBJ for classes).
  NodeP apply(const Node& callable, const std::vector<NodeP>& args, bool nested = false) {
    if (callable.kind != Kind::Global) refuse("REDUCE calls " + describe(callable));
    const size_t n = args.size();
    auto arity = [&](size_t lo, size_t hi) {
      if (n < lo || n > hi)
        refuse(callable.s + " called with " + std::to_string(n) + " arguments (" + std::to_string(lo) +
               (hi > lo ? " to " + std::to_string(hi) : std::string()) + " expected)");
    };
    switch (callable.g) {
      case Global::OrderedDict:
        arity(0, 0);
        return make_container(Kind::Dict);
      case Global::RebuildTensorV2: {
        // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
        arity(6, 7);
        const Node& storage = *args[0];
        if (storage.kind != Kind::Storage || storage.untyped)
          refuse(callable.s + " of " + (storage.kind == Kind::Storage ? "an untyped storage" : describe(storage)));
        return tensor_node(records_.tensor(storage, storage.dtype, *args[1], *args[2], *args[3]));
      }
      case Global::RebuildTensorV3: {
        // (storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype[, metadata])
        arity(7, 8);
        if (args[6]->kind != Kind::Global || args[6]->g != Global::Dtype)
          refuse(callable.s + " with " + describe(*args[6]) + " for its dtype");
        return tensor_node(records_.tensor(*args[0], args[6]->dtype, *args[1], *args[2], *args[3]));
      }
      case Global::RebuildParameter:  // (data, requires_grad, backward_hooks)
      case Global::RebuildParameterWithState:  // (data, requires_grad, backward_hooks, state)
        callable.g == Global::RebuildParameter ? arity(3, 3) : arity(4, 4);
        if (args[0]->kind != Kind::Tensor) refuse(callable.s + " of " + describe(*args[0]));
        return tensor_node(args[0]->t);
      case Global::RebuildFromTypeV2: {
        // (func, type, args, state): a tensor with Python attributes; the type must be Tensor or Parameter.
        arity(4, 4);
        if (args[1]->kind != Kind::Global ||
            (args[1]->g != Global::TensorClass && args[1]->g != Global::ParameterClass))
          refuse("a tensor of type " + shown(describe(*args[1])) + " (a tensor subclass)");
        if (nested || args[0]->kind != Kind::Global || args[0]->g == Global::RebuildFromTypeV2)
          refuse(callable.s + " of " + describe(*args[0]));
        if (args[2]->kind != Kind::Tuple) refuse(callable.s + " with " + describe(*args[2]) + " for arguments");
        NodeP made = apply(*args[0], args[2]->items, true);
        if (made->kind != Kind::Tensor) refuse(callable.s + " made " + describe(*made));
        return made;
      }
      default:
        refuse("calling " + shown(callable.s));
    }
  }

  // ---- one opcode
  void step(unsigned char op) {
    switch (op) {
      case 0x80: {  // PROTO
        const unsigned v = *take(1);
        if (v > 5) refuse("pickle protocol " + std::to_string(v) + " (at most 5)");
        return;
      }
      case 0x95: take(8); return;  // FRAME: a length the data follows anyway
      case '(': marks_.push_back(stack_.size()); return;  // MARK
      case '0': pop("POP"); return;
      case '1': pop_mark("POP_MARK"); return;
      case '2': push(top("DUP")); return;
      case 'N': push(make(Kind::None)); return;
      case 0x88:
      case 0x89: {  // NEWTRUE, NEWFALSE
        NodeP n = make(Kind::Bool);
        n->b = op == 0x88;
        push(std::move(n));
        return;
      }
      case 'J': push(make_int((int32_t)(uint32_t)le(take(4), 4))); return;  // BININT
      case 'K': push(make_int(*take(1))); return;                         // BININT1
      case 'M': push(make_int((int64_t)le(take(2), 2))); return;          // BININT2
      case 0x8a:    // LONG1
      case 0x8b: {  // LONG4
        uint64_t len = op == 0x8a ? *take(1) : le(take(4), 4);
        if (op == 0x8b && (len >> 31)) refuse("LONG4 with a negative length");
        const unsigned char* b = take(len);
        if (len == 0) return push(make_int(0));
        const unsigned char sign = b[len - 1] & 0x80 ? 0xFF : 0x00;
        for (uint64_t k = 8; k < len; ++k)
          if (b[k] != sign) refuse("an integer beyond 64 bits");
        if (len > 8 && ((b[7] & 0x80 ? 0xFF : 0x00) != sign)) refuse("an integer beyond 64 bits");
        uint64_t v = sign ? UINT64_MAX : 0;
        const uint64_t used = std::min<uint64_t>(len, 8);
        for (uint64_t k = 0; k < used; ++k) v = (v & ~(0xFFull << (8 * k))) | ((uint64_t)b[k] << (8 * k));
        int64_t s;
        std::memcpy(&s, &v, 8);
        return push(make_int(s));
      }
      case 'G': {  // BINFLOAT: big-endian double
        const unsigned char* b = take(8);
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | b[k];
        NodeP n = make(Kind::Float);
        std::memcpy(&n->f, &bits, 8);
        return push(std::move(n));
      }
      case 'X':     // BINUNICODE
      case 0x8c:    // SHORT_BINUNICODE
      case 0x8d: {  // BINUNICODE8
        const uint64_t len = op == 0x8c ? *take(1) : op == 'X' ? le(take(4), 4) : le(take(8), 8);
        if (len > n_ - pos_) refuse("a string of " + std::to_string(len) + " bytes runs past the pickle's end");
        NodeP n = make(Kind::Str);
        n->s.assign(reinterpret_cast<const char*>(take(len)), len);
        return push(std::move(n));
      }
      case ')': return push(make_tuple({}));  // EMPTY_TUPLE
      case 't': return push(make_tuple(pop_mark("TUPLE")));
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        std::vector<NodeP> items(op - 0x84);
        for (size_t k = items.size(); k-- > 0;) items[k] = pop("TUPLEn");
        return push(make_tuple(std::move(items)));
      }
      case ']': return push(make_container(Kind::List));  // EMPTY_LIST
      case '}': return push(make_container(Kind::Dict));  // EMPTY_DICT
      case 'l': {  // LIST
        auto items = pop_mark("LIST");
        NodeP list = make_container(Kind::List);
        for (const NodeP& x : items) append(*list, x);
        return push(std::move(list));
      }
      case 'd': {  // DICT
        auto items = pop_mark("DICT");
        if (items.size() % 2) refuse("DICT with an odd number of items");
        NodeP dict = make_container(Kind::Dict);
        for (size_t k = 0; k < items.size(); k += 2) set_item(*dict, items[k], items[k + 1]);
        return push(std::move(dict));
      }
      case 'a': {  // APPEND
        NodeP item = pop("APPEND");
        return append(mutable_container(top("APPEND"), Kind::List, "APPEND"), item);
      }
      case 'e': {  // APPENDS
        auto items = pop_mark("APPENDS");
        Node& list = mutable_container(top("APPENDS"), Kind::List, "APPENDS");
        for (const NodeP& x : items) append(list, x);
        return;
      }
      case 's': {  // SETITEM
        NodeP value = pop("SETITEM"), key = pop("SETITEM");
        return set_item(mutable_container(top("SETITEM"), Kind::Dict, "SETITEM"), key, value);
      }
      case 'u': {  // SETITEMS
        auto items = pop_mark("SETITEMS");
        if (items.size() % 2) refuse("SETITEMS with an odd number of items");
        Node& dict = mutable_container(top("SETITEMS"), Kind::Dict, "SETITEMS");
        for (size_t k = 0; k < items.size(); k += 2) set_item(dict, items[k], items[k + 1]);
        return;
      }
      case 'c': {  // GLOBAL
        std::string module = line();
        std::string name = line();
        return push(global(module, name));
      }
      case 0x93: {  // STACK_GLOBAL
        NodeP name = pop("STACK_GLOBAL"), module = pop("STACK_GLOBAL");
        if (name->kind != Kind::Str || module->kind != Kind::Str) refuse("STACK_GLOBAL of non-strings");
        return push(global(module->s, name->s));
      }
      case 'R': {  // REDUCE
        NodeP args = pop("REDUCE"), callable = pop("REDUCE");
        if (args->kind != Kind::Tuple) refuse("REDUCE with " + describe(*args) + " for arguments");
        return push(apply(*callable, args->items));
      }
      case 0x81: {  // NEWOBJ
        NodeP args = pop("NEWOBJ"), cls = pop("NEWOBJ");
        if (args->kind != Kind::Tuple) refuse("NEWOBJ with " + describe(*args) + " for arguments");
        if (cls->kind != Kind::Global || cls->g != Global::OrderedDict) refuse("NEWOBJ of " + shown(describe(*cls)));
        return push(apply(*cls, args->items));
      }
      case 'b': {  // BUILD: an OrderedDict's attributes (a state_dict's _metadata), not kept
        NodeP state = pop("BUILD");
        const NodeP& target = top("BUILD");
        if (target->kind != Kind::Dict) refuse("BUILD on " + describe(*target));
        return;
      }
      case 'Q': {  // BINPERSID
        NodeP pid = pop("BINPERSID");
        return push(persistent_load(pid));
      }
      case 'q': memo_[*take(1)] = top("BINPUT"); return;
      case 'r': memo_[le(take(4), 4)] = top("LONG_BINPUT"); return;
      case 0x94: {  // MEMOIZE
        const uint64_t k = memo_.size();
        memo_[k] = top("MEMOIZE");
        return;
      }
      case 'h':
      case 'j': {  // BINGET, LONG_BINGET
        const uint64_t k = op == 'h' ? *take(1) : le(take(4), 4);
        auto it = memo_.find(k);
        if (it == memo_.end()) refuse("BINGET of memo slot " + std::to_string(k) + ", never set");
        return push(it->second);
      }
      default: {
        std::string shown = op >= 0x20 && op < 0x7f ? std::string(" '") + (char)op + "'" : std::string();
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        refuse(std::string("unsupported pickle opcode ") + hex + shown);
      }
    }
  }

  const unsigned char* p_;
  size_t n_;
  size_t pos_ = 0, op_pos_ = 0;
  Records& records_;
  std::vector<NodeP> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, NodeP> memo_;
  std::unordered_map<std::string, uint64_t> interned_;
};

// ---- the result ----------------------------------------------------------------------------------------------

enum class Simple { Unset, Tensor, Int, Float, Str, Bool, Any };

Simple simple_of(const c10::IValue& v) {
  if (v.isTensor()) return Simple::Tensor;
  if (v.isInt()) return Simple::Int;
  if (v.isDouble()) return Simple::Float;
  if (v.isString()) return Simple::Str;
  if (v.isBool()) return Simple::Bool;
  return Simple::Any;
}
Simple unify(Simple a, Simple b) { return a == Simple::Unset ? b : a == b ? a : Simple::Any; }
c10::TypePtr type_of(Simple s) {
  switch (s) {
    case Simple::Tensor: return c10::TensorType::get();
    case Simple::Int: return c10::IntType::get();
    case Simple::Float: return c10::FloatType::get();
    case Simple::Str: return c10::StringType::get();
    case Simple::Bool: return c10::BoolType::get();
    default: return c10::AnyType::get();
  }
}

class Converter {
 public:
  c10::IValue operator()(const NodeP& n) {
    switch (n->kind) {
      case Kind::None: return c10::IValue();
      case Kind::Bool: return c10::IValue(n->b);
      case Kind::Int: return c10::IValue(n->i);
      case Kind::Float: return c10::IValue(n->f);
      case Kind::Tensor: return c10::IValue(n->t);
      default: break;
    }
    if (auto it = done_.find(n.get()); it != done_.end()) return it->second;
    c10::IValue v;
    if (n->kind == Kind::Str) {
      v = c10::IValue(n->s);
    } else if (n->kind == Kind::Tuple) {
      std::vector<c10::IValue> items;
      items.reserve(n->items.size());
      for (const NodeP& x : n->items) items.push_back((*this)(x));
      v = c10::ivalue::Tuple::create(std::move(items));
    } else if (n->kind == Kind::List) {
      std::vector<c10::IValue> items;
      items.reserve(n->items.size());
      Simple s = Simple::Unset;
      for (const NodeP& x : n->items) {
        items.push_back((*this)(x));
        s = unify(s, simple_of(items.back()));
      }
      c10::impl::GenericList list(type_of(s));
      list.reserve(items.size());
      for (auto& x : items) list.push_back(std::move(x));
      v = c10::IValue(std::move(list));
    } else if (n->kind == Kind::Dict) {
      std::vector<c10::IValue> items;
      items.reserve(n->items.size());
      Simple ks = Simple::Unset, vs = Simple::Unset;
      for (size_t k = 0; k < n->items.size(); ++k) {
        items.push_back((*this)(n->items[k]));
        Simple& s = k % 2 ? vs : ks;
        s = unify(s, simple_of(items.back()));
      }
      c10::impl::GenericDict dict(ks == Simple::Unset ? c10::StringType::get() : type_of(ks), type_of(vs));
      dict.reserve(items.size() / 2);
      for (size_t k = 0; k + 1 < items.size(); k += 2) dict.insert(std::move(items[k]), std::move(items[k + 1]));
      v = c10::IValue(std::move(dict));
    } else {
      refuse("data.pkl holds " + describe(*n) + " where data was expected");
    }
    done_.emplace(n.get(), v);
    return v;
  }

 private:
  std::unordered_map<const Node*, c10::IValue> done_;
};

c10::IValue read(const std::shared_ptr<const void>& owner, const unsigned char* data, size_t size) {
  if (!data && size) refuse("no bytes");
  Zip zip(data, size);
  const std::string top = top_folder(zip);
  bool big_endian = false;
  if (const Member* order = zip.find(top + "/byteorder")) {
    std::string_view text = zip.stored(*order, true);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
    if (text == "big")
      big_endian = true;
    else if (text != "little")
      refuse("byteorder record says " + shown(text) + " (little or big expected)");
  }
  Records records(zip, top, big_endian, owner);
  const std::string_view pickle = zip.stored(*zip.find(top + "/data.pkl"), true);
  Unpickler unpickler(pickle, records);
  NodeP result = unpickler.run();
  return Converter()(result);
}

}  // namespace

c10::IValue read_torch_save(std::shared_ptr<const void> owner, const char* data, size_t size,
                            const std::string& what) {
  std::string problem;
  try {
    return read(owner, reinterpret_cast<const unsigned char*>(data), size);
  } catch (const Refusal& r) {
    problem = r.what;
  } catch (const c10::Error& e) {
    const std::string m = e.what_without_backtrace();
    problem = "libtorch: " + m.substr(0, m.find('\n'));
  } catch (const std::bad_alloc&) {
    problem = "out of memory";
  }
  throw ExportError(printable(what + ": " + problem));
}

}  // namespace t2o::core::program
