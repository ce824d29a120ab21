// ONNX opset 18 schemas the packs emit: Reduce* with `axes` as an input, Split with `num_outputs`,
// Pad with `axes`, ScatterElements/ScatterND with reduction max/min, BitwiseAnd/Or/Xor/Not, Col2Im,
// Resize with `antialias`/`axes`/`keep_aspect_ratio_policy`, GroupNormalization, Mish.
#include "infer.hpp"
#include "schemas.hpp"

#include <cmath>
#include <set>

namespace t2o::core::onnx_schemas {

namespace {

using onnx::getAttribute;
using onnx::getInputShape;
using onnx::hasInputShape;
using onnx::propagateElemTypeFromInputToOutput;

// Reduce* from 18: data, optional axes input (constant here: the output shape follows from it).
void reduce_inference(InferenceContext& ctx) {
  propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!hasInputShape(ctx, 0)) return;
  const auto& in = getInputShape(ctx, 0);
  const int rank = in.dim_size();
  const bool keepdims = getAttribute(ctx, "keepdims", 1) != 0;
  const bool noop_empty = getAttribute(ctx, "noop_with_empty_axes", 0) != 0;
  std::vector<int64_t> axes;
  if (has_input(ctx, 1)) {
    auto given = const_ints(ctx, 1);
    if (!given) {  // axes computed at run time: only the rank is known, and only with keepdims
      if (keepdims) {
        auto* out = onnx::getOutputShape(ctx, 0);
        for (int i = 0; i < rank; ++i) out->add_dim();
      }
      return;
    }
    axes = *given;
  }
  auto* out = ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
  if (axes.empty() && noop_empty) {
    *out = in;
    return;
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(normalize_axis(a, rank, "axis"))] = true;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[static_cast<size_t>(i)]) *out->add_dim() = in.dim(i);
    else if (keepdims) out->add_dim()->set_dim_value(1);
  }
}

std::vector<std::string> reduction_types() { return onnx_compat::numeric_types_for_math_reduction_with_bfloat(); }
std::vector<std::string> max_min_types() {
  return concat(reduction_types(), {"tensor(uint8)", "tensor(int8)"});
}

// Split-18: the sizes come from the `split` input or, with `num_outputs`, equal chunks (the last smaller).
void split_inference(InferenceContext& ctx) {
  for (size_t i = 0; i < ctx.getNumOutputs(); ++i) propagateElemTypeFromInputToOutput(ctx, 0, i);
  const AttributeProto* num_outputs = ctx.getAttribute("num_outputs");
  const bool has_split = has_input(ctx, 1);
  if (has_split && num_outputs) fail_shape_inference("Split: give either the 'split' input or 'num_outputs', not both");
  if (!has_split && !num_outputs) fail_shape_inference("Split: neither the 'split' input nor 'num_outputs' is given");
  if (num_outputs && num_outputs->i() != static_cast<int64_t>(ctx.getNumOutputs()))
    fail_shape_inference("Split: num_outputs is ", num_outputs->i(), " but the node has ", ctx.getNumOutputs(), " outputs");
  if (!hasInputShape(ctx, 0)) return;
  const auto& in = getInputShape(ctx, 0);
  const int axis = normalize_axis(getAttribute(ctx, "axis", 0), in.dim_size(), "axis");
  const int64_t n = static_cast<int64_t>(ctx.getNumOutputs());
  std::vector<int64_t> sizes;
  if (has_split) {
    auto given = const_ints(ctx, 1);
    if (given) {
      if (static_cast<int64_t>(given->size()) != n)
        fail_shape_inference("Split: 'split' has ", given->size(), " sizes for ", n, " outputs");
      sizes = *given;
    }
  } else if (in.dim(axis).has_dim_value()) {
    const int64_t total = in.dim(axis).dim_value();
    const int64_t chunk = (total + n - 1) / n;
    for (int64_t i = 0; i < n; ++i) sizes.push_back(i + 1 < n ? chunk : total - chunk * (n - 1));
    if (sizes.back() <= 0) fail_shape_inference("Split: ", total, " cannot be split into ", n, " chunks");
  }
  for (size_t i = 0; i < ctx.getNumOutputs(); ++i) {
    auto* out = ctx.getOutputType(i)->mutable_tensor_type()->mutable_shape();
    *out = in;
    out->mutable_dim(axis)->clear_dim_value();
    out->mutable_dim(axis)->clear_dim_param();
    if (!sizes.empty()) out->mutable_dim(axis)->set_dim_value(sizes[i]);
  }
}

}  // namespace

