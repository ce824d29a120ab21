# FFTs on ONNX DFT (plugins/opset17, opset20: DFT-17 has `axis` as an attribute, DFT-20 as an input),
# stft (STFT-17), istft, and the complex parts on (real, imaginary) pairs (opset9/complex_parts.cpp).
# Complex values never reach an output: each case goes back to real (view_as_real, abs, angle,
# .real/.imag, irfft, istft).
import torch
from op_case import Fn, case

torch.manual_seed(0)
X = torch.randn(3, 8)
X3 = torch.randn(2, 5, 7)
SIG = torch.randn(2, 64)
SIG1 = torch.randn(50)
XD = torch.randn(3, 8, dtype=torch.float64)
DFT = (17, 20)
real = torch.view_as_real


class DynamicFft(torch.nn.Module):
    """ortho scaling by sqrt(n) where n is a dynamic dim."""

    def forward(self, x):
        return torch.view_as_real(torch.fft.fft(x, norm="ortho")), torch.fft.ifft(x, norm="forward").imag


class RfftScript(torch.nn.Module):
    def forward(self, x):
        return torch.view_as_real(torch.fft.rfft(x, n=6, dim=0))


class Stft(torch.nn.Module):
    def __init__(self, n_fft, hop, win_length=None, window=True, center=True, normalized=False, onesided=None,
                 return_complex=True):
        super().__init__()
        self.n_fft, self.hop, self.win_length, self.center = n_fft, hop, win_length, center
        self.normalized, self.onesided, self.return_complex = normalized, onesided, return_complex
        self.register_buffer("window", torch.hann_window(win_length or n_fft) if window else None)

    def forward(self, x):
        s = torch.stft(x, self.n_fft, hop_length=self.hop, win_length=self.win_length, window=self.window,
                       center=self.center, normalized=self.normalized, onesided=self.onesided,
                       return_complex=self.return_complex)
        return torch.view_as_real(s) if self.return_complex else s


class StftMagnitude(torch.nn.Module):
    """odd n_fft: no Nyquist bin, whose imaginary part is +-0 (its angle +-pi) by rounding alone."""

    def forward(self, x):
        s = torch.stft(x, 15, hop_length=4, window=torch.hann_window(15), return_complex=True)
        return s.abs(), s.angle()


class Istft(torch.nn.Module):
    def __init__(self, n_fft, hop, win_length=None, center=True, normalized=False, length=None,
                 window_fn=torch.hann_window):
        super().__init__()
        self.n_fft, self.hop, self.win_length, self.center = n_fft, hop, win_length, center
        self.normalized, self.length = normalized, length
        self.register_buffer("window", window_fn(win_length or n_fft))

    def forward(self, x):
        s = torch.stft(x, self.n_fft, hop_length=self.hop, win_length=self.win_length, window=self.window,
                       center=self.center, normalized=self.normalized, return_complex=True)
        return torch.istft(s, self.n_fft, hop_length=self.hop, win_length=self.win_length, window=self.window,
                           center=self.center, normalized=self.normalized, length=self.length)


class IstftOfPairs(torch.nn.Module):
    """istft of a spectrum given as pairs (view_as_complex of a real input)."""

    def forward(self, spec, window):
        return torch.istft(torch.view_as_complex(spec), 16, hop_length=4, window=window, length=60)


SPEC = torch.view_as_real(torch.stft(torch.randn(2, 60), 16, hop_length=4, window=torch.hann_window(16),
                                     return_complex=True)).contiguous()

