// Quantized models: packed parameters and quantized constants made visible to the packs.
//
// torch.ao's quantized modules keep their weights in packed-parameter objects
// (Conv2dPackedParamsBase, Conv3dPackedParamsBase, LinearPackedParamsBase): after freezing these are
// object constants of the graph that no symbolic can read. Here, at prepare time, each one is
// unpacked with libtorch's own ops (quantized::conv2d_unpack, conv2d_stride, …, linear_unpack) and
// replaced by a node that rebuilds it from ordinary constants:
//
//   torch2onnx::conv_packed_params(Tensor weight, Tensor? bias, int[] stride, int[] padding,
//       int[] output_padding, int[] dilation, int groups, bool transposed)
//       -> __torch__.torch.classes.quantized.Conv2dPackedParamsBase     (1-d and 2-d convolutions)
//   torch2onnx::conv3d_packed_params(same arguments) -> …Conv3dPackedParamsBase
//   torch2onnx::linear_packed_params(Tensor weight, Tensor? bias) -> …LinearPackedParamsBase
//
// and a dynamically quantized RNN's CellParamsBase becomes quantized::make_quantized_cell_params_dynamic
// over two such linear_packed_params (with their biases). The EmbeddingPackedParamsBase of a quantized
// Embedding / EmbeddingBag (float_qparams_weight_only_qconfig: quint8 or quint4x2 rows, per-row float
// scale and FLOAT zero point), unpacked with quantized::embedding_bag_unpack, becomes
//
//   torch2onnx::embedding_packed_params(Tensor data, Tensor scale, Tensor zero_point, int bit_rate)
//       -> …EmbeddingPackedParamsBase
//
// data: uint8 [N, D], one value per element (4-bit values unpacked, low nibble first as quint4x2 stores
// them); scale, zero_point: float32 [N]; bit_rate 8 or 4. Not a quantized_tensor: DequantizeLinear has
// no float zero points (the quantized pack dequantizes these rows itself, plugins/quantized/embedding.cpp).
//
// Every quantized tensor constant (the unpacked weights included) becomes
//
//   torch2onnx::quantized_tensor(Tensor int_repr, Tensor scale, Tensor zero_point, int axis) -> Tensor
//
// int_repr: the integer data (int8 for qint8, uint8 for quint8, int32 for qint32); scale: float32,
// 0-d (per tensor, axis = -1) or 1-d along `axis` (per channel); zero_point: int64, same shape.
// The quantized pack converts these ops (plugins/quantized/params.cpp); symbolics of quantized ops
// then see weight, bias, stride, … as ordinary values.
//
// The kernels of these ops rebuild the real objects (quantized::conv2d_prepack, …), so the example
// run still runs the model; outside an example run they refuse to run, so that constant propagation
// never folds them back into object constants.
#include "load/model_loader.hpp"

#include "torch2onnx/core/custom_ops.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <ATen/Context.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/custom_class.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

