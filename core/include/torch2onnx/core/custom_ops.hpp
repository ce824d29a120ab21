// Custom TorchScript ops declared by packs (T2O_SCHEMA / "schemas" in a JSON pack).
//
// A vendor's model may call torch.ops.myvendor.some_op(...). Its pack declares the op's TorchScript
// schema; before loading a model the core makes every declared schema known to the TorchScript
// loader, with a placeholder kernel, so the model loads without the vendor's libtorch kernels.
//
// The placeholder kernel and the example run: the core runs the graph once on example inputs to
// learn every value's dtype and shape. A declared op without a real kernel follows one rule there:
// each Tensor output gets the dtype and shape of the op's first Tensor argument (its values are
// zeros). Ops whose outputs differ in shape or dtype from their first Tensor argument, or that
// return non-tensors, need their real kernel loaded (e.g. a library loaded into the process) or a
// symbolic that does not rely on ctx.output(i) types. If an op of that name and overload is already
// known to libtorch (built in, or its real kernel is loaded), the declaration is skipped.
#ifndef TORCH2ONNX_CORE_CUSTOM_OPS_HPP
#define TORCH2ONNX_CORE_CUSTOM_OPS_HPP

#include <torch2onnx/registry.hpp>

#include <functional>
#include <string>

namespace t2o::core {

// "" if schema is a TorchScript schema the core can declare, else the reason (one line). Install it
// with registry.set_schema_checker(check_custom_op_schema) so packs with a schema that does not
// parse are refused at load time, naming the file.
std::string check_custom_op_schema(const std::string& schema);

// The placeholder kernels follow the shape rule only while such a scope is alive on the thread (the
// example run); anywhere else they throw "no kernel ...", so that graph passes such as constant
// propagation never fold a custom op into placeholder values.
class CustomOpExampleRun {
 public:
  CustomOpExampleRun();
  ~CustomOpExampleRun();
  CustomOpExampleRun(const CustomOpExampleRun&) = delete;
  CustomOpExampleRun& operator=(const CustomOpExampleRun&) = delete;
};

// The opposite, for graph passes that run between example runs (folding with constant propagation):
// the placeholder kernels throw again while it is alive.
class CustomOpKernelsOff {
 public:
  CustomOpKernelsOff();
  ~CustomOpKernelsOff();
  CustomOpKernelsOff(const CustomOpKernelsOff&) = delete;
  CustomOpKernelsOff& operator=(const CustomOpKernelsOff&) = delete;

 private:
  int saved_;
};

// True while an example run is on (on this thread, CustomOpKernelsOff not in force): kernels that
// must not run during folding (placeholders, quantized_params.cpp's rebuilders) check it.
bool custom_op_kernels_on();

// Declares every schema of the registry's packs to the TorchScript loader (once per process and op).
// A schema that cannot be declared is skipped with one warning line naming the pack's file.
void declare_custom_ops(const t2o::registry::Registry& registry,
                        const std::function<void(const std::string&)>& warn);

}  // namespace t2o::core

#endif