CASES = [
    case("fft", Fn(lambda x: real(torch.fft.fft(x))), [X], opsets=DFT),
    case("fft_pad_dim0_ortho", Fn(lambda x: real(torch.fft.fft(x, n=5, dim=0, norm="ortho"))), [X], opsets=DFT),
    case("fft_trim_forward", Fn(lambda x: real(torch.fft.fft(x, n=5, norm="forward"))), [X], opsets=DFT),
    case("fft_3d_mid", Fn(lambda x: real(torch.fft.fft(x, dim=1))), [X3], opsets=DFT),
    case("fft_float64", Fn(lambda x: real(torch.fft.fft(x, n=11))), [XD], opsets=DFT),
    case("fft_int_input", Fn(lambda x: real(torch.fft.fft(x))), [torch.randint(-5, 5, (4, 6))], opsets=DFT),
    case("ifft_of_fft", Fn(lambda x: real(torch.fft.ifft(torch.fft.fft(x), norm="forward"))), [X], opsets=DFT),
    case("ifft_real_ortho", Fn(lambda x: real(torch.fft.ifft(x, n=10, norm="ortho").resolve_conj())), [X], opsets=DFT),
    case("ifft_backward_parts", Fn(lambda x: (torch.fft.ifft(torch.fft.fft(x, dim=0), dim=0).real,
                                              torch.fft.ifft(x, dim=0).imag)), [X], opsets=DFT),
    case("rfft", Fn(lambda x: real(torch.fft.rfft(x))), [X], opsets=DFT),
    case("rfft_odd_n_ortho", Fn(lambda x: real(torch.fft.rfft(x, n=9, dim=1, norm="ortho"))), [X3], opsets=DFT),
    case("rfft_abs_angle", Fn(lambda x: (torch.fft.rfft(x).abs(), torch.fft.rfft(x).angle())), [X], opsets=DFT),
    case("irfft_roundtrip", Fn(lambda x: torch.fft.irfft(torch.fft.rfft(x), n=8)), [X], opsets=DFT),
    case("irfft_default_n", Fn(lambda x: torch.fft.irfft(torch.fft.fft(x))), [X], opsets=DFT),
    case("irfft_odd_n_forward", Fn(lambda x: torch.fft.irfft(torch.fft.rfft(x, dim=0), n=5, dim=0, norm="forward")),
         [X], opsets=DFT),
    case("irfft_pad_ortho", Fn(lambda x: torch.fft.irfft(torch.fft.rfft(x), n=20, norm="ortho")), [X], opsets=DFT),
    case("irfft_real_input", Fn(lambda x: torch.fft.irfft(x, dim=1)), [X3], opsets=DFT),
    case("view_as_complex_fft", Fn(lambda x: real(torch.fft.fft(torch.view_as_complex(x), dim=0))),
         [torch.randn(6, 3, 2)], opsets=DFT),
    case("complex_parts_no_dft", Fn(lambda x: (torch.view_as_complex(x).abs(), torch.view_as_complex(x).angle(),
                                               torch.view_as_complex(x).imag, real(torch.view_as_complex(x)))),
         [torch.randn(4, 5, 2)], opsets=(9, 13, 17)),
    case("angle_abs_real", Fn(lambda x: (torch.angle(x), torch.abs(x), torch.real(x))),
         [torch.tensor([-2.0, -0.0, 0.0, 3.0, float("nan"), -float("inf")])], opsets=(9, 17)),
    case("angle_int", Fn(lambda x: torch.angle(x)), [torch.tensor([-3, 0, 4])], opsets=(9, 17)),
    case("fft_dynamic_dim", DynamicFft(), [X], opsets=DFT, cli_args=["--dynamic-axes", "x=0,1"],
         more_inputs=[[torch.randn(2, 11)]]),
    case("fft_script", RfftScript(), [X], opsets=DFT, method="script"),
    # stft: window, hop, center (reflect padding by aten::pad), onesided, return_complex both ways
    case("stft_hann", Stft(16, 4), [SIG], opsets=(17,)),
    case("stft_win_length_normalized", Stft(16, 5, win_length=10, normalized=True), [SIG], opsets=(17,)),
    case("stft_no_window_no_center", Stft(12, 3, window=False, center=False), [SIG], opsets=(17,)),
    case("stft_1d_twosided", Stft(16, 4, onesided=False), [SIG1], opsets=(17,)),
    case("stft_return_real", Stft(16, 8, return_complex=False), [SIG], opsets=(17,)),
    case("stft_magnitude", StftMagnitude(), [SIG], opsets=(17,)),
    case("stft_script", Stft(16, 4), [SIG], opsets=(17,), method="script"),
    # istft: per-frame inverse DFT (its form changes at 20), window, overlap-add
    case("istft_roundtrip", Istft(16, 4), [SIG], opsets=DFT, rtol=1e-3),
    case("istft_length_longer", Istft(16, 4, length=70), [SIG], opsets=DFT, rtol=1e-3),
    case("istft_no_center_normalized", Istft(16, 4, center=False, normalized=True, length=40,
                                                       window_fn=torch.hamming_window),
         [SIG], opsets=DFT, rtol=1e-3),
    case("istft_1d", Istft(20, 5), [SIG1], opsets=DFT, rtol=1e-3),
    case("istft_win_length", Istft(16, 4, win_length=12), [SIG], opsets=DFT, rtol=1e-3),
    case("istft_of_pairs", IstftOfPairs(), [SPEC, torch.hann_window(16)], opsets=DFT, rtol=1e-3),
]