namespace t2o::core {

namespace {

constexpr const char* kConvParams = "__torch__.torch.classes.quantized.Conv2dPackedParamsBase";
constexpr const char* kConv3dParams = "__torch__.torch.classes.quantized.Conv3dPackedParamsBase";
constexpr const char* kLinearParams = "__torch__.torch.classes.quantized.LinearPackedParamsBase";
constexpr const char* kCellParams = "__torch__.torch.classes.rnn.CellParamsBase";
constexpr const char* kEmbeddingParams = "__torch__.torch.classes.quantized.EmbeddingPackedParamsBase";

torch::jit::Stack call_op(const char* name, torch::jit::Stack stack) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  op.callBoxed(&stack);
  return stack;
}

void only_in_example_runs(const char* name) {
  if (!custom_op_kernels_on())
    throw std::runtime_error(std::string(name) + " runs in example runs only (it stands for a packed constant)");
}

// Kernels of the ops above: rebuild what the unpacking took apart.
void quantized_tensor_kernel(torch::jit::Stack& stack) {
  only_in_example_runs("torch2onnx::quantized_tensor");
  const int64_t axis = stack.back().toInt();
  const at::Tensor zero_point = stack[stack.size() - 2].toTensor();
  const at::Tensor scale = stack[stack.size() - 3].toTensor();
  const at::Tensor data = stack[stack.size() - 4].toTensor();
  torch::jit::drop(stack, 4);
  if (axis < 0)
    stack.emplace_back(at::_make_per_tensor_quantized_tensor(data, scale.item<double>(), zero_point.item<int64_t>()));
  else
    stack.emplace_back(at::_make_per_channel_quantized_tensor(data, scale.to(at::kDouble), zero_point, axis));
}

void conv_params_kernel(torch::jit::Stack& stack) {
  only_in_example_runs("torch2onnx::conv_packed_params");
  auto args = torch::jit::last(stack, 8).vec();
  torch::jit::drop(stack, 8);
  const bool transposed = args[7].toBool();
  const int64_t dims = args[0].toTensor().dim() - 2;
  static const char* const plain[] = {"quantized::conv1d_prepack", "quantized::conv2d_prepack", "quantized::conv3d_prepack"};
  static const char* const transpose[] = {"quantized::conv_transpose1d_prepack", "quantized::conv_transpose2d_prepack",
                                          "quantized::conv_transpose3d_prepack"};
  if (dims < 1 || dims > 3) throw std::runtime_error("torch2onnx::conv_packed_params: weight of rank " + std::to_string(dims + 2));
  torch::jit::Stack in = {args[0], args[1], args[2], args[3]};
  if (transposed) in.push_back(args[4]);
  in.push_back(args[5]);
  in.push_back(args[6]);
  auto out = call_op(transposed ? transpose[dims - 1] : plain[dims - 1], std::move(in));
  stack.push_back(std::move(out.at(0)));
}

void linear_params_kernel(torch::jit::Stack& stack) {
  only_in_example_runs("torch2onnx::linear_packed_params");
  auto args = torch::jit::last(stack, 2).vec();
  torch::jit::drop(stack, 2);
  const bool fp16 = args[0].toTensor().scalar_type() == at::kHalf;
  if (fp16) args[0] = args[0].toTensor().to(at::kFloat);
  auto out = call_op(fp16 ? "quantized::linear_prepack_fp16" : "quantized::linear_prepack", std::move(args));
  stack.push_back(std::move(out.at(0)));
}

// Rebuilds the per-row quantized table (float qparams) and packs it with quantized::embedding_bag_prepack.
void embedding_params_kernel(torch::jit::Stack& stack) {
  only_in_example_runs("torch2onnx::embedding_packed_params");
  const int64_t bit_rate = stack.back().toInt();
  const at::Tensor zero_point = stack[stack.size() - 2].toTensor().to(at::kFloat).contiguous();
  const at::Tensor scale = stack[stack.size() - 3].toTensor().to(at::kFloat).contiguous();
  const at::Tensor data = stack[stack.size() - 4].toTensor().to(at::kByte).contiguous();
  torch::jit::drop(stack, 4);
  if (data.dim() != 2 || (bit_rate != 8 && bit_rate != 4))
    throw std::runtime_error("torch2onnx::embedding_packed_params: data of rank " + std::to_string(data.dim()) +
                             ", bit_rate " + std::to_string(bit_rate));
  const int64_t rows = data.size(0), cols = data.size(1);
  at::Tensor q = at::_empty_per_channel_affine_quantized({rows, cols}, scale, zero_point, 0,
                                                         at::device(at::kCPU).dtype(bit_rate == 8 ? at::kQUInt8 : at::kQUInt4x2));
  const uint8_t* in = data.data_ptr<uint8_t>();
  uint8_t* out = static_cast<uint8_t*>(q.data_ptr());
  if (bit_rate == 8) {
    std::memcpy(out, in, size_t(rows * cols));
  } else {
    const int64_t row_bytes = (cols + 1) / 2;
    std::memset(out, 0, size_t(rows * row_bytes));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[r * row_bytes + c / 2] |= uint8_t((in[r * cols + c] & 15) << ((c % 2) * 4));
  }
  auto packed = call_op("quantized::embedding_bag_prepack", {q});
  stack.push_back(std::move(packed.at(0)));
}

void register_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    const auto alias = c10::AliasAnalysisKind::FROM_SCHEMA;
    static torch::jit::RegisterOperators registered({
        torch::jit::Operator(
            "torch2onnx::quantized_tensor(Tensor int_repr, Tensor scale, Tensor zero_point, int axis) -> Tensor",
            quantized_tensor_kernel, alias),
        torch::jit::Operator(
            std::string("torch2onnx::conv_packed_params(Tensor weight, Tensor? bias, int[] stride, int[] padding, "
                        "int[] output_padding, int[] dilation, int groups, bool transposed) -> ") + kConvParams,
            conv_params_kernel, alias),
        torch::jit::Operator(
            std::string("torch2onnx::conv3d_packed_params(Tensor weight, Tensor? bias, int[] stride, int[] padding, "
                        "int[] output_padding, int[] dilation, int groups, bool transposed) -> ") + kConv3dParams,
            conv_params_kernel, alias),
        torch::jit::Operator(
            std::string("torch2onnx::linear_packed_params(Tensor weight, Tensor? bias) -> ") + kLinearParams,
            linear_params_kernel, alias),
        torch::jit::Operator(
            std::string("torch2onnx::embedding_packed_params(Tensor data, Tensor scale, Tensor zero_point, int bit_rate) -> ") +
                kEmbeddingParams,
            embedding_params_kernel, alias),
    });
  });
}

