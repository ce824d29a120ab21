#include "load/debug_ranges.hpp"

#include <cstdint>
#include <map>
#include <memory>

namespace t2o::core {

namespace {

// The few pickle values a record file holds. Strings keep their length (and their text when short:
// the format tag); lists only their integers.
struct Item;
using ItemPtr = std::shared_ptr<const Item>;
struct Item {
  enum Kind { Other, Int, Str, Tuple, List, Global, None, Mark } kind = Other;
  int64_t number = 0;
  size_t length = 0;
  std::string text;  // Str (up to 64 bytes), Global "module.name"
  std::vector<ItemPtr> items;
  std::vector<int64_t> ints;  // List
};

struct Problem {
  std::string what;
};
[[noreturn]] void problem(const std::string& what) { throw Problem{what}; }

uint64_t le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The opcodes PyTorch's pickler writes for these records (protocol 2); anything else is refused.
ItemPtr unpickle(const std::vector<unsigned char>& code) {
  std::vector<ItemPtr> stack;
  std::map<uint64_t, ItemPtr> memo;
  size_t p = 0;
  auto take = [&](size_t n) {
    if (n > code.size() - p) problem("truncated at byte " + std::to_string(p));
    uint64_t v = le(&code[p], (int)n);
    p += n;
    return v;
  };
  auto make = [](Item::Kind kind) {
    auto v = std::make_shared<Item>();
    v->kind = kind;
    return v;
  };
  auto pop = [&]() {
    if (stack.empty() || stack.back()->kind == Item::Mark) problem("pops an empty stack");
    auto v = stack.back();
    stack.pop_back();
    return v;
  };
  auto pop_to_mark = [&]() {
    size_t m = stack.size();
    while (m > 0 && stack[m - 1]->kind != Item::Mark) --m;
    if (m == 0) problem("no mark on the stack");
    std::vector<ItemPtr> items(stack.begin() + m, stack.end());
    stack.resize(m - 1);
    return items;
  };
  auto tuple = [&](std::vector<ItemPtr> items) {
    auto v = make(Item::Tuple);
    v->items = std::move(items);
    return ItemPtr(v);
  };
  auto push_int = [&](int64_t n) {
    auto v = make(Item::Int);
    v->number = n;
    stack.push_back(v);
  };
  // A list grows in place in the unpickler: here a new value replaces it on the stack (and in the memo
  // entry that held it, found by identity).
  auto extend = [&](const std::vector<ItemPtr>& items) {
    auto list = pop();
    if (list->kind != Item::List) problem("appends to something not a list");
    auto grown = std::make_shared<Item>(*list);
    for (const auto& i : items) {
      if (i->kind != Item::Int) problem("a list item that is not an integer");
      grown->ints.push_back(i->number);
    }
    for (auto& [k, v] : memo)
      if (v == list) v = grown;
    stack.push_back(grown);
  };
  while (p < code.size()) {
    const unsigned char op = code[p++];
    switch (op) {
      case 0x80: take(1); break;  // PROTO
      case '.': {                 // STOP
        if (stack.size() != 1) problem("does not end with one value");
        return stack.back();
      }
      case 'X': {  // BINUNICODE
        const uint64_t n = take(4);
        if (n > code.size() - p) problem("a string runs past the end");
        auto v = make(Item::Str);
        v->length = n;
        v->text.assign(reinterpret_cast<const char*>(&code[p]), std::min<uint64_t>(n, 64));
        p += n;
        stack.push_back(v);
        break;
      }
      case 'q': case 'r': {  // BINPUT, LONG_BINPUT
        const uint64_t key = take(op == 'q' ? 1 : 4);
        if (stack.empty()) problem("memoizes nothing");
        memo[key] = stack.back();
        break;
      }
      case 'h': case 'j': {  // BINGET, LONG_BINGET
        auto it = memo.find(take(op == 'h' ? 1 : 4));
        if (it == memo.end()) problem("reads a memo entry never written");
        stack.push_back(it->second);
        break;
      }
      case '(': stack.push_back(make(Item::Mark)); break;
      case ')': stack.push_back(tuple({})); break;
      case 't': stack.push_back(tuple(pop_to_mark())); break;
      case 0x85: case 0x86: case 0x87: {  // TUPLE1..3
        std::vector<ItemPtr> items(op - 0x84);
        for (size_t i = items.size(); i-- > 0;) items[i] = pop();
        stack.push_back(tuple(std::move(items)));
        break;
      }
      case 'J': push_int((int32_t)take(4)); break;
      case 'K': push_int((int64_t)take(1)); break;
      case 'M': push_int((int64_t)take(2)); break;
      case 0x8a: {  // LONG1: up to 8 bytes, two's complement
        const uint64_t n = take(1);
        if (n > 8) problem("an integer of " + std::to_string(n) + " bytes");
        uint64_t v = n ? take(n) : 0;
        if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);
        push_int((int64_t)v);
        break;
      }
      case 'N': stack.push_back(make(Item::None)); break;
      case ']': stack.push_back(make(Item::List)); break;
      case 'a': {
        auto item = pop();
        extend({item});
        break;
      }
      case 'e': {
        auto items = pop_to_mark();
        extend(items);
        break;
      }
      case 'c': {  // GLOBAL
        auto line = [&]() {
          const size_t start = p;
          while (p < code.size() && code[p] != '\n') ++p;
          if (p >= code.size()) problem("a global's name runs past the end");
          return std::string(reinterpret_cast<const char*>(&code[start]), p++ - start);
        };
        auto v = make(Item::Global);
        v->text = line();
        v->text += "." + line();
        stack.push_back(v);
        break;
      }
      case 'R': {  // REDUCE: only torch.jit._pickle.build_intlist((list,)) makes a value here
        auto args = pop(), callable = pop();
        if (callable->kind != Item::Global || callable->text != "torch.jit._pickle.build_intlist" ||
            args->kind != Item::Tuple || args->items.size() != 1 || args->items[0]->kind != Item::List)
          problem("calls something other than build_intlist");
        stack.push_back(args->items[0]);
        break;
      }
      default:
        problem("opcode " + std::to_string(op) + ", which source-range records do not use");
    }
  }
  problem("has no STOP");
}

int64_t integer(const ItemPtr& v, const char* what) {
  if (v->kind != Item::Int) problem(std::string(what) + " is not an integer");
  return v->number;
}

const std::vector<ItemPtr>& tuple_of(const ItemPtr& v, size_t at_least, const char* what) {
  if (v->kind != Item::Tuple || v->items.size() < at_least)
    problem(std::string(what) + " is not a tuple of " + std::to_string(at_least) + " or more");
  return v->items;
}

}  // namespace

