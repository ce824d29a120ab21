// TorchScript-language ops of PyTorch 2.x that only scripted code emits (tensor properties,
// generators, devices, autocast). PyTorch registers them with the JIT's operator table rather than
// the dispatcher (torch/csrc/jit/runtime/register_prim_ops.cpp); so do we, with the same schemas:
//   prim::nbytes(Tensor a) -> int, prim::itemsize(Tensor a) -> int                    (2.1)
//   prim::is_xla / is_mtia / is_maia(Tensor a) -> bool
//   aten::Generator(*, Device? device=None, int? seed=None) -> Generator
//   aten::seed(Generator(a!) self) -> int, aten::initial_seed(Generator self) -> int
//   aten::manual_seed.generator(Generator(a!) self, int seed) -> Generator(a!)
//   aten::device.with_index(str type, int index) -> Device
//   aten::get_autocast_dtype(str device_type) -> ScalarType
// prim::awaitable_nowait/awaitable_wait are not here: their schemas use the Await type, which
// libtorch 1.13's type system does not have.
#include "compat_common.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/csrc/jit/runtime/operator.h>

namespace t2o_compat {
namespace {

using torch::jit::Operator;
using torch::jit::Stack;
constexpr auto kFromSchema = c10::AliasAnalysisKind::FROM_SCHEMA;

c10::IValue pop(Stack& stack) {
  c10::IValue v = std::move(stack.back());
  stack.pop_back();
  return v;
}

at::Generator make_generator(c10::optional<c10::Device> device, c10::optional<int64_t> seed) {
  const c10::Device d = device.value_or(c10::Device(c10::kCPU));
  TORCH_CHECK(d.is_cpu(), "aten::Generator: torch2onnx's libtorch makes CPU generators only, got device ", d);
  return seed ? at::detail::createCPUGenerator(uint64_t(*seed)) : at::detail::createCPUGenerator();
}

// The operators of `ops` the JIT's table does not have yet: against a libtorch that has them (2.6 and
// later has every one), its own stay and ours are left out.
std::vector<c10::optional<Operator>> missing(std::vector<Operator> ops) {
  std::vector<c10::optional<Operator>> out;
  for (auto& op : ops)
    if (!torch::jit::findOperatorFor(op.schema().operator_name())) out.push_back(std::move(op));
  return out;
}

torch::jit::RegisterOperators registered(missing({
    Operator("prim::nbytes(Tensor a) -> int",
             [](Stack& s) { s.emplace_back(int64_t(pop(s).toTensor().nbytes())); }, kFromSchema),
    Operator("prim::itemsize(Tensor a) -> int",
             [](Stack& s) { s.emplace_back(int64_t(pop(s).toTensor().element_size())); }, kFromSchema),
    Operator("prim::is_xla(Tensor a) -> bool", [](Stack& s) { s.emplace_back(pop(s).toTensor().is_xla()); },
             kFromSchema),
    // libtorch 1.13 has no MTIA or MAIA device: no tensor can be on one.
    Operator("prim::is_mtia(Tensor a) -> bool",
             [](Stack& s) {
               pop(s);
               s.emplace_back(false);
             },
             kFromSchema),
    Operator("prim::is_maia(Tensor a) -> bool",
             [](Stack& s) {
               pop(s);
               s.emplace_back(false);
             },
             kFromSchema),
    Operator("aten::Generator(*, Device? device=None, int? seed=None) -> Generator",
             [](Stack& s) {
               auto seed = pop(s).toOptional<int64_t>();
               auto device = pop(s).toOptional<c10::Device>();
               s.emplace_back(make_generator(device, seed));
             },
             kFromSchema),
    Operator("aten::seed(Generator(a!) self) -> int",
             [](Stack& s) { s.emplace_back(int64_t(pop(s).toGenerator().seed())); }, kFromSchema),
    Operator("aten::initial_seed(Generator self) -> int",
             [](Stack& s) { s.emplace_back(int64_t(pop(s).toGenerator().current_seed())); }, kFromSchema),
    Operator("aten::manual_seed.generator(Generator(a!) self, int seed) -> Generator(a!)",
             [](Stack& s) {
               int64_t seed = pop(s).toInt();
               c10::IValue generator = pop(s);
               generator.toGenerator().set_current_seed(uint64_t(seed));
               s.emplace_back(std::move(generator));
             },
             kFromSchema),
    Operator("aten::device.with_index(str type, int index) -> Device",
             [](Stack& s) {
               int64_t index = pop(s).toInt();
               c10::Device device(pop(s).toStringRef());
               device.set_index(c10::DeviceIndex(index));
               s.emplace_back(device);
             },
             kFromSchema),
    Operator("aten::get_autocast_dtype(str device_type) -> ScalarType",
             [](Stack& s) {
               c10::Device device(pop(s).toStringRef());
               s.emplace_back(at::autocast::get_lower_precision_fp_from_device_type(device.type()));
             },
             kFromSchema),
}));

}  // namespace
}  // namespace t2o_compat