std::string class_name(const c10::TypePtr& type) {
  auto cls = type->cast<c10::ClassType>();
  return cls && cls->name() ? cls->name()->qualifiedName() : std::string();
}

// torch2onnx::quantized_tensor over constants, inserted before the current insertion point.
torch::jit::Value* quantized_tensor(torch::jit::Graph& g, const at::Tensor& q) {
  at::Tensor scale, zero_point;
  int64_t axis = -1;
  if (q.qscheme() == at::kPerTensorAffine) {
    scale = at::scalar_tensor(q.q_scale(), at::kFloat);
    zero_point = at::scalar_tensor(q.q_zero_point(), at::kLong);
  } else if (q.qscheme() == at::kPerChannelAffine) {
    scale = q.q_per_channel_scales().to(at::kFloat).contiguous();
    zero_point = q.q_per_channel_zero_points().to(at::kLong).contiguous();
    axis = q.q_per_channel_axis();
  } else {
    throw ExportError(std::string("a quantized constant uses the quantization scheme ") + c10::toString(q.qscheme()) +
                      ", which ONNX's QuantizeLinear/DequantizeLinear cannot express (per-tensor and per-channel affine only)");
  }
  auto* n = g.create(c10::Symbol::fromQualString("torch2onnx::quantized_tensor"),
                     {g.insertConstant(q.int_repr().contiguous().detach()), g.insertConstant(scale),
                      g.insertConstant(zero_point), g.insertConstant(axis)});
  n->output()->setType(c10::TensorType::get());
  return g.insertNode(n)->output();
}

torch::jit::Value* constant_or_none(torch::jit::Graph& g, const c10::IValue& v) {
  if (v.isNone()) return g.insertConstant(c10::IValue());
  at::Tensor t = v.toTensor();
  // detach: unpacked biases may require grad, and constants must not.
  return t.is_quantized() ? quantized_tensor(g, t.detach()) : g.insertConstant(t.contiguous().detach());
}

std::vector<int64_t> last_n(std::vector<int64_t> v, size_t n) {
  // 1-d convolutions are packed as 2-d ones with a leading unit dim: keep the real ones.
  if (v.size() > n) v.erase(v.begin(), v.end() - n);
  return v;
}

int64_t conv_spatial_dims(torch::jit::Value* params, bool is3d) {
  if (is3d) return 3;
  for (const auto& use : params->uses()) {
    const std::string kind = use.user->kind().toQualString();
    if (kind.find("conv1d") != std::string::npos || kind.find("conv_transpose1d") != std::string::npos) return 1;
  }
  return 2;
}