OpSchema reduce_schema(const char* name, int since, std::vector<std::string> types, const char* file, int line) {
  OpSchema s = onnx_schema(name, since, file, line);
  s.Attr("keepdims", "keep the reduced dimensions (size 1)", AttributeProto::INT, static_cast<int64_t>(1))
      .Attr("noop_with_empty_axes", "empty axes: identity instead of reducing all", AttributeProto::INT,
            static_cast<int64_t>(0))
      .Input(0, "data", "input tensor", "T")
      .Input(1, "axes", "axes to reduce (default: all, see noop_with_empty_axes)", "tensor(int64)", kOptional)
      .Output(0, "reduced", "reduced tensor", "T")
      .TypeConstraint("T", std::move(types), "numeric tensors")
      .TypeAndShapeInferenceFunction(reduce_inference);
  return s;
}

// Pad from 18 (the form of 18, 19 and later differs only in the modes it accepts): data, pads,
// constant_value, axes. Shared with opset19.cpp.
void pad_inference(InferenceContext& ctx, const std::set<std::string>& modes) {
  const std::string mode = string_attr(ctx, "mode", "constant");
  if (!modes.count(mode)) fail_shape_inference("Pad: mode '", mode, "' is not defined at this opset");
  propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!hasInputShape(ctx, 0)) return;
  const auto& in = getInputShape(ctx, 0);
  const int rank = in.dim_size();
  std::vector<int64_t> axes;
  if (has_input(ctx, 3)) {
    auto given = const_ints(ctx, 3);
    if (!given) return;
    for (int64_t a : *given) axes.push_back(normalize_axis(a, rank, "axis"));
  } else {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  auto pads = const_ints(ctx, 1);
  auto* out = ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
  for (int i = 0; i < rank; ++i) out->add_dim();
  if (!pads) return;
  if (pads->size() != 2 * axes.size())
    fail_shape_inference("Pad: 'pads' has ", pads->size(), " values for ", axes.size(), " axes (needs twice as many)");
  std::vector<int64_t> added(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < axes.size(); ++k) added[static_cast<size_t>(axes[k])] += (*pads)[k] + (*pads)[k + axes.size()];
  for (int i = 0; i < rank; ++i) {
    if (in.dim(i).has_dim_value()) out->mutable_dim(i)->set_dim_value(in.dim(i).dim_value() + added[static_cast<size_t>(i)]);
    else if (added[static_cast<size_t>(i)] == 0) *out->mutable_dim(i) = in.dim(i);
  }
}

OpSchema pad_schema(int since, std::set<std::string> modes, const char* file, int line) {
  OpSchema s = onnx_schema("Pad", since, file, line);
  s.Attr("mode", "constant, reflect, edge (and wrap from 19)", AttributeProto::STRING, std::string("constant"))
      .Input(0, "data", "input tensor", "T")
      .Input(1, "pads", "begins then ends of each padded axis", "tensor(int64)")
      .Input(2, "constant_value", "value of constant padding", "T", kOptional)
      .Input(3, "axes", "the padded axes (default: all)", "Tind", kOptional)
      .Output(0, "output", "padded tensor", "T")
      .TypeConstraint("T", all_types(), "any tensor")
      .TypeConstraint("Tind", {"tensor(int32)", "tensor(int64)"}, "axes")
      .TypeAndShapeInferenceFunction([modes](InferenceContext& ctx) { pad_inference(ctx, modes); });
  return s;
}

