// The torch.save reader (core/src/program/torch_pickle.cpp): the files of tests/unit/torch_save/ written by
// PyTorch 1.13, 2.6 and 2.14 (make.py; NAME.json says what each holds, or the error it must give), and
// malformed input: truncated and corrupted archives and pickles, crafted pickles the reader must refuse.
#include <gtest/gtest.h>

#include "program/torch_pickle.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <nlohmann/json.hpp>
#include <torch/script.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;
using json = nlohmann::json;
using t2o::core::ExportError;
using t2o::core::program::read_torch_save;

fs::path fixtures() { return T2O_TORCH_SAVE_DIR; }  // tests/unit/torch_save

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Bytes placed `shift` bytes past a 64-byte aligned start (0: as a mapped file would be).
struct Held {
  std::shared_ptr<const void> owner;
  const char* data = nullptr;
  size_t size = 0;
};
Held hold(const std::string& bytes, size_t shift = 0) {
  const size_t total = (bytes.size() + shift + 64) / 64 * 64;
  char* p = static_cast<char*>(std::aligned_alloc(64, total));
  std::memcpy(p + shift, bytes.data(), bytes.size());
  Held h;
  h.owner = std::shared_ptr<const void>(p, [](const void* q) { std::free(const_cast<void*>(q)); });
  h.data = p + shift;
  h.size = bytes.size();
  return h;
}

c10::IValue read(const std::string& bytes, const std::string& what = "test.pt", size_t shift = 0) {
  Held h = hold(bytes, shift);
  return read_torch_save(h.owner, h.data, h.size, what);
}

// The one line an ExportError gives, or "" when the read succeeded. Any other exception fails the test.
std::string error_of(const std::string& bytes, const std::string& what = "test.pt") {
  try {
    read(bytes, what);
  } catch (const ExportError& e) {
    const std::string line = e.what();
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_EQ(line.rfind(what + ": ", 0), 0u) << line;
    EXPECT_LE(line.size(), 400u) << line;
    return line;
  }
  return "";
}

// ---- comparing with make.py's description ---------------------------------------------------------------

std::string dtype_name(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat: return "float32";
    case c10::kDouble: return "float64";
    case c10::kHalf: return "float16";
    case c10::kBFloat16: return "bfloat16";
    case c10::kLong: return "int64";
    case c10::kInt: return "int32";
    case c10::kShort: return "int16";
    case c10::kChar: return "int8";
    case c10::kByte: return "uint8";
    case c10::kBool: return "bool";
    case c10::kComplexFloat: return "complex64";
    case c10::kComplexDouble: return "complex128";
    default: return "other";
  }
}

void expect_number(double got, const json& want, const std::string& where) {
  if (want.is_string()) {
    const std::string s = want.get<std::string>();
    if (s == "nan")
      EXPECT_TRUE(std::isnan(got)) << where;
    else
      EXPECT_EQ(got, s == "inf" ? INFINITY : -INFINITY) << where;
  } else {
    EXPECT_EQ(got, want.get<double>()) << where;
  }
}

struct Comparison {
  std::map<int, const c10::StorageImpl*> storages;  // make.py's storage index -> ours
  std::vector<at::Tensor> tensors;

