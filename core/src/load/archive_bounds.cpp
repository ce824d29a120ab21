// Bounding a TorchScript archive's claims before libtorch reads it: see archive_bounds.hpp.
#include "load/archive_bounds.hpp"
#include "load/debug_ranges.hpp"
#include "load/zip_members.hpp"

#include "torch2onnx/core/exporter.hpp"

#include <caffe2/serialize/versions.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <sys/stat.h>
#include <tuple>
#include <vector>

// miniz's raw-deflate decoder, as libtorch's zip reader itself uses it (libtorch_cpu exports it).
extern "C" size_t tinfl_decompress_mem_to_mem(void* out, size_t out_len, const void* in, size_t in_len, int flags);

namespace t2o::core {

namespace {

using zip::File;
using zip::le;
using zip::Member;
using zip::read_members;
using zip::Refusal;
using zip::refuse;
using zip::shown_name;

std::string lower(std::string s) {
  for (char& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

// A member's bytes: stored ones as they are, deflated ones inflated into a buffer of the size the
// directory claims (already bounded by the ratio) that they must fill exactly.
std::vector<unsigned char> read_member(File& file, const Member& m) {
  auto raw = file.read(m.data_offset, m.compressed, ("member " + shown_name(m.name)).c_str());
  if (m.method == 0) return raw;
  if (m.method != 8) refuse("member " + shown_name(m.name) + " uses compression method " + std::to_string(m.method));
  std::vector<unsigned char> out(m.uncompressed + 1);  // one more: inflating past the claim shows
  const size_t n = tinfl_decompress_mem_to_mem(out.data(), out.size(), raw.data(), raw.size(), 0);
  if (n == (size_t)-1 || n != m.uncompressed)
    refuse("compressed member " + shown_name(m.name) + " does not inflate to the " + std::to_string(m.uncompressed) +
           " bytes it claims");
  out.resize(n);
  return out;
}

// ---- pickles ---------------------------------------------------------------------------------------
// A walk over the opcodes libtorch's unpickler accepts that keeps only what the checks need: strings,
// integers, globals, tuples (with their items when short), storages and their nesting depth.

struct Value;
using ValuePtr = std::shared_ptr<const Value>;
struct Value {
  enum Kind { Other, Str, Int, Global, Tuple, Storage, Mark, Tensor } kind = Other;
  std::string text;              // Str; Global "module.name"; Storage: its key
  int64_t number = 0;            // Int; Storage: declared element count
  size_t item_bytes = 0;         // Storage
  std::vector<ValuePtr> items;   // Tuple (kept up to kKeptItems)
  std::vector<int64_t> shape;    // Tensor: its sizes, when all were integers
  size_t depth = 0;              // containers inside
};
constexpr size_t kKeptItems = 64;

size_t storage_item_bytes(const std::string& global) {
  static const std::map<std::string, size_t> sizes = {
      {"torch.FloatStorage", 4},     {"torch.DoubleStorage", 8},        {"torch.HalfStorage", 2},
      {"torch.BFloat16Storage", 2},  {"torch.LongStorage", 8},          {"torch.IntStorage", 4},
      {"torch.ShortStorage", 2},     {"torch.CharStorage", 1},          {"torch.ByteStorage", 1},
      {"torch.BoolStorage", 1},      {"torch.ComplexFloatStorage", 8},  {"torch.ComplexDoubleStorage", 16},
      {"torch.QInt8Storage", 1},     {"torch.QUInt8Storage", 1},        {"torch.QInt32Storage", 4},
      {"torch.QUInt4x2Storage", 1},  {"torch.QUInt2x4Storage", 1},      {"torch.UntypedStorage", 1}};
  auto it = sizes.find(global);
  return it == sizes.end() ? 0 : it->second;
}

// Sub-byte quantized storages hold several elements per byte, each row (innermost dim) starting on a
// byte (PyTorch's get_sub_byte_tensor_size): 1 for every other storage.
uint64_t storage_elements_per_byte(const std::string& global) {
  if (global == "torch.QUInt4x2Storage") return 2;
  if (global == "torch.QUInt2x4Storage") return 4;
  return 1;
}

class PickleCheck {
 public:
  PickleCheck(const std::string& record, const std::string& tensor_dir, const std::map<std::string, const Member*>& members,
              const ArchiveBounds& bounds)
      : record_(record), tensor_dir_(tensor_dir), members_(members), bounds_(bounds) {}

  void run(const std::vector<unsigned char>& code) {
    code_size_ = code.size();
    size_t p = 0;
    auto need = [&](size_t n) {
      if (n > code.size() - p) refuse(record_ + ": truncated at byte " + std::to_string(p));
    };
    auto take = [&](size_t n) {
      need(n);
      uint64_t v = le(&code[p], (int)n);
      p += n;
      return v;
    };
    while (p < code.size()) {
      const unsigned char op = code[p++];
      switch (op) {
        case 0x80: take(1); break;                         // PROTO
        case '.': return;                                  // STOP
        case ']': push(container(Value::Other)); break;    // EMPTY_LIST
        case ')': push(container(Value::Tuple)); break;    // EMPTY_TUPLE
        case '}': push(container(Value::Other)); break;    // EMPTY_DICT
        case '(': push(container(Value::Mark)); break;    // MARK
        case 'q': memo(take(1)); break;                    // BINPUT
        case 'r': memo(take(4)); break;                    // LONG_BINPUT
        case 0x94: memo(memo_.size()); break;              // MEMOIZE
        case 'h': push(get(take(1))); break;               // BINGET
        case 'j': push(get(take(4))); break;               // LONG_BINGET
        case 'J': push_int((int32_t)take(4)); break;       // BININT
        case 'K': push_int(take(1)); break;                // BININT1
        case 'M': push_int(take(2)); break;                // BININT2
        case 0x8a: {                                       // LONG1
          size_t n = take(1);
          need(n);
          int64_t v = 0;
          if (n <= 8 && n > 0) {
            uint64_t u = le(&code[p], (int)n);
            if (n < 8 && (code[p + n - 1] & 0x80)) u |= ~uint64_t(0) << (8 * n);
            v = (int64_t)u;
          } else if (n > 8) {
            v = INT64_MAX;  // does not fit: as large as can be said
          }
          p += n;
          push_int(v);
          break;
        }
        case 0x88: case 0x89: case 'N': push(std::make_shared<Value>()); break;  // NEWTRUE NEWFALSE NONE
        case 'G': take(8); push(std::make_shared<Value>()); break;               // BINFLOAT
        case 'X': push_str(take(4), code, p); break;                             // BINUNICODE
        case 0x8c: push_str(take(1), code, p); break;                            // SHORT_BINUNICODE
        case 'B': push_bytes(take(4), code, p); break;                           // BINBYTES
        case 'C': push_bytes(take(1), code, p); break;                           // SHORT_BINBYTES
        case 0x8e: push_bytes(take(8), code, p); break;                          // BINBYTES8
        case 't': push(collect(Value::Tuple, pop_to_mark())); break;             // TUPLE
        case 'l': push(collect(Value::Other, pop_to_mark())); break;             // LIST
        case 'd': push(collect(Value::Other, pop_to_mark())); break;             // DICT
        case 0x85: case 0x86: case 0x87: {                                       // TUPLE1..3
          std::vector<ValuePtr> items(op - 0x84);
          for (size_t i = items.size(); i-- > 0;) items[i] = pop();
          push(collect(Value::Tuple, std::move(items)));
          break;
        }
        case 'a': {  // APPEND: list, item
          auto item = pop();
          grow(pop(), {item});
          break;
        }
        case 's': {  // SETITEM: dict, key, value
          auto value = pop(), key = pop();
          grow(pop(), {key, value});
          break;
        }
        case 'e': case 'u': {  // APPENDS, SETITEMS: container, mark, items...
          auto items = pop_to_mark();
          grow(pop(), items);
          break;
        }
        case 'c': {  // GLOBAL: "module\nname\n"
          std::string module = line(code, p), name = line(code, p);
          auto v = std::make_shared<Value>();
          v->kind = Value::Global;
          v->text = module + "." + name;
          push(v);
          break;
        }
        case 'R': {  // REDUCE: callable, args
          auto args = pop(), callable = pop();
          push(reduce(callable, args));
          break;
        }
        case 'b': {  // BUILD: object, state
          auto state = pop();
          grow(pop(), {state});
          break;
        }
        case 0x81: {  // NEWOBJ: class, args
          auto args = pop();
          pop();
          push(collect(Value::Other, {args}));
          break;
        }
        case 'Q': push(persistent(pop())); break;  // BINPERSID
        default:
          return;  // not an opcode this walk knows: libtorch's unpickler decides
      }
    }
  }

 private:
  ValuePtr container(Value::Kind kind) {
    auto v = std::make_shared<Value>();
    v->kind = kind;
    v->depth = 1;
    return v;
  }
  void push(ValuePtr v) {
    if (stack_.size() > (1u << 24)) refuse(record_ + ": more than 16M values on the pickle stack");
    stack_.push_back(std::move(v));
  }
  void push_int(int64_t n) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Int;
    v->number = n;
    push(v);
  }
  void push_str(uint64_t n, const std::vector<unsigned char>& code, size_t& p) {
    if (n > code.size() - p) refuse(record_ + ": a string of " + std::to_string(n) + " bytes runs past its end");
    auto v = std::make_shared<Value>();
    v->kind = Value::Str;
    v->text.assign(reinterpret_cast<const char*>(&code[p]), std::min<uint64_t>(n, 4096));
    p += n;
    push(v);
  }
  void push_bytes(uint64_t n, const std::vector<unsigned char>& code, size_t& p) {
    if (n > code.size() - p) refuse(record_ + ": bytes of " + std::to_string(n) + " run past its end");
    p += n;
    push(std::make_shared<Value>());
  }
  std::string line(const std::vector<unsigned char>& code, size_t& p) {
    size_t start = p;
    while (p < code.size() && code[p] != '\n') ++p;
    if (p >= code.size()) refuse(record_ + ": a global's name runs past its end");
    return std::string(reinterpret_cast<const char*>(&code[start]), p++ - start);
  }
  ValuePtr pop() {
    if (stack_.empty() || stack_.back()->kind == Value::Mark) refuse(record_ + ": pops an empty pickle stack");
    auto v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  std::vector<ValuePtr> pop_to_mark() {
    size_t m = stack_.size();
    while (m > 0 && stack_[m - 1]->kind != Value::Mark) --m;
    if (m == 0) refuse(record_ + ": no mark on the pickle stack");
    std::vector<ValuePtr> items(stack_.begin() + m, stack_.end());
    stack_.resize(m - 1);
    return items;
  }
  // A container of `items`: its depth, and for short tuples the items themselves.
  ValuePtr collect(Value::Kind kind, std::vector<ValuePtr> items) {
    auto v = std::make_shared<Value>();
    v->kind = kind;
    size_t depth = 0;
    for (const auto& i : items) depth = std::max(depth, i->depth);
    v->depth = depth + 1;
    check_depth(v->depth);
    if (kind == Value::Tuple && items.size() <= kKeptItems) v->items = std::move(items);
    return v;
  }
  // APPEND/SETITEM/BUILD into an object already on the stack: it becomes as deep as its deepest item.
  void grow(const ValuePtr& target, const std::vector<ValuePtr>& items) {
    size_t depth = target->depth;
    for (const auto& i : items) depth = std::max(depth, i->depth + 1);
    check_depth(depth);
    if (depth != target->depth) {
      auto v = std::make_shared<Value>(*target);
      v->depth = depth;
      v->items.clear();
      push(v);
    } else {
      push(target);
    }
  }
  void check_depth(size_t depth) {
    if (depth > bounds_.max_pickle_nesting)
      refuse(record_ + ": values nested more than " + std::to_string(bounds_.max_pickle_nesting) + " deep");
  }
  void memo(uint64_t index) {
    if (stack_.empty()) refuse(record_ + ": memoizes an empty pickle stack");
    // libtorch's memo is a vector grown to the highest index written (16 bytes an entry, filled at
    // once): a pickle writes its entries in order, never more than it has bytes (found by
    // fuzz_torchscript_load: LONG_BINPUT 1701274079 asked for 27 GB).
    if (index > code_size_)
      refuse(record_ + ": memo entry " + std::to_string(index) + " in a pickle of " + std::to_string(code_size_) + " bytes");
    if (memo_.size() > (1u << 24) && !memo_.count(index)) refuse(record_ + ": more than 16M memo entries");
    memo_[index] = stack_.back();
  }
  ValuePtr get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) refuse(record_ + ": reads memo entry " + std::to_string(index) + " that was never written");
    return it->second;
  }
  // ('storage', torch.XStorage, key, location, numel): the record it names must hold numel elements.
  ValuePtr persistent(const ValuePtr& id) {
    if (id->kind != Value::Tuple || id->items.size() != 5 || id->items[0]->kind != Value::Str ||
        id->items[0]->text != "storage" || id->items[1]->kind != Value::Global || id->items[2]->kind != Value::Str ||
        id->items[4]->kind != Value::Int)
      return std::make_shared<Value>();
    auto v = std::make_shared<Value>();
    v->kind = Value::Storage;
    v->text = id->items[2]->text;
    v->number = id->items[4]->number;
    v->item_bytes = storage_item_bytes(id->items[1]->text);
    if (v->item_bytes == 0) return std::make_shared<Value>();
    const std::string name = tensor_dir_ + v->text;
    auto it = members_.find(lower(name));
    if (it == members_.end()) return v;  // libtorch names the missing record itself
    v->number = std::max<int64_t>(v->number, 0);
    const uint64_t record = it->second->uncompressed;
    if ((uint64_t)v->number > record / v->item_bytes)
      refuse(record_ + ": storage " + shown_name(v->text) + " declares " + std::to_string(v->number) + " elements of " +
             std::to_string(v->item_bytes) + " bytes, its record " + shown_name(name) + " holds " + std::to_string(record) +
             " bytes");
    available_[v->text] = record / v->item_bytes;
    per_byte_[v->text] = storage_elements_per_byte(id->items[1]->text);
    return v;
  }
  // torch._utils._rebuild_tensor_v2(storage, offset, sizes, strides, ...) and
  // torch._utils._rebuild_qtensor(storage, offset, sizes, strides, qparams, ...): libtorch's unpickler
  // sets the sizes, strides and offset on the storage as they are (TensorImpl::set_sizes_and_strides,
  // no check), so every element they reach must be in the storage's record. A quantized tensor's
  // per-channel scales and zero points must also have one value per channel: its kernels index them
  // by channel. torch._tensor._rebuild_from_type_v2(func, type, args, state) calls func on args.
  ValuePtr reduce(const ValuePtr& callable, const ValuePtr& args) {
    auto out = collect(Value::Other, {args});
    if (callable->kind != Value::Global || args->kind != Value::Tuple) return out;
    std::string fn = callable->text;
    const Value* call = args.get();
    if (fn == "torch._tensor._rebuild_from_type_v2") {
      if (call->items.size() < 3 || call->items[0]->kind != Value::Global || call->items[2]->kind != Value::Tuple)
        return out;
      fn = call->items[0]->text;
      call = call->items[2].get();
    }
    const bool quantized = fn == "torch._utils._rebuild_qtensor";
    if (!quantized && fn != "torch._utils._rebuild_tensor_v2" && fn != "torch._utils._rebuild_tensor") return out;
    const auto& a = call->items;
    if (a.size() < 4 || a[0]->kind != Value::Storage || a[1]->kind != Value::Int || a[2]->kind != Value::Tuple ||
        a[3]->kind != Value::Tuple)
      return out;
    const auto& sizes = a[2]->items;
    const auto& strides = a[3]->items;
    if (sizes.size() != strides.size()) refuse(record_ + ": a tensor has " + std::to_string(sizes.size()) + " sizes and " +
                                               std::to_string(strides.size()) + " strides");
    const std::string where = record_ + ": a tensor on storage " + shown_name(a[0]->text);
    std::vector<int64_t> shape, stride;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i]->kind != Value::Int || strides[i]->kind != Value::Int) return out;
      shape.push_back(sizes[i]->number);
      stride.push_back(strides[i]->number);
    }
    std::string shown;
    for (size_t i = 0; i < shape.size(); ++i) shown += (i ? "," : "") + std::to_string(shape[i]);
    if (a[1]->number < 0) refuse(where + " has a negative offset");
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] < 0 || stride[i] < 0) refuse(where + " has a negative size or stride");
    auto it = available_.find(a[0]->text);
    if (it != available_.end()) {
      const uint64_t per_byte = per_byte_[a[0]->text];
      if (per_byte > 1)
        check_sub_byte_extent(where, shown, (uint64_t)a[1]->number, shape, stride, per_byte, it->second);
      else
        check_extent(where, shown, (uint64_t)a[1]->number, shape, stride, it->second);
    }
    if (quantized && a.size() >= 5) check_channels(where, shown, shape, *a[4]);
    auto t = std::make_shared<Value>(*out);
    t->kind = Value::Tensor;
    t->shape = std::move(shape);
    return t;
  }
  // The last element reached: offset + sum((size - 1) * stride), in unsigned 128-bit-free steps.
  void check_extent(const std::string& where, const std::string& shown, uint64_t offset, const std::vector<int64_t>& shape,
                    const std::vector<int64_t>& stride, uint64_t available) {
    uint64_t last = offset;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0) return;  // no element
      if (shape[i] > 1 && stride[i] > 0) {
        const uint64_t span = (uint64_t)(shape[i] - 1), step = (uint64_t)stride[i];
        if (span > (UINT64_MAX - last) / step) refuse(where + " declares sizes [" + shown + "] beyond any memory");
        last += span * step;
      }
    }
    if (last >= available)
      refuse(where + " of sizes [" + shown + "] reaches element " + std::to_string(last) + ", its record holds " +
             std::to_string(available) + " elements");
  }
  // quint4x2 / quint2x4: PyTorch lays such a tensor out contiguously, each row of the innermost dim
  // packed into whole bytes, and its kernels read it so; other strides are not a layout it writes.
  void check_sub_byte_extent(const std::string& where, const std::string& shown, uint64_t offset,
                             const std::vector<int64_t>& shape, const std::vector<int64_t>& stride, uint64_t per_byte,
                             uint64_t available_bytes) {
    uint64_t expected = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      if (shape[i] > 1 && (uint64_t)stride[i] != expected)
        refuse(where + " of a sub-byte type has strides that are not contiguous");
      if (shape[i] != 0 && expected > UINT64_MAX / (uint64_t)shape[i])
        refuse(where + " declares sizes [" + shown + "] beyond any memory");
      expected *= (uint64_t)shape[i];
    }
    uint64_t bytes = 1;  // a 0-d tensor: one byte
    if (!shape.empty()) {
      const uint64_t cols = (uint64_t)shape.back();
      bytes = cols / per_byte + (cols % per_byte != 0);
      for (size_t i = 0; i + 1 < shape.size(); ++i) {
        if (shape[i] != 0 && bytes > UINT64_MAX / (uint64_t)shape[i])
          refuse(where + " declares sizes [" + shown + "] beyond any memory");
        bytes *= (uint64_t)shape[i];
      }
    }
    if (bytes == 0) return;
    if (offset > available_bytes || bytes > available_bytes - offset)
      refuse(where + " of sizes [" + shown + "] needs " + std::to_string(bytes) + " bytes from byte " +
             std::to_string(offset) + ", its record holds " + std::to_string(available_bytes));
  }
  // qparams of a per-channel scheme: (qscheme, scales, zero_points, axis).
  void check_channels(const std::string& where, const std::string& shown, const std::vector<int64_t>& shape,
                      const Value& qparams) {
    if (qparams.kind != Value::Tuple || qparams.items.size() < 4) return;
    const auto& q = qparams.items;
    if (q[1]->kind != Value::Tensor || q[2]->kind != Value::Tensor || q[3]->kind != Value::Int) return;
    const int64_t axis = q[3]->number;
    if (axis < 0 || (uint64_t)axis >= shape.size())
      refuse(where + " of sizes [" + shown + "] is quantized along axis " + std::to_string(axis) + ", which it does not have");
    for (const Value* v : {q[1].get(), q[2].get()})
      if (v->shape.size() != 1 || v->shape[0] != shape[axis])
        refuse(where + " of sizes [" + shown + "] has " + std::to_string(shape[axis]) + " channels along axis " +
               std::to_string(axis) + " but " +
               (v->shape.size() == 1 ? std::to_string(v->shape[0]) : "a tensor of rank " + std::to_string(v->shape.size())) +
               (v == q[1].get() ? " scales" : " zero points"));
  }

  std::string record_, tensor_dir_;
  const std::map<std::string, const Member*>& members_;
  uint64_t code_size_ = 0;
  const ArchiveBounds& bounds_;
  std::vector<ValuePtr> stack_;
  std::map<uint64_t, ValuePtr> memo_;
  std::map<std::string, uint64_t> available_;  // storage key -> elements its record holds
  std::map<std::string, uint64_t> per_byte_;   // storage key -> elements per byte (sub-byte types)
};

