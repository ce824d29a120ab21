// aten::stft -> frames (Gather) times the window, DFT; aten::istft -> inverse DFTs + overlap-add.
// DFT-17 form here, DFT-20 in opset20/stft.cpp; the work is in common/fft.hpp. (Not ONNX's STFT op:
// ONNX 1.12's shape inference miscounts its frames, and the checker would reject the model.)
#include <torch2onnx/plugin.hpp>

#include "common/fft.hpp"

using namespace t2o;
using namespace t2o::pack;

T2O_PAIRS_SYMBOLIC("aten::stft", 17) { stft_symbolic(ctx); }
T2O_PAIRS_SYMBOLIC("aten::istft", 17) { istft_symbolic(ctx); }
