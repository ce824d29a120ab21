// error_reason(): the line an error message shows, chosen from libtorch's own multi-line messages.
// The messages are real: raised by libtorch here (TorchScript interpreter, TORCH_CHECK, internal
// asserts, ATen), or captured from libtorch 1.13 where a fixture would need Python (a quantized
// module's __setstate__ failing inside torch::jit::load; tests/embed checks that one live through the CLI).
#include <torch2onnx/core/error_reason.hpp>

#include <gtest/gtest.h>
#include <torch/jit.h>
#include <torch/script.h>

#include <functional>
#include <string>

namespace {

using t2o::core::error_reason;

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return {};
}

void expect_one_line(const std::string& line) {
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_FALSE(line.empty());
}

TEST(ErrorReason, InterpreterErrorGivesTheRuntimeErrorLine) {
  auto message = message_of([] {
    auto cu = torch::jit::compile("def f(x, y):\n    z = x * 2\n    return torch.add(z, y)\n");
    cu->run_method("f", torch::ones({2, 3}), torch::ones({4}));
  });
  ASSERT_EQ(message.rfind("The following operation failed in the TorchScript interpreter.", 0), 0u) << message;
  std::string line = error_reason(message);
  expect_one_line(line);
  EXPECT_EQ(line, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
}

TEST(ErrorReason, NestedCallGivesTheInnermostReason) {
  auto message = message_of([] {
    auto cu = torch::jit::compile("def g(x, y):\n    return torch.mm(x, y)\n\ndef f(x, y):\n    return g(x, y) + 1\n");
    cu->run_method("f", torch::ones({2, 3}), torch::ones({2, 3}));
  });
  EXPECT_EQ(error_reason(message), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)") << message;
}

TEST(ErrorReason, InternalAssertGivesItsOwnMessage) {
  auto message = message_of([] { TORCH_INTERNAL_ASSERT(1 + 1 == 3, "tensor kind mismatch: ", 3); });
  ASSERT_NE(message.find("INTERNAL ASSERT FAILED at"), std::string::npos) << message;
  ASSERT_NE(message.find("Exception raised from"), std::string::npos) << message;
  EXPECT_EQ(error_reason(message), "tensor kind mismatch: 3");
}

TEST(ErrorReason, InternalAssertWithoutMessageGivesTheCondition) {
  auto message = message_of([] { TORCH_INTERNAL_ASSERT(1 + 1 == 3); });
  EXPECT_EQ(error_reason(message), "internal assert failed: 1 + 1 == 3") << message;
}

TEST(ErrorReason, CheckWithoutMessageDropsTheBoilerplate) {
  auto message = message_of([] { TORCH_CHECK(1 + 1 == 3); });
  EXPECT_EQ(error_reason(message), "Expected 1 + 1 == 3 to be true, but got false.") << message;
}

TEST(ErrorReason, PlainErrorGivesItsFirstLine) {
  auto message = message_of([] { torch::ones({2, 3}).view({7}); });
  EXPECT_EQ(error_reason(message), "shape '[7]' is invalid for input of size 6");
}

TEST(ErrorReason, CompileErrorSkipsTheEmptyFirstLine) {
  auto message = message_of([] { torch::jit::compile("def f(x):\n    return undefined_name(x)\n"); });
  std::string line = error_reason(message);
  expect_one_line(line);
  EXPECT_NE(line.find("undefined value undefined_name"), std::string::npos) << line;
}

// torch::jit::load of a module whose __setstate__ calls quantized::linear_prepack on a float tensor
// (tests/embed/make_error_fixtures.py), libtorch 1.13; the dispatcher's kernel list is cut short.
const char* const kQuantizedLoadMessage = R"MSG(The following operation failed in the TorchScript interpreter.
Traceback of TorchScript, serialized code (most recent call last):
  File "code/__torch__.py", line 18, in __setstate__
    self.w = (state)[0]
    self.training = (state)[1]
    _0 = ops.quantized.linear_prepack((state)[0])
         ~~~~~~~~~~~~~~~~~~~~~~~~~~~~ <--- HERE
    _1, _2 = ops.quantized.linear_unpack(_0)
    self.w = _1

Traceback of TorchScript, original code (most recent call last):
  File "/tmp/mkq.py", line 15, in __setstate__
        self.w = state[0]
        self.training = state[1]
        self.w = torch.ops.quantized.linear_unpack(torch.ops.quantized.linear_prepack(state[0], None))[0]
                                                   ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ <--- HERE
RuntimeError: Could not run 'quantized::linear_prepack' with arguments from the 'CPU' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. 'quantized::linear_prepack' is only available for these backends: [QuantizedCPU, BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Named, Conjugate, Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, AutogradMPS, AutogradXPU, AutogradHPU, AutogradLazy, Tracer, AutocastCPU, AutocastCUDA, FuncTorchBatched, FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PythonDispatcher].

QuantizedCPU: registered at ./aten/src/ATen/native/quantized/cpu/qlinear_prepack.cpp:371 [kernel]
BackendSelect: fallthrough registered at ./aten/src/ATen/core/BackendSelectFallbackKernel.cpp:3 [backend fallback]
Python: registered at ./aten/src/ATen/core/PythonFallbackKernel.cpp:140 [backend fallback]
FuncTorchDynamicLayerBackMode: registered at ./aten/src/ATen/functorch/DynamicLayer.cpp:488 [backend fallback]
Functionalize: registered at ./aten/src/ATen/FunctionalizeFallbackKernel.cpp:291 [backend fallback]
Named: registered at ./aten/src/ATen/core/NamedRegistrations.cpp:7 [backend fallback]
)MSG";

TEST(ErrorReason, QuantizedLoadFailureGivesTheReasonNotTheHeader) {
  std::string line = error_reason(kQuantizedLoadMessage);
  expect_one_line(line);
  EXPECT_EQ(line, "Could not run 'quantized::linear_prepack' with arguments from the 'CPU' backend.");
}

TEST(ErrorReason, TracebackWithoutErrorLineNamesTheFailingSource) {
  const std::string message =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript (most recent call last):\n"
      "  File \"code/__torch__.py\", line 9, in forward\n"
      "    _0 = torch.mm(a, b)\n"
      "         ~~~~~~~~ <--- HERE\n";
  EXPECT_EQ(error_reason(message), "failed at _0 = torch.mm(a, b) (File \"code/__torch__.py\", line 9, in forward)");
}

}  // namespace