// ---- TorchScript code ------------------------------------------------------------------------------
// libtorch's parser and compiler recurse once per bracket and per block: their depth is bounded here.
bool one_of(std::string_view chars, char c) { return chars.find(c) != std::string_view::npos; }

bool line_has(const std::vector<unsigned char>& text, size_t i, std::string_view what) {
  const auto* begin = reinterpret_cast<const char*>(text.data());
  const std::string_view rest(begin + i, text.size() - i);
  return rest.substr(0, rest.find('\n')).find(what) != std::string_view::npos;
}

// A statement directly in a class body. libtorch reads "NAME = value" as one of the module's lists
// (__parameters__, __buffers__, the hook lists; __annotations__ = [] it skips) or, for any other name, as a constant that must be
// typed ("NAME : Final[int] = 3"); without the type it dereferences a type that is not there.
void check_class_level(const std::vector<unsigned char>& text, size_t i, const std::string& where) {
  size_t end = i;
  while (end < text.size() && (std::isalnum(text[end]) || text[end] == '_')) ++end;
  if (end == i) return;
  size_t next = end;
  while (next < text.size() && text[next] == ' ') ++next;
  if (next >= text.size() || text[next] != '=' || (next + 1 < text.size() && text[next + 1] == '=')) return;
  const std::string word(reinterpret_cast<const char*>(&text[i]), std::min<size_t>(end - i, 64));
  if (word == "__parameters__" || word == "__buffers__" || word == "__annotations__" || word == "__forward_pre_hooks__" ||
      word == "__forward_hooks__")
    return;
  refuse(where + "the class-level assignment '" + word + (end - i > 64 ? "..." : "") +
         " = ...' has no type (libtorch reads it as a constant, which must be declared 'NAME : Final[T] = value')");
}