// torch2onnx::linear_packed_params over the unpacked weight and bias of a LinearPackedParamsBase.
torch::jit::Value* linear_params(torch::jit::Graph& g, const c10::IValue& packed) {
  torch::jit::Stack unpacked;
  try {
    unpacked = call_op("quantized::linear_unpack", {packed});
  } catch (const std::exception&) {
    unpacked = call_op("quantized::linear_unpack_fp16", {packed});
    unpacked.at(0) = unpacked.at(0).toTensor().to(at::kHalf);
  }
  auto* n = g.create(c10::Symbol::fromQualString("torch2onnx::linear_packed_params"),
                     {constant_or_none(g, unpacked.at(0)), constant_or_none(g, unpacked.at(1))});
  n->output()->setType(torch::getCustomClass(kLinearParams));
  return g.insertNode(n)->output();
}

// A dynamically quantized RNN cell's parameters (CellParamsBase "quantized_dynamic": two packed
// linear weights with their biases): rebuilt by quantized::make_quantized_cell_params_dynamic from
// torch2onnx::linear_packed_params nodes. Other kinds (static, fp16) stay as they are.
torch::jit::Node* cell_params(torch::jit::Graph& g, const c10::IValue& cell) {
  auto obj = cell.toObject();
  torch::jit::Stack stack{cell};
  obj->type()->getMethod("__getstate__").run(stack);
  auto state = stack.at(0).toTuple();
  const auto& items = state->elements();
  if (items.size() < 5 || !items[0].isString() || items[0].toStringRef() != "quantized_dynamic") return nullptr;
  auto tensors = items[1].toTensorVector();
  auto longs = items[3].toIntVector();
  auto packed = items[4].toList();
  if (tensors.size() != 2 || packed.size() != 2) return nullptr;
  auto* n = g.create(c10::Symbol::fromQualString("quantized::make_quantized_cell_params_dynamic"),
                     {linear_params(g, packed.get(0)), linear_params(g, packed.get(1)), constant_or_none(g, tensors[0]),
                      constant_or_none(g, tensors[1]), g.insertConstant(!longs.empty() && longs[0] != 0)});
  return n;
}

// torch2onnx::embedding_packed_params over the unpacked rows of an EmbeddingPackedParamsBase.
torch::jit::Node* embedding_params(torch::jit::Graph& g, const c10::IValue& packed) {
  const at::Tensor q = call_op("quantized::embedding_bag_unpack", {packed}).at(0).toTensor().contiguous();
  if (q.qscheme() != at::kPerChannelAffineFloatQParams || (q.scalar_type() != at::kQUInt8 && q.scalar_type() != at::kQUInt4x2))
    throw ExportError(std::string("a quantized embedding table of type ") + c10::toString(q.scalar_type()) + " with scheme " +
                      c10::toString(q.qscheme()) + " (expected quint8 or quint4x2, per_channel_affine_float_qparams)");
  if (q.dim() != 2 || q.q_per_channel_axis() != 0)
    throw ExportError("a quantized embedding table of rank " + std::to_string(q.dim()) + " quantized along axis " +
                      std::to_string(q.q_per_channel_axis()) + " (expected per-row quantization of a 2-d table)");
  const int64_t rows = q.size(0), cols = q.size(1);
  const bool four_bit = q.scalar_type() == at::kQUInt4x2;
  at::Tensor data = at::empty({rows, cols}, at::kByte);
  const uint8_t* in = static_cast<const uint8_t*>(q.data_ptr());
  uint8_t* out = data.data_ptr<uint8_t>();
  if (!four_bit) {
    std::memcpy(out, in, size_t(rows * cols));
  } else {
    // quint4x2 keeps two values per byte, the first in the low nibble; rows start on a byte.
    const int64_t row_bytes = (cols + 1) / 2;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = uint8_t((in[r * row_bytes + c / 2] >> ((c % 2) * 4)) & 15);
  }
  return g.create(c10::Symbol::fromQualString("torch2onnx::embedding_packed_params"),
                  {g.insertConstant(data), g.insertConstant(q.q_per_channel_scales().to(at::kFloat).contiguous()),
                   g.insertConstant(q.q_per_channel_zero_points().to(at::kFloat).contiguous()),
                   g.insertConstant(int64_t(four_bit ? 4 : 8))});
}

