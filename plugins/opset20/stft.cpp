// aten::stft and aten::istft with DFT-20 (axis as an input; common/fft.hpp, forms.hpp's dft()).
#include <torch2onnx/plugin.hpp>

#include "common/fft.hpp"

using namespace t2o;
using namespace t2o::pack;

// aten::stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//            bool normalized=False, bool? onesided=None, bool? return_complex=None) -> Tensor
// aten::stft.center(..., Tensor? window=None, bool center=True, str pad_mode="reflect", bool normalized=False, ...)
T2O_PAIRS_SYMBOLIC("aten::stft", 20) { stft_symbolic(ctx); }

// aten::istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//             bool center=True, bool normalized=False, bool? onesided=None, int? length=None,
//             bool return_complex=False) -> Tensor
T2O_PAIRS_SYMBOLIC("aten::istft", 20) { istft_symbolic(ctx); }