std::optional<std::string> debug_ranges_problem(const std::vector<unsigned char>& pickle) {
  try {
    const ItemPtr top = unpickle(pickle);
    const auto& outer = tuple_of(top, 0, "the records");
    // FORMAT_WITH_STRING_TABLE: (tag, strings, records); a source is (string indices, file name
    // index, first line). The older form: records only; a source is (text, file name, first line).
    const bool table = !outer.empty() && outer[0]->kind == Item::Str && outer[0]->text == "FORMAT_WITH_STRING_TABLE";
    std::vector<size_t> lengths;
    if (table) {
      if (outer.size() < 3) problem("the string-table form has no records");
      for (const auto& s : tuple_of(outer[1], 0, "the string table")) {
        if (s->kind != Item::Str) problem("the string table holds something other than a string");
        lengths.push_back(s->length);
      }
    }
    const auto& records = table ? tuple_of(outer[2], 0, "the records") : outer;
    std::map<const Item*, bool> checked;  // sources (shared through the memo) already checked
    for (const auto& record : records) {
      const auto& r = tuple_of(record, 2, "a record");
      if (integer(r[0], "a record's byte offset") < 0) problem("a record's byte offset is negative");
      const auto& range = tuple_of(r[1], 3, "a source range");
      const auto& source = tuple_of(range[0], 3, "a source");
      if (checked.emplace(range[0].get(), true).second) {
        if (table) {
          if (source[0]->kind != Item::List) problem("a source's text is not a list of string indices");
          for (int64_t i : source[0]->ints) {
            if (i < 0 || (uint64_t)i >= lengths.size())
              problem("a source's text refers to string " + std::to_string(i) + " of a table of " +
                      std::to_string(lengths.size()));
          }
          const int64_t name = integer(source[1], "a source's file name index");
          if (name < 0 || (uint64_t)name >= lengths.size())
            problem("a source's file name is string " + std::to_string(name) + " of a table of " +
                    std::to_string(lengths.size()));
        } else {
          if (source[0]->kind != Item::Str) problem("a source's text is not a string");
          if (source[1]->kind != Item::Str && source[1]->kind != Item::None) problem("a source's file name is not a string");
        }
        integer(source[2], "a source's first line");
      }
      // The range's own numbers are left to libtorch: PyTorch 2.x writes [0, 1) in an empty source.
      integer(range[1], "a range's start");
      integer(range[2], "a range's end");
    }
    return std::nullopt;
  } catch (const Problem& p) {
    return p.what;
  }
}

}  // namespace t2o::core