  void tensor(const at::Tensor& t, const json& d, const std::string& where) {
    tensors.push_back(t);
    EXPECT_EQ(dtype_name(t.scalar_type()), d["dtype"].get<std::string>()) << where;
    EXPECT_EQ(t.sizes().vec(), d["shape"].get<std::vector<int64_t>>()) << where;
    EXPECT_EQ(t.strides().vec(), d["strides"].get<std::vector<int64_t>>()) << where;
    EXPECT_EQ(t.storage_offset(), d["offset"].get<int64_t>()) << where;
    EXPECT_FALSE(t.requires_grad()) << where;
    const int id = d["storage"].get<int>();
    const c10::StorageImpl* impl = t.storage().unsafeGetStorageImpl();
    auto [it, fresh] = storages.emplace(id, impl);
    EXPECT_EQ(it->second, impl) << where << ": views of one storage share it";
    if (fresh)
      for (const auto& [other, p] : storages)
        if (other != id) EXPECT_NE(p, impl) << where << ": storages " << other << " and " << id << " are distinct";
    const at::Tensor flat = t.reshape({-1});
    const json& values = d["values"];
    ASSERT_EQ((size_t)flat.numel(), values.size()) << where;
    for (int64_t k = 0; k < flat.numel(); ++k) {
      const std::string at = where + "[" + std::to_string(k) + "]";
      const json& want = values[k];
      if (t.is_complex()) {
        const auto c = flat[k].item<c10::complex<double>>();
        expect_number(c.real(), want[0], at);
        expect_number(c.imag(), want[1], at);
      } else if (t.is_floating_point()) {
        expect_number(flat[k].item<double>(), want, at);
      } else if (t.scalar_type() == c10::kBool) {
        EXPECT_EQ(flat[k].item<bool>(), want.get<bool>()) << at;
      } else {
        EXPECT_EQ(flat[k].item<int64_t>(), want.get<int64_t>()) << at;
      }
    }
  }

  void value(const c10::IValue& v, const json& d, const std::string& where) {
    ASSERT_TRUE(d.is_object() && d.size() == 1) << where << ": " << d.dump();
    const std::string kind = d.begin().key();
    const json& body = d.begin().value();
    if (kind == "tensor") {
      ASSERT_TRUE(v.isTensor()) << where << ": " << v.tagKind();
      tensor(v.toTensor(), body, where);
    } else if (kind == "dict") {
      ASSERT_TRUE(v.isGenericDict()) << where << ": " << v.tagKind();
      const auto dict = v.toGenericDict();
      ASSERT_EQ(dict.size(), body.size()) << where;
      size_t k = 0;
      for (const auto& entry : dict) {  // insertion order
        const json& key = body[k][0];
        if (key.is_string()) {
          ASSERT_TRUE(entry.key().isString()) << where;
          EXPECT_EQ(entry.key().toStringRef(), key.get<std::string>()) << where;
        } else {
          ASSERT_TRUE(entry.key().isInt()) << where;
          EXPECT_EQ(entry.key().toInt(), key.get<int64_t>()) << where;
        }
        value(entry.value(), body[k][1], where + "[" + key.dump() + "]");
        ++k;
      }
    } else if (kind == "tuple" || kind == "list") {
      ASSERT_TRUE(kind == "tuple" ? v.isTuple() : v.isList()) << where << ": " << v.tagKind();
      const std::vector<c10::IValue> items =
          kind == "tuple" ? v.toTupleRef().elements().vec() : v.toListRef().vec();
      ASSERT_EQ(items.size(), body.size()) << where;
      for (size_t k = 0; k < items.size(); ++k) value(items[k], body[k], where + "[" + std::to_string(k) + "]");
    } else if (kind == "int") {
      ASSERT_TRUE(v.isInt()) << where;
      EXPECT_EQ(v.toInt(), body.get<int64_t>()) << where;
    } else if (kind == "float") {
      ASSERT_TRUE(v.isDouble()) << where;
      expect_number(v.toDouble(), body, where);
    } else if (kind == "str") {
      ASSERT_TRUE(v.isString()) << where;
      EXPECT_EQ(v.toStringRef(), body.get<std::string>()) << where;
    } else if (kind == "bool") {
      ASSERT_TRUE(v.isBool()) << where;
      EXPECT_EQ(v.toBool(), body.get<bool>()) << where;
    } else if (kind == "none") {
      EXPECT_TRUE(v.isNone()) << where;
    } else {
      FAIL() << where << ": " << kind;
    }
  }
};