// Resize from 18: X, roi, scales, sizes; shared with opset19.cpp (19 adds half_pixel_symmetric).
void resize_inference(InferenceContext& ctx, const std::set<std::string>& coordinate_modes) {
  const std::string coord = string_attr(ctx, "coordinate_transformation_mode", "half_pixel");
  if (!coordinate_modes.count(coord))
    fail_shape_inference("Resize: coordinate_transformation_mode '", coord, "' is not defined at this opset");
  const std::string policy = string_attr(ctx, "keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    fail_shape_inference("Resize: keep_aspect_ratio_policy '", policy, "' is not defined");
  propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!hasInputShape(ctx, 0)) return;
  const auto& in = getInputShape(ctx, 0);
  const int rank = in.dim_size();
  std::vector<int64_t> axes = ints_attr(ctx, "axes");
  for (auto& a : axes) a = normalize_axis(a, rank, "axis");
  if (axes.empty())
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  auto* out = ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
  out->Clear();
  for (int i = 0; i < rank; ++i) *out->add_dim() = in.dim(i);
  auto clear = [&](int i) {
    out->mutable_dim(i)->clear_dim_value();
    out->mutable_dim(i)->clear_dim_param();
  };
  for (int64_t a : axes) clear(static_cast<int>(a));
  // An empty tensor stands for an omitted scales or sizes (the opset 11-13 idiom, still valid).
  auto given = [&](size_t i) {
    if (!has_input(ctx, i)) return false;
    if (const TensorProto* t = ctx.getInputData(i)) {
      int64_t n = 1;
      for (auto d : t->dims()) n *= d;
      return n > 0;
    }
    return dim_value(ctx, i, 0) != 0;
  };
  const bool has_scales = given(2), has_sizes = given(3);
  if (has_scales == has_sizes) {
    if (has_scales) fail_shape_inference("Resize: give either 'scales' or 'sizes', not both");
    return;  // neither given as a named input: the checker reports the arity
  }
  if (has_sizes) {
    auto sizes = const_ints(ctx, 3);
    if (!sizes || policy != "stretch") return;
    if (sizes->size() != axes.size()) fail_shape_inference("Resize: 'sizes' has ", sizes->size(), " values for ", axes.size(), " axes");
    for (size_t k = 0; k < axes.size(); ++k) out->mutable_dim(static_cast<int>(axes[k]))->set_dim_value((*sizes)[k]);
    return;
  }
  const TensorProto* scales = ctx.getInputData(2);
  if (!scales || scales->data_type() != TensorProto::FLOAT) return;
  std::vector<float> v;
  if (scales->has_raw_data()) {
    v.resize(scales->raw_data().size() / sizeof(float));
    std::memcpy(v.data(), scales->raw_data().data(), v.size() * sizeof(float));
  } else {
    v.assign(scales->float_data().begin(), scales->float_data().end());
  }
  if (v.size() != axes.size()) fail_shape_inference("Resize: 'scales' has ", v.size(), " values for ", axes.size(), " axes");
  for (size_t k = 0; k < axes.size(); ++k) {
    int i = static_cast<int>(axes[k]);
    if (in.dim(i).has_dim_value())
      out->mutable_dim(i)->set_dim_value(static_cast<int64_t>(std::floor(in.dim(i).dim_value() * v[k])));
  }
}

OpSchema resize_schema(int since, std::set<std::string> coordinate_modes, const char* file, int line) {
  OpSchema s = onnx_schema("Resize", since, file, line);
  s.Attr("antialias", "antialiasing filter when downsampling (linear, cubic)", AttributeProto::INT, static_cast<int64_t>(0))
      .Attr("axes", "the axes scales/sizes refer to", AttributeProto::INTS, false)
      .Attr("coordinate_transformation_mode", "how output coordinates map to input coordinates", AttributeProto::STRING,
            std::string("half_pixel"))
      .Attr("cubic_coeff_a", "cubic interpolation coefficient", AttributeProto::FLOAT, -0.75f)
      .Attr("exclude_outside", "weights outside the input set to 0", AttributeProto::INT, static_cast<int64_t>(0))
      .Attr("extrapolation_value", "value outside the input (tf_crop_and_resize)", AttributeProto::FLOAT, 0.0f)
      .Attr("keep_aspect_ratio_policy", "stretch, not_larger, not_smaller (with sizes)", AttributeProto::STRING,
            std::string("stretch"))
      .Attr("mode", "nearest, linear, cubic", AttributeProto::STRING, std::string("nearest"))
      .Attr("nearest_mode", "rounding of nearest mode", AttributeProto::STRING, std::string("round_prefer_floor"))
      .Input(0, "X", "input tensor", "T1")
      .Input(1, "roi", "region of interest (tf_crop_and_resize)", "T2", kOptional)
      .Input(2, "scales", "scale per axis", "tensor(float)", kOptional)
      .Input(3, "sizes", "output size per axis", "tensor(int64)", kOptional)
      .Output(0, "Y", "resized tensor", "T1")
      .TypeConstraint("T1", all_types(), "any tensor")
      .TypeConstraint("T2", {"tensor(float16)", "tensor(float)", "tensor(double)"}, "roi")
      .TypeAndShapeInferenceFunction(
          [coordinate_modes](InferenceContext& ctx) { resize_inference(ctx, coordinate_modes); });
  return s;
}