// Replaces one packed-parameter constant; returns false when its class isn't one handled here.
bool replace_packed(torch::jit::Graph& g, torch::jit::Node* constant) {
  const std::string cls = class_name(constant->output()->type());
  const c10::IValue packed = constant->ival(c10::attr::value);
  torch::jit::WithInsertPoint here(constant);
  torch::jit::Node* made = nullptr;
  if (cls == kConvParams || cls == kConv3dParams) {
    const bool is3d = cls == kConv3dParams;
    const int64_t dims = conv_spatial_dims(constant->output(), is3d);
    const std::string prefix = is3d ? "quantized::conv3d_" : "quantized::conv2d_";
    auto query = [&](const char* what) { return call_op((prefix + what).c_str(), {packed}).at(0); };
    auto unpacked = call_op(dims == 1 ? "quantized::conv1d_unpack" : (prefix + "unpack").c_str(), {packed});
    const bool transposed = query("transpose").toInt() != 0;
    std::vector<int64_t> output_padding = transposed ? last_n(query("output_padding").toIntVector(), dims)
                                                     : std::vector<int64_t>(dims, 0);
    made = g.create(c10::Symbol::fromQualString(is3d ? "torch2onnx::conv3d_packed_params" : "torch2onnx::conv_packed_params"),
                    {constant_or_none(g, unpacked.at(0)), constant_or_none(g, unpacked.at(1)),
                     g.insertConstant(last_n(query("stride").toIntVector(), dims)),
                     g.insertConstant(last_n(query("padding").toIntVector(), dims)), g.insertConstant(output_padding),
                     g.insertConstant(last_n(query("dilation").toIntVector(), dims)),
                     g.insertConstant(query("groups").toInt()), g.insertConstant(transposed)});
  } else if (cls == kLinearParams) {
    constant->output()->replaceAllUsesWith(linear_params(g, packed));
    return true;
  } else if (cls == kEmbeddingParams) {
    made = embedding_params(g, packed);
  } else if (cls == kCellParams) {
    made = cell_params(g, packed);
    if (!made) return false;
  } else {
    return false;
  }
  made->output()->setType(constant->output()->type());
  g.insertNode(made);
  constant->output()->replaceAllUsesWith(made->output());
  return true;
}

void unpack_block(torch::jit::Graph& g, torch::jit::Block* block) {
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    torch::jit::Node* n = *it;
    ++it;
    for (auto* b : n->blocks()) unpack_block(g, b);
    if (n->kind() != c10::prim::Constant || !n->hasAttribute(c10::attr::value)) continue;
    // The nodes made here report errors at the first op that used the constant (its module path).
    torch::jit::Node* user = n->output()->uses().empty() ? nullptr : n->output()->uses()[0].user;
    torch::jit::Node* before = n->prev();
    bool replaced = false;
    if (n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t) {
      const at::Tensor& t = n->t(c10::attr::value);
      if (t.is_quantized()) {
        torch::jit::WithInsertPoint here(n);
        n->output()->replaceAllUsesWith(quantized_tensor(g, t));
        replaced = true;
      }
    } else if (n->kindOf(c10::attr::value) == torch::jit::AttributeKind::ival && n->ival(c10::attr::value).isObject()) {
      replaced = replace_packed(g, n);
    }
    if (!replaced) continue;
    if (user)
      for (torch::jit::Node* made = before->next(); made != n; made = made->next()) {
        made->setSourceRange(user->sourceRange());
        if (user->scope()) made->setScope(user->scope());
      }
    n->destroy();
  }
}

// The value of `v` when it is a constant or an attribute of the method's module (self.name).
c10::optional<c10::IValue> module_value(const torch::jit::Module& module, torch::jit::Graph& graph, torch::jit::Value* v) {
  if (auto c = torch::jit::toIValue(v)) return c;
  torch::jit::Node* p = v->node();
  if (p->kind() == c10::prim::GetAttr && p->input() == graph.inputs()[0]) return module.attr(p->s(c10::attr::name));
  return c10::nullopt;
}

std::string graph_owner(const torch::jit::Module& m) {
  return m.type()->name() ? m.type()->name()->qualifiedName() : std::string("a submodule");
}