// Files derived by rewriting the zip with Python's zipfile: records not 64-byte aligned (copied).
bool rewritten(const std::string& name) {
  return name == "big_endian" || name == "big_endian_views" || name == "unaligned" || name == "short_record" ||
         name == "missing_record";
}

std::vector<std::string> versions() {
  std::vector<std::string> found;
  for (const char* v : {"torch1.13", "torch2.6", "torch2.14"})
    if (fs::is_directory(fixtures() / v)) found.push_back(v);
  return found;
}

void check_fixtures(const std::string& version, size_t shift) {
  const fs::path dir = fixtures() / version;
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") names.insert(e.path().stem().string());
  ASSERT_GE(names.size(), 15u) << dir;
  for (const std::string& name : names) {
    SCOPED_TRACE(version + "/" + name + " shift " + std::to_string(shift));
    const json want = json::parse(file_bytes(dir / (name + ".json")));
    const std::string bytes = file_bytes(dir / (name + ".pt"));
    const std::string what = version + "/" + name + ".pt";
    if (want.contains("error")) {
      const std::string line = error_of(bytes, what);
      EXPECT_NE(line.find(want["error"].get<std::string>()), std::string::npos) << line;
      continue;
    }
    Held h = hold(bytes, shift);
    Comparison cmp;
    {
      c10::IValue v;
      try {
        v = read_torch_save(h.owner, h.data, h.size, what);
      } catch (const ExportError& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      cmp.value(v, want, name);
    }
    // Aliasing: every record of torch.save's own files starts 64-byte aligned; the rewritten ones
    // (and every file placed off alignment) are copied.
    const bool alias = shift == 0 && !rewritten(name);
    bool held = false;
    for (const at::Tensor& t : cmp.tensors) {
      if (t.storage().nbytes() == 0) continue;
      const char* p = static_cast<const char*>(t.storage().data_ptr().get());
      const bool inside = p >= h.data && p < h.data + h.size;
      EXPECT_EQ(inside, alias) << name;
      held = held || inside;
    }
    EXPECT_EQ(h.owner.use_count() > 1, held) << name << ": aliased storages hold the owner";
    cmp.tensors.clear();
    cmp.storages.clear();
    EXPECT_EQ(h.owner.use_count(), 1) << name << ": released with the tensors";
  }
}

TEST(TorchPickle, Torch113Files) { check_fixtures("torch1.13", 0); }
TEST(TorchPickle, Torch26Files) {
  if (!fs::is_directory(fixtures() / "torch2.6")) GTEST_SKIP() << "no torch2.6 fixtures";
  check_fixtures("torch2.6", 0);
}
TEST(TorchPickle, Torch214Files) {
  if (!fs::is_directory(fixtures() / "torch2.14")) GTEST_SKIP() << "no torch2.14 fixtures";
  check_fixtures("torch2.14", 0);
}
TEST(TorchPickle, UnalignedBufferCopies) {
  for (const std::string& v : versions()) check_fixtures(v, 8);
}

TEST(TorchPickle, ResultTypes) {
  const auto sd = read(file_bytes(fixtures() / "torch1.13" / "state_dict.pt"));
  ASSERT_TRUE(sd.isGenericDict());
  EXPECT_EQ(*sd.toGenericDict().keyType(), *c10::StringType::get());
  EXPECT_EQ(*sd.toGenericDict().valueType(), *c10::TensorType::get());
  EXPECT_TRUE(sd.toGenericDict().at("fc.weight").toTensor().is_contiguous());
  // A list of tensors is typed so (toTensorList works).
  const auto nested = read(file_bytes(fixtures() / "torch1.13" / "nested.pt"));
  const auto kwargs = nested.toTupleRef().elements()[1].toGenericDict();
  EXPECT_EQ(*kwargs.at("f").toList().elementType(), *c10::FloatType::get());
  const auto list = read(file_bytes(fixtures() / "torch1.13" / "list.pt"));
  EXPECT_EQ(*list.toList().elementType(), *c10::AnyType::get());
}

// ---- malformed input -------------------------------------------------------------------------------------

void put(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}
uint32_t crc32(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

// A zip of stored members with correct CRCs, each member's data 64-byte aligned (as torch.save pads them).
std::string make_zip(const std::vector<std::pair<std::string, std::string>>& members, uint16_t method = 0) {
  std::string out, dir;
  for (const auto& [name, body] : members) {
    const uint64_t offset = out.size();
    const size_t pad = (64 - (offset + 30 + name.size() + 4) % 64) % 64;
    put(out, 0x04034b50, 4); put(out, 20, 2); put(out, 0, 2); put(out, method, 2); put(out, 0, 4);
    put(out, crc32(body), 4); put(out, body.size(), 4); put(out, body.size(), 4);
    put(out, name.size(), 2); put(out, 4 + pad, 2);
    out += name;
    put(out, 0x4246, 2); put(out, pad, 2); out.append(pad, 'Z');
    out += body;
    put(dir, 0x02014b50, 4); put(dir, 20, 2); put(dir, 20, 2); put(dir, 0, 2); put(dir, method, 2); put(dir, 0, 4);
    put(dir, crc32(body), 4); put(dir, body.size(), 4); put(dir, body.size(), 4);
    put(dir, name.size(), 2); put(dir, 0, 2); put(dir, 0, 2); put(dir, 0, 2); put(dir, 0, 2); put(dir, 0, 4);
    put(dir, offset, 4);
    dir += name;
  }
  const uint64_t dir_offset = out.size();
  out += dir;
  put(out, 0x06054b50, 4); put(out, 0, 2); put(out, 0, 2); put(out, members.size(), 2); put(out, members.size(), 2);
  put(out, dir.size(), 4); put(out, dir_offset, 4); put(out, 0, 2);
  return out;
}

std::string archive(const std::string& pickle, std::vector<std::pair<std::string, std::string>> records = {}) {
  std::vector<std::pair<std::string, std::string>> members = {{"a/data.pkl", pickle}};
  for (auto& r : records) members.emplace_back("a/data/" + r.first, r.second);
  members.emplace_back("a/version", "3\n");
  return make_zip(members);
}

std::string str(const std::string& s) {  // BINUNICODE
  std::string out = "X";
  put(out, s.size(), 4);
  return out + s;
}
std::string ints(const std::vector<int>& v) {  // a tuple of small ints
  std::string out = "(";
  for (int x : v) out += "K" + std::string(1, char(x));
  return out + "t";
}
// A pickle of _rebuild_tensor_v2 over storage "0" (a STORAGE of numel elements).
std::string tensor_pickle(const std::string& storage, int numel, int offset, const std::vector<int>& sizes,
                          const std::vector<int>& strides) {
  return std::string("\x80\x02") + "ctorch._utils\n_rebuild_tensor_v2\n((" + str("storage") + "ctorch\n" + storage +
         "\n" + str("0") + str("cpu") + "K" + std::string(1, char(numel)) + "tQK" + std::string(1, char(offset)) +
         ints(sizes) + ints(strides) + "\x89N" + "tR.";
}

TEST(TorchPickle, CraftedTensors) {
  const std::string floats(24, '\0');  // 6 float32
  EXPECT_EQ(error_of(archive(tensor_pickle("FloatStorage", 6, 0, {2, 3}, {3, 1}), {{"0", floats}})), "");
  EXPECT_EQ(error_of(archive(tensor_pickle("FloatStorage", 6, 5, {1}, {1}), {{"0", floats}})), "");
  // The tensor reaches past its storage: by offset, by stride, by size.
  for (auto [offset, sizes, strides] : std::vector<std::tuple<int, std::vector<int>, std::vector<int>>>{
           {6, {1}, {1}}, {0, {2, 3}, {4, 1}}, {0, {7}, {1}}, {1, {2, 3}, {3, 1}}})
    EXPECT_NE(error_of(archive(tensor_pickle("FloatStorage", 6, offset, sizes, strides), {{"0", floats}})).find(
                  "needs"),
              std::string::npos);
  // The storage claims more than the record holds; the record is missing.
  EXPECT_NE(error_of(archive(tensor_pickle("FloatStorage", 7, 0, {1}, {1}), {{"0", floats}})).find("a/data/0"),
            std::string::npos);
  EXPECT_NE(error_of(archive(tensor_pickle("FloatStorage", 6, 0, {1}, {1}))).find("'a/data/0' is missing"),
            std::string::npos);
  // An empty tensor needs no bytes, but its offset stays inside the storage.
  EXPECT_EQ(error_of(archive(tensor_pickle("FloatStorage", 6, 6, {0, 3}, {3, 1}), {{"0", floats}})), "");
  EXPECT_NE(error_of(archive(tensor_pickle("FloatStorage", 6, 7, {0}, {1}), {{"0", floats}})), "");
  // Size and stride counts differ.
  EXPECT_NE(error_of(archive(tensor_pickle("FloatStorage", 6, 0, {2, 3}, {1}), {{"0", floats}})).find("strides"),
            std::string::npos);
  // Bools are 0 or 1.
  EXPECT_EQ(error_of(archive(tensor_pickle("BoolStorage", 3, 0, {3}, {1}), {{"0", std::string("\x01\x00\x01", 3)}})), "");
  EXPECT_NE(error_of(archive(tensor_pickle("BoolStorage", 3, 0, {3}, {1}), {{"0", std::string("\x01\x02\x01", 3)}})),
            "");
  // Quantized storages and unknown storage types.
  EXPECT_NE(error_of(archive(tensor_pickle("QInt8Storage", 3, 0, {3}, {1}), {{"0", "abc"}})).find("QInt8Storage"),
            std::string::npos);
  // A compressed record.
  std::string zip = make_zip({{"a/data.pkl", tensor_pickle("ByteStorage", 3, 0, {3}, {1})}, {"a/data/0", "abc"}}, 8);
  EXPECT_NE(error_of(zip).find("compressed"), std::string::npos);
  // Big-endian records are swapped.
  const auto v = read(make_zip({{"a/data.pkl", tensor_pickle("IntStorage", 2, 0, {2}, {1})},
                                {"a/data/0", std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8)},
                                {"a/byteorder", "big"}}));
  EXPECT_EQ(v.toTensor()[0].item<int64_t>(), 0x0102);
  EXPECT_EQ(v.toTensor()[1].item<int64_t>(), -2);
  EXPECT_NE(error_of(make_zip({{"a/data.pkl", "\x80\x02N."}, {"a/byteorder", "middle"}})).find("byteorder"),
            std::string::npos);
}

TEST(TorchPickle, CraftedPickles) {
  auto pickle_error = [](const std::string& pickle) { return error_of(archive(pickle)); };
  EXPECT_EQ(pickle_error("\x80\x02N."s), "");
  EXPECT_NE(pickle_error("\x80\x02\x63os\nsystem\n)R."s).find("'os.system'"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02\x63" "builtins\neval\n."s).find("unsupported pickle global"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02\x63torch\nuint16\n."s).find("uint16"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02]q\x00h\x00" "a."s).find("itself"), std::string::npos);  // a list inside itself
  EXPECT_NE(pickle_error("\x80\x02}q\x00K\x01h\x00s."s).find("itself"), std::string::npos);
  // A list changed after it went into another (the only way to a cycle through two lists).
  EXPECT_NE(pickle_error("\x80\x02]q\x00]q\x01h\x00" "a0h\x01" "a."s).find("inside another"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02."s).find("nothing to return"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02h\x05."s).find("memo"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02}(K\x01u."s).find("odd"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00."s).find("64 bits"), std::string::npos);
  EXPECT_EQ(read(archive("\x80\x02\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80."s)).toInt(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(read(archive("\x80\x02\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\x00."s)).toInt(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(read(archive("\x80\x02\x8a\x00."s)).toInt(), 0);
  EXPECT_EQ(read(archive("\x80\x02\x8a\x01\xff."s)).toInt(), -1);
  EXPECT_EQ(read(archive("\x80\x02J\xfe\xff\xff\xff."s)).toInt(), -2);
  EXPECT_EQ(read(archive("\x80\x02M\xff\xff."s)).toInt(), 65535);
  EXPECT_EQ(read(archive("\x80\x02G\xbf\xf8\x00\x00\x00\x00\x00\x00."s)).toDouble(), -1.5);
  EXPECT_EQ(read(archive("\x80\x02\x8c\x02hi\x94."s)).toStringRef(), "hi");  // SHORT_BINUNICODE, MEMOIZE
  EXPECT_NE(pickle_error("\x80\x02S'x'\n."s).find("opcode"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x09N."s).find("protocol"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02(N"s).find("truncated"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02X\xff\xff\xff\xff" "abc."s).find("past the pickle's end"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02(a."s).find("empty stack"), std::string::npos);  // APPEND below a MARK
  EXPECT_NE(pickle_error("\x80\x02NNR."s).find("REDUCE"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02\x63" "collections\nOrderedDict\n."s).find("collections.OrderedDict"),
            std::string::npos);  // a class is not data
  EXPECT_NE(pickle_error("\x80\x02(\x63torch\nFloatStorage\nt."s).find("torch.FloatStorage"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02](\x63torch\nFloatStorage\ne."s).find("a list holds"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02}(]K\x01u."s).find("dict key"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02}(\x88K\x01u."s).find("dict key"), std::string::npos);
  // Duplicate keys: the first place, the last value (Python's dict).
  const auto d = read(archive("\x80\x02}(X\x01\x00\x00\x00" "aK\x01X\x01\x00\x00\x00" "bK\x02X\x01\x00\x00\x00" "aK\x03u."s));
  ASSERT_EQ(d.toGenericDict().size(), 2u);
  EXPECT_EQ(d.toGenericDict().begin()->key().toStringRef(), "a");
  EXPECT_EQ(d.toGenericDict().begin()->value().toInt(), 3);
  // Shared objects stay shared.
  const auto shared = read(archive("\x80\x02]q\x00K\x01" "a(h\x00h\x00t."s));
  EXPECT_TRUE(shared.toTupleRef().elements()[0].isSameIdentity(shared.toTupleRef().elements()[1]));
}

TEST(TorchPickle, Nesting) {
  auto nested = [](int depth) {
    std::string p = "\x80\x02";
    p += std::string(depth, ']');
    p += std::string(depth - 1, 'a');
    return archive(p + ".");
  };
  EXPECT_EQ(error_of(nested(1000)), "");
  EXPECT_NE(error_of(nested(1001)).find("nested deeper than 1000"), std::string::npos);
  std::string tuples = "\x80\x02N" + std::string(1200, '\x85') + ".";
  EXPECT_NE(error_of(archive(tuples)).find("nested"), std::string::npos);
  EXPECT_NE(error_of(nested(100000)).find("nested"), std::string::npos);
}

TEST(TorchPickle, NotTorchSave) {
  EXPECT_NE(error_of("").find("not a zip"), std::string::npos);
  EXPECT_NE(error_of("hello world, not a zip at all").find("not a zip"), std::string::npos);
  EXPECT_NE(error_of("\x80\x02\x8a\x0al\xfc\x9c" "F\xf9 j\xa8P\x19."s).find("legacy"), std::string::npos);
  EXPECT_NE(error_of(make_zip({{"a/version", "3"}})).find("data.pkl"), std::string::npos);
  EXPECT_THROW(read_torch_save(nullptr, nullptr, 0, "x"), ExportError);
}

// Every cut of a real archive, and of its pickle re-zipped (so the pickle itself ends early).
TEST(TorchPickle, Truncated) {
  for (const std::string& v : versions())
    for (const char* name : {"state_dict", "nested", "parameters"}) {
      SCOPED_TRACE(v + "/" + name);
      const std::string bytes = file_bytes(fixtures() / v / (std::string(name) + ".pt"));
      for (size_t cut = 0; cut < bytes.size(); ++cut) EXPECT_NE(error_of(bytes.substr(0, cut)), "") << cut;
    }
  const std::string pickle = "\x80\x02}q\x00("s + str("k") + "]q\x01(K\x01G?\xf0\x00\x00\x00\x00\x00\x00"s + str("s") +
                             "N\x88" "e" + str("t") + ")u.";
  ASSERT_EQ(error_of(archive(pickle)), "");
  for (size_t cut = 0; cut < pickle.size(); ++cut) EXPECT_NE(error_of(archive(pickle.substr(0, cut))), "") << cut;
}

// Every byte of real archives flipped: a value or one ExportError, never a crash or another exception
// (ASan/UBSan builds and fuzz/fuzz_torch_save.cpp check reads stay inside the buffer).
TEST(TorchPickle, FlippedBytes) {
  for (const std::string& v : versions())
    for (const char* name : {"views", "scalars"}) {
      SCOPED_TRACE(v + "/" + name);
      const std::string bytes = file_bytes(fixtures() / v / (std::string(name) + ".pt"));
      size_t refused = 0;
      for (size_t at = 0; at < bytes.size(); ++at) {
        std::string bad = bytes;
        bad[at] ^= 0x5a;
        if (!error_of(bad).empty()) ++refused;
      }
      EXPECT_GT(refused, bytes.size() / 10);
    }
  // The pickle itself, re-zipped with a correct CRC (the CRC check stops flips in the file's data.pkl).
  const std::string bytes = file_bytes(fixtures() / "torch1.13" / "views.pt");
  auto member = [&](const std::string& name) {
    // Found through the central directory, then the local header (stored members).
    size_t pos = 0;
    while ((pos = bytes.find(std::string("PK\x01\x02", 4), pos)) != std::string::npos) {
      const auto u = [&](size_t off, int n) {
        uint64_t x = 0;
        for (int i = n - 1; i >= 0; --i) x = (x << 8) | (unsigned char)bytes[pos + off + i];
        return x;
      };
      const size_t len = u(28, 2), extra = u(30, 2), comment = u(32, 2);
      const std::string n = bytes.substr(pos + 46, len);
      if (n == name) {
        const size_t local = u(42, 4), size = u(20, 4);
        uint64_t ln = 0, le = 0;
        for (int i = 1; i >= 0; --i) ln = (ln << 8) | (unsigned char)bytes[local + 26 + i];
        for (int i = 1; i >= 0; --i) le = (le << 8) | (unsigned char)bytes[local + 28 + i];
        return bytes.substr(local + 30 + ln + le, size);
      }
      pos += 46 + len + extra + comment;
    }
    ADD_FAILURE() << name;
    return std::string();
  };
  const std::string pkl = member("views/data.pkl"), d0 = member("views/data/0"), d1 = member("views/data/1");
  ASSERT_FALSE(pkl.empty());
  ASSERT_EQ(error_of(make_zip({{"views/data.pkl", pkl}, {"views/data/0", d0}, {"views/data/1", d1}})), "");
  for (size_t at = 0; at < pkl.size(); ++at)
    for (unsigned char x : {0x01, 0x80, 0xff}) {
      std::string bad = pkl;
      bad[at] ^= x;
      (void)error_of(make_zip({{"views/data.pkl", bad}, {"views/data/0", d0}, {"views/data/1", d1}}));
    }
}

}  // namespace