void check_code(const std::string& name, const std::vector<unsigned char>& text, const ArchiveBounds& bounds) {
  size_t line_start = 0, line_no = 1;
  std::vector<size_t> indents = {0};
  // Operators since the last ',' or ':' at each open bracket level: an upper bound of how deep the
  // expression tree under construction is (a chain "x + x + ..." is a tree as deep as it is long).
  std::vector<size_t> operators = {0};
  size_t chained = 0;
  bool at_line_start = true;
  char quote = 0;
  // Indent of the class bodies open at this point: libtorch reads a class-level "NAME = value" with no
  // type as a constant and dereferences the missing type (a crash, not an error), so only the
  // assignments it reads as lists, or typed ones, are let through.
  std::vector<size_t> class_bodies;
  bool class_opened = false;
  size_t class_line_indent = 0;
  const auto where = [&] { return name + ":" + std::to_string(line_no) + ": "; };
  const auto add_operator = [&] {
    ++operators.back();
    if (++chained > bounds.max_code_expression_operators)
      refuse(where() + "an expression of more than " + std::to_string(bounds.max_code_expression_operators) +
             " chained operators");
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = (char)text[i];
    if (c == '\n') {
      if (i - line_start > bounds.max_code_line_bytes)
        refuse(where() + "a line of " + std::to_string(i - line_start) + " bytes (at most " +
               std::to_string(bounds.max_code_line_bytes) + ")");
      ++line_no;
      line_start = i + 1;
      at_line_start = operators.size() == 1 && quote == 0;
      if (at_line_start) operators = {0}, chained = 0;  // the statement ends
      continue;
    }
    if (at_line_start) {
      if (c == ' ') continue;
      at_line_start = false;
      if (c != '#') {
        const size_t width = i - line_start;
        while (width < indents.back()) indents.pop_back();
        if (width > indents.back()) indents.push_back(width);
        if (indents.size() - 1 > bounds.max_code_indent_levels)
          refuse(where() + "blocks nested more than " + std::to_string(bounds.max_code_indent_levels) + " deep");
        while (!class_bodies.empty() && width < class_bodies.back()) class_bodies.pop_back();
        if (class_opened && width > class_line_indent) class_bodies.push_back(width);
        class_opened = false;
        if (!class_bodies.empty() && width == class_bodies.back()) check_class_level(text, i, where());
        // An Enum's members are untyped assignments libtorch reads as such: its body is not checked.
        if (text.size() - i > 6 && std::memcmp(&text[i], "class ", 6) == 0 && !line_has(text, i, "(Enum)"))
          class_opened = true, class_line_indent = width;
      }
    }
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      // A call or subscript of what precedes it ("x[0][0]...", "f()()...") chains like an operator.
      size_t before = i;
      while (before > line_start && text[before - 1] == ' ') --before;
      if (before > 0 && (std::isalnum(text[before - 1]) || one_of("_)]}", text[before - 1]))) add_operator();
      operators.push_back(0);
      ++chained;
      if (operators.size() - 1 > bounds.max_code_brackets)
        refuse(where() + "brackets nested more than " + std::to_string(bounds.max_code_brackets) + " deep");
    } else if ((c == ')' || c == ']' || c == '}') && operators.size() > 1) {
      chained -= operators.back() + 1;
      operators.pop_back();
    } else if (c == ',' || c == ':' || c == ';') {
      chained -= operators.back();
      operators.back() = 0;
    } else if (one_of("+-*/%@&|^~<>=!", c) || (c == '.' && !(i > 0 && std::isdigit(text[i - 1])))) {
      add_operator();
    } else if (std::isalpha((unsigned char)c) || c == '_') {
      size_t end = i;
      while (end < text.size() && (std::isalnum(text[end]) || text[end] == '_')) ++end;
      const std::string word(reinterpret_cast<const char*>(&text[i]), end - i);
      if (word == "not" || word == "and" || word == "or" || word == "if" || word == "else" || word == "lambda")
        add_operator();
      i = end - 1;
    }
  }
  if (text.size() - line_start > bounds.max_code_line_bytes)
    refuse(where() + "a line of " + std::to_string(text.size() - line_start) + " bytes (at most " +
           std::to_string(bounds.max_code_line_bytes) + ")");
}

