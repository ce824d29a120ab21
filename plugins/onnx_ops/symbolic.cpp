// onnx_symbolic::_symbolic / _symbolic_multi_out (torch.onnx.ops.symbolic / symbolic_multi_out) -> the
// ONNX node they declare: domain and op_type, the attributes decoded from the parallel lists with
// their ONNX types, trailing None inputs dropped (inner ones become empty inputs), the domain's
// version into opset_import, metadata_props on the node, outputs typed as declared.
//
// onnx_symbolic::_symbolic(Tensor?[] inputs, str op_type, int onnx_dtype, *, SymInt[] shape,
//     str[] attr_keys, str[] attr_types, int[][] attr_pos, int[] attr_ints, float[] attr_floats,
//     str[] attr_strs, str[] metadata_props_keys, str[] metadata_props_values, str domain='',
//     int? version=None) -> Tensor
// onnx_symbolic::_symbolic_multi_out(Tensor?[] inputs, str op_type, int[] onnx_dtypes, *,
//     SymInt[][] shapes, ...same...) -> Tensor[]
#include <torch2onnx/plugin.hpp>

#include "common/util.hpp"

#include <string>
#include <vector>

using namespace t2o;

namespace {

enum Arg { kInputs = 0, kOpType, kDtypes, kShapes, kAttrKeys, kAttrTypes, kAttrPos, kAttrInts, kAttrFloats,
           kAttrStrs, kMetaKeys, kMetaValues, kDomain, kVersion };

std::vector<std::string> strings_of(Ctx& ctx, const Value& list, const char* what) {
  if (!list.is_const()) unsupported(ctx.kind() + ": " + what + " must be constant");
  std::vector<std::string> out;
  for (const auto& item : list.items()) out.push_back(item.to_string());
  return out;
}

std::vector<double> floats_of(Ctx& ctx, const Value& list) {
  if (!list.is_const()) unsupported(ctx.kind() + ": attr_floats must be constant");
  std::vector<double> out;
  for (const auto& item : list.items()) out.push_back(item.to_float());
  return out;
}

std::vector<int64_t> ints_of(Ctx& ctx, const Value& list, const char* what) {
  if (!list.is_const()) unsupported(ctx.kind() + ": " + what + " must be constant");
  return list.to_ints();
}

// The attribute dictionary from its encoding (torch/onnx/ops/_symbolic_impl.py, EncodedAttrs).
std::vector<Attr> decode_attrs(Ctx& ctx) {
  const auto keys = strings_of(ctx, ctx.input(kAttrKeys), "attr_keys");
  const auto types = strings_of(ctx, ctx.input(kAttrTypes), "attr_types");
  const Value pos_list = ctx.input(kAttrPos);
  const auto ints = ints_of(ctx, ctx.input(kAttrInts), "attr_ints");
  const auto floats = floats_of(ctx, ctx.input(kAttrFloats));
  const auto strs = strings_of(ctx, ctx.input(kAttrStrs), "attr_strs");
  if (types.size() != keys.size() || (size_t)pos_list.list_size() != keys.size())
    fail(ctx.kind() + ": attr_keys, attr_types and attr_pos differ in length (" + std::to_string(keys.size()) + ", " +
         std::to_string(types.size()) + ", " + std::to_string(pos_list.list_size()) + ")");
  std::vector<Attr> attrs;
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto pos = ints_of(ctx, pos_list.item((int64_t)i), "attr_pos");
    const std::string& key = keys[i];
    const std::string& type = types[i];
    size_t store_size = type == "i" || type == "is" ? ints.size() : type == "f" || type == "fs" ? floats.size()
                                                                                               : strs.size();
    if (pos.size() != 2 || pos[0] < 0 || pos[1] < pos[0] || (size_t)pos[1] > store_size)
      fail(ctx.kind() + ": attribute '" + key + "': position " + pack::str(pos) + " outside its list");
    const size_t b = (size_t)pos[0], e = (size_t)pos[1];
    if (type == "i") attrs.push_back(Attr::i(key, ints.at(b)));
    else if (type == "f") attrs.push_back(Attr::f(key, floats.at(b)));
    else if (type == "s") attrs.push_back(Attr::s(key, strs.at(b)));
    else if (type == "is") attrs.push_back(Attr::ints(key, {ints.begin() + b, ints.begin() + e}));
    else if (type == "fs") attrs.push_back(Attr::floats(key, {floats.begin() + b, floats.begin() + e}));
    else if (type == "ss") attrs.push_back(Attr::strings(key, {strs.begin() + b, strs.begin() + e}));
    else fail(ctx.kind() + ": attribute '" + key + "' has unknown type '" + type + "' (expected i, f, s, is, fs, ss)");
  }
  return attrs;
}