int64_t flag_of(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().item<int64_t>();
  return v.isBool() ? int64_t(v.toBool()) : v.toInt();
}

}  // namespace

void choose_quantized_engine() {
  // Loading re-packs quantized weights for the current engine, and the engines differ in what they
  // can pack and unpack (oneDNN: no output_padding in transposed convolutions; QNNPACK: no 3-d
  // unpacking). FBGEMM handles everything; else QNNPACK, the engine of torch.ao's mobile flow.
  static std::once_flag once;
  std::call_once(once, [] {
    const auto& engines = at::globalContext().supportedQEngines();
    for (auto preferred : {at::QEngine::FBGEMM, at::QEngine::QNNPACK})
      if (std::find(engines.begin(), engines.end(), preferred) != engines.end()) {
        at::globalContext().setQEngine(preferred);
        return;
      }
  });
}

bool engine_for_3d_convs(const torch::jit::Module& module) {
  // QNNPACK packs 3-d quantized convolutions but cannot unpack them (nor save them), and the prepare
  // step reads their weights back: a model holding them is loaded again under oneDNN, which can.
  // (Such a model was saved under FBGEMM or oneDNN in the first place.)
  if (at::globalContext().qEngine() != at::QEngine::QNNPACK) return false;
  const auto& engines = at::globalContext().supportedQEngines();
  if (std::find(engines.begin(), engines.end(), at::QEngine::ONEDNN) == engines.end()) return false;
  for (const auto& sub : module.modules())
    for (const auto& attr : sub.named_attributes(/*recurse=*/false)) {
      if (!attr.value.isObject()) continue;
      const auto& name = attr.value.toObjectRef().type()->name();
      if (name && name->qualifiedName() == kConv3dParams) {
        at::globalContext().setQEngine(at::QEngine::ONEDNN);
        return true;
      }
    }
  return false;
}

void unfuse_fake_quantizers(const torch::jit::Module& module) {
  // torch.ao's default QAT fake quantizer (FusedMovingAvgObsFakeQuantize) calls
  // aten::fused_moving_avg_obs_fake_quant, which may update the observer's statistics and the scale
  // and zero point: freezing keeps those attributes as module state. With the observer off
  // (torch.ao.quantization.disable_observer) it only fake-quantizes: the call becomes
  // fake_quantize_per_tensor_affine / per_channel_affine on the same scale and zero point (or the input
  // itself when fake quantization is off too), so freezing folds them. Methods are shared by every
  // module of a type: rewritten only when all of them agree.
  const auto fused = c10::Symbol::fromQualString("aten::fused_moving_avg_obs_fake_quant");
  std::map<torch::jit::Graph*, std::vector<torch::jit::Module>> users;
  for (const auto& sub : module.modules())
    for (const auto& method : sub.get_methods()) users[method.graph().get()].push_back(sub);
  for (auto& [graph, modules] : users) {
    for (auto it = graph->nodes().begin(); it != graph->nodes().end();) {
      torch::jit::Node* n = *it;
      ++it;
      if (n->kind() != fused || n->inputs().size() < 12) continue;
      c10::optional<int64_t> observer, fake, per_row;
      bool agree = true;
      for (const auto& m : modules) {
        auto o = module_value(m, *graph, n->input(1)), f = module_value(m, *graph, n->input(2)),
             r = module_value(m, *graph, n->input(11));
        if (!o || !f || !r) { agree = false; break; }
        if ((observer && *observer != flag_of(*o)) || (fake && *fake != flag_of(*f)) || (per_row && *per_row != flag_of(*r))) {
          agree = false;
          break;
        }
        observer = flag_of(*o), fake = flag_of(*f), per_row = flag_of(*r);
      }
      if (!agree || !observer) continue;  // freezing reports the module state it could not fold
      if (*observer != 0)
        throw ExportError("aten::fused_moving_avg_obs_fake_quant in " + graph_owner(modules[0]) +
                          ": the fake quantizer's observer is on (training mode); call "
                          "model.apply(torch.ao.quantization.disable_observer) before saving the model");
      torch::jit::WithInsertPoint here(n);
      torch::jit::Value* out = n->input(0);
      if (*fake != 0) {
        auto x = n->input(0), scale = n->input(5), zero_point = n->input(6), qmin = n->input(8), qmax = n->input(9);
        out = *per_row ? graph->insert(c10::Symbol::fromQualString("aten::fake_quantize_per_channel_affine"),
                                       {x, scale, zero_point, n->input(10), qmin, qmax})
                       : graph->insert(c10::Symbol::fromQualString("aten::fake_quantize_per_tensor_affine"),
                                       {x, scale, zero_point, qmin, qmax});
        out->node()->setSourceRange(n->sourceRange());
      }
      n->output()->replaceAllUsesWith(out);
      n->destroy();
    }
  }
}

