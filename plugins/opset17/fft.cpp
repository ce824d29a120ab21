// aten::fft_fft, fft_ifft, fft_rfft, fft_irfft (torch.fft over one dim, norm backward/forward/ortho,
// n pads or trims) -> ONNX DFT: DFT-17 (axis an attribute, dft_length an input).
// Complex values are (real, imaginary) pairs (common/complex_pairs.hpp); the work is in common/fft.hpp.
#include <torch2onnx/plugin.hpp>

#include "common/fft.hpp"

using namespace t2o;
using namespace t2o::pack;

// aten::fft_fft(Tensor self, int? n=None, int dim=-1, str? norm=None) -> Tensor
T2O_PAIRS_SYMBOLIC("aten::fft_fft", 17) { fft_symbolic(ctx, FftKind::Forward); }
// aten::fft_ifft(Tensor self, int? n=None, int dim=-1, str? norm=None) -> Tensor
T2O_PAIRS_SYMBOLIC("aten::fft_ifft", 17) { fft_symbolic(ctx, FftKind::Inverse); }
// aten::fft_rfft(Tensor self, int? n=None, int dim=-1, str? norm=None) -> Tensor
T2O_PAIRS_SYMBOLIC("aten::fft_rfft", 17) { fft_symbolic(ctx, FftKind::RealForward); }
// aten::fft_irfft(Tensor self, int? n=None, int dim=-1, str? norm=None) -> Tensor
T2O_PAIRS_SYMBOLIC("aten::fft_irfft", 17) { fft_symbolic(ctx, FftKind::RealInverse); }