void convert_symbolic(Ctx& ctx, bool multi_out) {
  const std::string op_type = ctx.input(kOpType).to_string();
  const std::string domain = ctx.input(kDomain).to_string();
  if (op_type.empty()) fail(ctx.kind() + ": empty op_type");

  std::vector<Value> inputs;
  for (const auto& item : ctx.input(kInputs).items()) inputs.push_back(item.is_none() ? Value() : item);
  while (!inputs.empty() && !inputs.back().valid()) inputs.pop_back();

  std::vector<int64_t> dtypes = multi_out ? ints_of(ctx, ctx.input(kDtypes), "onnx_dtypes")
                                          : std::vector<int64_t>{ctx.input(kDtypes).to_int()};
  const Value version = ctx.input(kVersion);
  if (!version.is_none()) {
    if (domain.empty() || domain == "ai.onnx") {
      // The default domain's version is the export's --opset.
      if (version.to_int() != ctx.opset())
        unsupported(ctx.kind() + ": version=" + std::to_string(version.to_int()) + " of the default domain, but the "
                    "target is --opset " + std::to_string(ctx.opset()));
    } else {
      ctx.require_opset(domain.c_str(), version.to_int());
    }
  }

  const auto meta_keys = strings_of(ctx, ctx.input(kMetaKeys), "metadata_props_keys");
  const auto meta_values = strings_of(ctx, ctx.input(kMetaValues), "metadata_props_values");
  if (meta_keys.size() != meta_values.size())
    fail(ctx.kind() + ": metadata_props_keys and metadata_props_values differ in length");
  if (!meta_keys.empty() && !T2O_HAS_MEMBER(ctx.host(), t2o_host_api, node_add_metadata))
    unsupported(ctx.kind() + ": metadata_props need a host with node metadata (node_add_metadata)");

  std::vector<Value> outs = ctx.op_n(op_type, inputs, (int32_t)dtypes.size(), decode_attrs(ctx), domain);
  for (size_t i = 0; i < meta_keys.size(); ++i)
    ctx.check(ctx.host()->node_add_metadata(ctx.raw(), outs[0].id(), meta_keys[i].c_str(), meta_values[i].c_str()));

  if (multi_out) {
    const Value shapes = ctx.input(kShapes);
    for (size_t i = 0; i < outs.size(); ++i) {
      const Value shape = shapes.item((int64_t)i);
      std::vector<int64_t> dims;
      for (const auto& d : shape.items()) dims.push_back(d.is_const() ? d.to_int() : -1);
      ctx.set_type(outs[i], (t2o_dtype)dtypes[i], dims);
    }
    ctx.set_output(0, ctx.make_list(outs));
  } else {
    std::vector<int64_t> dims;
    for (const auto& d : ctx.input(kShapes).items()) dims.push_back(d.is_const() ? d.to_int() : -1);
    ctx.set_type(outs[0], (t2o_dtype)dtypes[0], dims);
    ctx.set_output(0, outs[0]);
  }
}

}  // namespace

T2O_SYMBOLIC("onnx_symbolic::_symbolic", 9) { convert_symbolic(ctx, false); }

T2O_SYMBOLIC("onnx_symbolic::_symbolic_multi_out", 9) { convert_symbolic(ctx, true); }