namespace {

// QNNPACK's quantized sigmoid (quint8) makes one output grid only, (1/256, 0): on any other it fails
// ("failed to create QNNPACK sigmoid operator"). The other engines, and QNNPACK for qint8, dequantize,
// take the float sigmoid and quantize on the grid the op is given (qsigmoid.cpp, QuantizedOpKernels.cpp).
// QNNPACK is the exporter's engine when libtorch has no FBGEMM (choose_quantized_engine), so a model made
// under FBGEMM or oneDNN calling quantized::sigmoid on another constant grid (torch.ao.nn.quantized.
// Sigmoid(scale, zero_point)) gets those three ops instead, as its own engine computes them:
//   aten::quantize_per_tensor(aten::sigmoid(aten::dequantize(x)), scale, zero_point, prim::dtype(x))
// (the dtype, a query of the example runs, becomes a constant when they fold the static shapes).
void rewrite_qnnpack_sigmoids(torch::jit::Graph& g, torch::jit::Block* block) {
  static const auto sigmoid = c10::Symbol::fromQualString("quantized::sigmoid");
  for (auto it = block->nodes().begin(); it != block->nodes().end();) {
    torch::jit::Node* n = *it;
    ++it;
    for (auto* b : n->blocks()) rewrite_qnnpack_sigmoids(g, b);
    if (n->kind() != sigmoid || n->inputs().size() != 3) continue;
    auto scale = torch::jit::toIValue(n->input(1)), zero_point = torch::jit::toIValue(n->input(2));
    if (!scale || !zero_point || !scale->isDouble() || !zero_point->isInt()) continue;
    if (float(scale->toDouble()) == 1.0f / 256.0f && zero_point->toInt() == 0) continue;  // QNNPACK's own grid
    torch::jit::WithInsertPoint here(n);
    torch::jit::Value* x = n->input(0);
    torch::jit::Value* dequantized = g.insert(c10::Symbol::fromQualString("aten::dequantize"), {x});
    torch::jit::Value* y = g.insert(c10::Symbol::fromQualString("aten::sigmoid"), {dequantized});
    torch::jit::Value* dtype = g.insert(c10::prim::dtype, {x});
    torch::jit::Value* q = g.insert(c10::Symbol::fromQualString("aten::quantize_per_tensor"),
                                    {y, n->input(1), n->input(2), dtype});
    for (torch::jit::Value* made : {dequantized, y, dtype, q}) {  // errors name the module and line of the op
      made->node()->setSourceRange(n->sourceRange());
      if (n->scope()) made->node()->setScope(n->scope());
    }
    n->output()->replaceAllUsesWith(q);
    n->destroy();
  }
}

}  // namespace

void unpack_quantized_params(const std::shared_ptr<torch::jit::Graph>& graph) {
  register_ops();
  unpack_block(*graph, graph->block());
  if (at::globalContext().qEngine() == at::QEngine::QNNPACK) rewrite_qnnpack_sigmoids(*graph, graph->block());
}

}  // namespace t2o::core

namespace t2o::core {

// An example argument of a quantized type (--input quint8[...]): values in [-1, 1) on a grid of 1/64.
at::Tensor quantized_example(at::IntArrayRef shape, at::ScalarType type) {
  const int64_t zero_point = type == at::kQUInt8 ? 128 : 0;
  return at::quantize_per_tensor(at::rand(shape) * 2 - 1, 1.0 / 64, zero_point, type);
}

}  // namespace t2o::core
