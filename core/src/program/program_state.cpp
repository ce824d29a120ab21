#include "program/program_state.hpp"

#include "program/checked_json.hpp"
#include "program/program_graph.hpp"
#include "program/torch_pickle.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <nlohmann/json.hpp>

namespace t2o::core::program {

namespace {

c10::IValue unpickle(const Pt2Archive& archive, const std::string& member) {
  MemberBytes bytes = archive.read(member);
  return read_torch_save(bytes.owner, bytes.data, bytes.size, member + " of " + archive.path());
}

// A dict of name -> tensor from a pickle (state dicts, constants).
void add_tensor_dict(const c10::IValue& v, const std::string& what, std::map<std::string, at::Tensor>& out) {
  if (!v.isGenericDict()) throw ExportError(what + ": expected a dict of tensors, found " + v.tagKind());
  for (const auto& item : v.toGenericDict()) {
    if (!item.key().isString()) throw ExportError(what + ": a key that is not a string (" + item.key().tagKind() + ")");
    const std::string name = item.key().toStringRef();
    if (item.value().isTensor()) {
      out[name] = item.value().toTensor();
    } else if (item.value().isNone()) {
      // An optional buffer that is None: nothing reads it as a tensor.
    } else {
      throw ExportError(what + ": '" + name + "' is a " + item.value().tagKind() +
                        ", not a tensor (a TorchBind object or tensor subclass cannot be converted)");
    }
  }
}

int64_t element_size(c10::ScalarType st) { return (int64_t)c10::elementSize(st); }

// Raw records described by a payload config ({"config": {fqn: {path_name, is_param, use_pickle,
// tensor_meta}}}), each a tensor over the record's bytes.
void add_raw_records(const Pt2Archive& archive, const std::string& folder, const std::string& config_member,
                     std::map<std::string, at::Tensor>& out) {
  MemberBytes bytes = archive.read(config_member);
  const std::string file = archive.path() + ": " + config_member;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes.data, bytes.data + bytes.size);
  } catch (const std::exception& e) {
    throw ExportError(file + ": not valid JSON (" + std::string(e.what()).substr(0, 160) + ")");
  }
  JsonAt root(j, file, "");
  for (const auto& [name, meta] : root.at("config").members()) {
    if (meta.has("use_pickle") && meta.at("use_pickle").boolean()) {
      // A tensor subclass or a custom object: pickled Python objects we cannot rebuild.
      meta.fail("'" + name + "' is pickled (a tensor subclass or a TorchBind object), which cannot be converted");
    }
    auto tm = meta.opt("tensor_meta");
    if (!tm) meta.fail("'" + name + "' has no tensor_meta (a custom object, which cannot be converted)");
    const std::string record = folder + meta.at("path_name").str();
    if (!archive.has(record)) meta.at("path_name").fail("no record " + record + " in the archive");
    const c10::ScalarType st = scalar_type_of(tm->at("dtype"));
    std::vector<int64_t> sizes, strides;
    auto concrete = [&](const JsonAt& s) -> int64_t {
      auto [key, v] = s.union_member();
      if (key != "as_int") s.fail("a weight's size or stride must be concrete, found '" + key + "'");
      return v.integer();
    };
    for (const auto& s : tm->at("sizes").items()) sizes.push_back(concrete(s));
    if (auto st_json = tm->opt("strides"))
      for (const auto& s : st_json->items()) strides.push_back(concrete(s));
    if (strides.empty()) {
      auto contiguous = c10::contiguous_strides(sizes);
      strides.assign(contiguous.begin(), contiguous.end());
    }
    if (strides.size() != sizes.size()) tm->fail("'" + name + "' has " + std::to_string(sizes.size()) + " sizes but " +
                                                 std::to_string(strides.size()) + " strides");
    int64_t offset = 0;
    if (auto so = tm->opt("storage_offset")) offset = concrete(*so);
    // The highest element the view reaches, checked against the record: never read past it.
    int64_t extent = 1;
    bool empty = false;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] < 0 || strides[d] < 0) tm->fail("'" + name + "' has a negative size or stride");
      if (sizes[d] == 0) empty = true;
      else if (strides[d] > 0 && (sizes[d] - 1) > (INT64_MAX / 4 - extent) / strides[d])
        tm->fail("'" + name + "' has sizes and strides too large for any file");
      else extent += (sizes[d] - 1) * strides[d];
    }
    if (offset < 0) tm->fail("'" + name + "' has a negative storage offset");
    MemberBytes data = archive.read(record);
    const int64_t itemsize = element_size(st);
    const uint64_t needed = empty ? 0 : (uint64_t)(offset + extent) * (uint64_t)itemsize;
    if (needed > data.size)
      tm->fail("'" + name + "' needs " + std::to_string(needed) + " bytes of record " + record + ", which holds " +
               std::to_string(data.size));
    auto owner = data.owner;
    at::Tensor t = empty ? at::empty(sizes, at::TensorOptions().dtype(st))
                         : at::from_blob(const_cast<char*>(data.data), {(int64_t)(data.size / itemsize)},
                                         [owner](void*) {}, at::TensorOptions().dtype(st))
                               .as_strided(sizes, strides, offset);
    out[name] = t;
  }
}

}  // namespace

std::map<std::string, at::Tensor> read_program_state(const Pt2Archive& archive, const std::string& model) {
  std::map<std::string, at::Tensor> out;
  if (archive.layout() == Pt2Layout::Flat) {
    for (const char* member : {"serialized_state_dict.pt", "serialized_constants.pt"})
      if (archive.has(member)) add_tensor_dict(unpickle(archive, member), std::string(member) + " of " + archive.path(), out);
    return out;
  }
  for (const std::string kind : {"weights", "constants"}) {
    const std::string folder = "data/" + kind + "/";
    const std::string config = folder + model + "_" + kind + "_config.json";
    if (archive.has(config)) {
      add_raw_records(archive, folder, config, out);
    } else if (archive.has(folder + model + ".pt")) {
      add_tensor_dict(unpickle(archive, folder + model + ".pt"), folder + model + ".pt of " + archive.path(), out);
    }
  }
  return out;
}

std::optional<c10::IValue> read_sample_inputs(const Pt2Archive& archive, const std::string& model) {
  const std::string member =
      archive.layout() == Pt2Layout::Flat ? "serialized_example_inputs.pt" : "data/sample_inputs/" + model + ".pt";
  if (!archive.has(member)) return std::nullopt;
  return unpickle(archive, member);
}

}  // namespace t2o::core::program