const std::set<std::string>& resize_modes_18() {
  static const std::set<std::string> modes{"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                           "tf_crop_and_resize"};
  return modes;
}

// GroupNormalization: scale/bias have num_groups values at 18, C values from 21.
OpSchema group_norm_schema(int since, const char* file, int line) {
  const bool per_channel = since >= 21;
  OpSchema s = onnx_schema("GroupNormalization", since, file, line);
  s.Attr("epsilon", "added to the variance", AttributeProto::FLOAT, 1e-5f)
      .Attr("num_groups", "number of groups of channels", AttributeProto::INT, true)
      .Input(0, "X", "input (N, C, D1, ...)", "T")
      .Input(1, "scale", per_channel ? "scale per channel (C)" : "scale per group (num_groups)", "T")
      .Input(2, "bias", per_channel ? "bias per channel (C)" : "bias per group (num_groups)", "T")
      .Output(0, "Y", "normalized tensor, X's shape", "T")
      .TypeConstraint("T", float_types(), "float tensors")
      .TypeAndShapeInferenceFunction([per_channel](InferenceContext& ctx) {
        same_as_input0(ctx);
        const int64_t groups = getAttribute(ctx, "num_groups", -1);
        const int64_t channels = dim_value(ctx, 0, 1);
        if (groups > 0 && channels > 0 && channels % groups != 0)
          fail_shape_inference("GroupNormalization: ", channels, " channels are not divisible into ", groups, " groups");
        const int64_t expected = per_channel ? channels : groups;
        for (size_t i = 1; i <= 2; ++i) {
          if (rank_of(ctx, i) > 1) fail_shape_inference("GroupNormalization: scale and bias must be 1-D");
          int64_t n = dim_value(ctx, i, 0);
          if (expected > 0 && n > 0 && n != expected)
            fail_shape_inference("GroupNormalization-", per_channel ? 21 : 18, ": scale/bias have ", n,
                                 " values, expected ", expected, per_channel ? " (channels)" : " (groups)");
        }
      });
  if (per_channel) s.Attr("stash_type", "precision of the first stage", AttributeProto::INT, static_cast<int64_t>(1));
  return s;
}

void opset18_schemas(std::vector<OpSchema>& out) {
  for (const char* name : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMean", "ReduceProd",
                           "ReduceSumSquare"})
    out.push_back(reduce_schema(name, 18, reduction_types(), __FILE__, __LINE__));
  out.push_back(reduce_schema("ReduceMax", 18, max_min_types(), __FILE__, __LINE__));
  out.push_back(reduce_schema("ReduceMin", 18, max_min_types(), __FILE__, __LINE__));

  {
    OpSchema s = T2O_SCHEMA("Split", 18);
    s.Attr("axis", "axis to split on", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("num_outputs", "number of equal chunks (the last may be smaller)", AttributeProto::INT, false)
        .Input(0, "input", "tensor to split", "T")
        .Input(1, "split", "length of each output", "tensor(int64)", kOptional)
        .Output(0, "outputs", "the pieces", "T", kVariadic, true, 1)
        .TypeConstraint("T", all_types(), "any tensor")
        .TypeAndShapeInferenceFunction(split_inference);
    out.push_back(std::move(s));
  }

  out.push_back(pad_schema(18, {"constant", "reflect", "edge"}, __FILE__, __LINE__));

  {
    OpSchema s = T2O_SCHEMA("ScatterElements", 18);
    s.Attr("axis", "axis to scatter on", AttributeProto::INT, static_cast<int64_t>(0))
        .Attr("reduction", "none, add, mul, max, min", AttributeProto::STRING, std::string("none"))
        .Input(0, "data", "tensor to update", "T")
        .Input(1, "indices", "where, along axis", "Tind")
        .Input(2, "updates", "values", "T")
        .Output(0, "output", "data's shape", "T")
        .TypeConstraint("T", all_types(), "any tensor")
        .TypeConstraint("Tind", {"tensor(int32)", "tensor(int64)"}, "indices")
        .TypeAndShapeInferenceFunction(same_as_input0);
    out.push_back(std::move(s));
  }
  {
    OpSchema s = T2O_SCHEMA("ScatterND", 18);
    s.Attr("reduction", "none, add, mul, max, min", AttributeProto::STRING, std::string("none"))
        .Input(0, "data", "tensor to update", "T")
        .Input(1, "indices", "index tuples", "tensor(int64)")
        .Input(2, "updates", "values", "T")
        .Output(0, "output", "data's shape", "T")
        .TypeConstraint("T", all_types(), "any tensor")
        .TypeAndShapeInferenceFunction(same_as_input0);
    out.push_back(std::move(s));
  }

  for (const char* name : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    OpSchema s = onnx_schema(name, 18, __FILE__, __LINE__);
    s.Input(0, "A", "first operand", "T")
        .Input(1, "B", "second operand (broadcast)", "T")
        .Output(0, "C", "result", "T")
        .TypeConstraint("T", integer_types(), "integer tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          propagateElemTypeFromInputToOutput(ctx, 0, 0);
          if (hasInputShape(ctx, 0) && hasInputShape(ctx, 1))
            onnx::bidirectionalBroadcastShapeInference(getInputShape(ctx, 0), getInputShape(ctx, 1),
                                                       *onnx::getOutputShape(ctx, 0));
        });
    out.push_back(std::move(s));
  }
  {
    OpSchema s = T2O_SCHEMA("BitwiseNot", 18);
    s.Input(0, "X", "input", "T")
        .Output(0, "Y", "bitwise complement", "T")
        .TypeConstraint("T", integer_types(), "integer tensors")
        .TypeAndShapeInferenceFunction(same_as_input0);
    out.push_back(std::move(s));
  }

  {
    OpSchema s = T2O_SCHEMA("Col2Im", 18);
    s.Attr("dilations", "dilation per spatial axis", AttributeProto::INTS, false)
        .Attr("pads", "begins then ends per spatial axis", AttributeProto::INTS, false)
        .Attr("strides", "stride per spatial axis", AttributeProto::INTS, false)
        .Input(0, "input", "(N, C * prod(block_shape), L)", "T")
        .Input(1, "image_shape", "spatial shape of the image", "tensor(int64)")
        .Input(2, "block_shape", "spatial shape of the block", "tensor(int64)")
        .Output(0, "output", "(N, C, image_shape...)", "T")
        .TypeConstraint("T", all_types(), "any tensor")
        .TypeAndShapeInferenceFunction([](InferenceContext& ctx) {
          propagateElemTypeFromInputToOutput(ctx, 0, 0);
          if (rank_of(ctx, 0) >= 0 && rank_of(ctx, 0) != 3) fail_shape_inference("Col2Im: input must be 3-D");
          auto image = const_ints(ctx, 1);
          auto block = const_ints(ctx, 2);
          if (!image) return;
          if (block && block->size() != image->size())
            fail_shape_inference("Col2Im: image_shape and block_shape differ in length");
          auto* shape = onnx::getOutputShape(ctx, 0);
          set_dim(shape, dim_value(ctx, 0, 0));
          int64_t cols = dim_value(ctx, 0, 1), block_size = 1;
          if (block)
            for (int64_t b : *block) block_size *= b;
          if (cols >= 0 && block && cols % block_size != 0)
            fail_shape_inference("Col2Im: dim 1 (", cols, ") is not a multiple of the block size ", block_size);
          set_dim(shape, cols >= 0 && block ? cols / block_size : -1);
          for (int64_t d : *image) set_dim(shape, d);
        });
    out.push_back(std::move(s));
  }

  out.push_back(resize_schema(18, resize_modes_18(), __FILE__, __LINE__));
  out.push_back(group_norm_schema(18, __FILE__, __LINE__));

  {
    OpSchema s = T2O_SCHEMA("Mish", 18);
    s.Input(0, "X", "input", "T")
        .Output(0, "Y", "x * tanh(softplus(x))", "T")
        .TypeConstraint("T", {"tensor(float16)", "tensor(float)", "tensor(double)"}, "float tensors")
        .TypeAndShapeInferenceFunction(same_as_input0);
    out.push_back(std::move(s));
  }
}

}  // namespace t2o::core::onnx_schemas