// JSON kept in the archive (torch2onnx.save()'s signature, extra/*.json): nlohmann's parser builds
// every nested level (about 100 bytes each) before the reader sees it.
void check_json(const std::string& name, const std::vector<unsigned char>& text, const ArchiveBounds& bounds) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = (char)text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > bounds.max_json_nesting)
        refuse(name + ": JSON nested more than " + std::to_string(bounds.max_json_nesting) + " deep");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// What libtorch's PyTorchStreamReader checks in its constructor, checked first: it throws from there
// after opening the zip, so its destructor never frees miniz's reader state (a leak per refused file,
// which LeakSanitizer reported). The reader takes the archive's folder from the first member's name,
// then reads FOLDER/.data/version (else FOLDER/version) with std::stoull and wants a file format
// version libtorch reads. miniz finds a name case-insensitively and either of two equal names: every
// candidate must pass.
void check_reader_start(File& file, const std::vector<Member>& members) {
  if (members.empty()) refuse("the zip holds no members");
  const std::string& first = members.front().name;
  const size_t slash = first.find('/');
  if (slash == std::string::npos) refuse("its first member " + shown_name(first) + " is not in a folder");
  const std::string folder = first.substr(0, slash + 1);
  auto same = [](const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (std::tolower((unsigned char)a[i]) != std::tolower((unsigned char)b[i])) return false;
    return true;
  };
  std::vector<const Member*> records;
  for (const char* name : {".data/version", "version"}) {
    for (const auto& m : members)
      if (same(m.name, folder + name)) records.push_back(&m);
    if (!records.empty()) break;
  }
  if (records.empty()) refuse("no version record (" + shown_name(folder + "version") + ")");
  for (const Member* m : records) {
    const auto bytes = read_member(file, *m);
    const std::string text(bytes.begin(), bytes.end());
    const std::string shown = "'" + (text.size() > 24 ? text.substr(0, 24) + "..." : text) + "'";
    // std::stoull: spaces, a sign, then decimal digits up to the first other byte.
    size_t i = 0;
    while (i < text.size() && std::isspace((unsigned char)text[i])) ++i;
    const bool negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    uint64_t version = 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
      const uint64_t d = (uint64_t)(text[i] - '0');
      if (version > (UINT64_MAX - d) / 10) refuse("its version record " + shown + " is out of range");
      version = version * 10 + d;
    }
    if (digits == 0) refuse("its version record " + shown + " is not a number");
    if (negative) version = 0 - version;
    if (version < caffe2::serialize::kMinSupportedFileFormatVersion ||
        version > caffe2::serialize::kMaxSupportedFileFormatVersion)
      refuse("file format version " + (negative ? shown : std::to_string(version)) + " (this libtorch reads " +
             std::to_string(caffe2::serialize::kMinSupportedFileFormatVersion) + " to " +
             std::to_string(caffe2::serialize::kMaxSupportedFileFormatVersion) + "; a newer PyTorch saved it?)");
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void check_archive_bounds(const std::string& path, const ArchiveBounds& bounds) {
  // Not there, a directory, not a zip: the loader says so in its own words.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  {
    std::ifstream in(path, std::ios::binary);
    char magic[2] = {0, 0};
    if (!in.read(magic, 2) || magic[0] != 'P' || magic[1] != 'K') return;
  }
  // The signature's reader and the loader both ask: the same unchanged file is checked once.
  static std::mutex mutex;
  static std::tuple<std::string, off_t, int64_t, int64_t> last_checked;
  const auto key = std::make_tuple(path, st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (last_checked == key) return;
  }
  try {
    File file(path);
    const std::vector<Member> members = read_members(file, bounds);
    check_reader_start(file, members);
    // libtorch's reader (miniz) finds a record by name case-insensitively, and either of two equal
    // names: names are compared in lower case, and of two equal ones the smaller record is the bound.
    std::map<std::string, const Member*> by_name;
    for (const auto& m : members) {
      auto [it, inserted] = by_name.emplace(lower(m.name), &m);
      if (!inserted && m.uncompressed < it->second->uncompressed) it->second = &m;
    }
    for (const auto& m : members) {
      // Records are named ARCHIVE/...: the pickles, the code and the JSON libtorch and we parse.
      const size_t slash = m.name.find('/');
      if (slash == std::string::npos) continue;
      const std::string prefix = lower(m.name.substr(0, slash + 1)), rest = lower(m.name.substr(slash + 1));
      if (rest == "data.pkl" || rest == "constants.pkl") {
        const std::string archive = rest.substr(0, rest.size() - 4);
        PickleCheck(m.name, prefix + archive + "/", by_name, bounds)
            .run(read_member(file, m));
      } else if (rest.rfind("code/", 0) == 0 && ends_with(rest, "pkl")) {
        // The other pickles libtorch 1.13 reads (code/*.py.debug_pkl, the source ranges it loads with
        // the code): its unpickler allocates a string's claimed length before reading it. Top-level
        // pickles it does not know (PyTorch 2.x's traced_inputs.pkl, whose tensor records are
        // written empty) are never read, so not checked.
        const auto bytes = read_member(file, m);
        PickleCheck(m.name, prefix + "data/", by_name, bounds).run(bytes);
        if (ends_with(rest, ".debug_pkl"))
          if (auto why = debug_ranges_problem(bytes)) refuse(m.name + ": " + *why);
      } else if (rest.rfind("code/", 0) == 0 && ends_with(rest, ".py")) {
        check_code(m.name, read_member(file, m), bounds);
      } else if (rest.rfind("extra/", 0) == 0 && ends_with(rest, ".json")) {
        check_json(m.name, read_member(file, m), bounds);
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    last_checked = key;
  } catch (const Refusal& r) {
    throw ExportError(path + ": corrupt or truncated TorchScript archive: " + r.what);
  } catch (const std::bad_alloc&) {
    throw ExportError(path + ": corrupt or truncated TorchScript archive: its directory does not fit in memory");
  }
}

}  // namespace t2o::core
