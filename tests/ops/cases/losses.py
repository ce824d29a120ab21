# Losses: nll_loss (nll_loss_nd / nll_loss2d overloads, N-d, ignore_index, weight, every reduction),
# cross_entropy (class indices and probabilities, label smoothing, weight), binary_cross_entropy
# (+ with_logits and pos_weight), kl_div (log_target, batchmean), mse / l1 / smooth_l1 / huber.
import torch
import torch.nn.functional as F
from op_case import Fn, case

REDUCTIONS = ("none", "mean", "sum")


def logp(*shape):
    return F.log_softmax(torch.randn(*shape), dim=1 if len(shape) > 1 else 0)


class Nll(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x, t, w):
        return tuple(F.nll_loss(x, t, reduction=r, **self.kw) for r in REDUCTIONS) + \
            tuple(F.nll_loss(x, t, weight=w, reduction=r, **self.kw) for r in REDUCTIONS)


class CrossEntropy(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x, t, w):
        return tuple(F.cross_entropy(x, t, reduction=r, **self.kw) for r in REDUCTIONS) + \
            tuple(F.cross_entropy(x, t, weight=w, reduction=r, **self.kw) for r in REDUCTIONS)


class Pointwise(torch.nn.Module):
    def forward(self, x, t):
        out = []
        for r in REDUCTIONS:
            out += [F.mse_loss(x, t, reduction=r), F.l1_loss(x, t, reduction=r),
                    F.smooth_l1_loss(x, t, reduction=r), F.smooth_l1_loss(x, t, reduction=r, beta=0.3),
                    F.smooth_l1_loss(x, t, reduction=r, beta=0.0),
                    F.huber_loss(x, t, reduction=r), F.huber_loss(x, t, reduction=r, delta=0.4)]
        return tuple(out)


class KlDiv(torch.nn.Module):
    def forward(self, x, p, lp):
        return (F.kl_div(x, p, reduction="none"), F.kl_div(x, p, reduction="sum"), F.kl_div(x, p, reduction="mean"),
                F.kl_div(x, p, reduction="batchmean"), F.kl_div(x, lp, reduction="none", log_target=True),
                F.kl_div(x, lp, reduction="batchmean", log_target=True))


class Bce(torch.nn.Module):
    def forward(self, x, t, w, pw):
        p = torch.sigmoid(x)
        out = []
        for r in REDUCTIONS:
            out += [F.binary_cross_entropy(p, t, reduction=r),
                    F.binary_cross_entropy_with_logits(x, t, reduction=r),
                    F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw, reduction=r)]
        return tuple(out)


class BceWeighted(torch.nn.Module):
    # traced, F.binary_cross_entropy with a weight fails in torch 1.13 (_infer_size on traced sizes)
    def forward(self, x, t, w):
        p = torch.sigmoid(x)  # export runs the model on random inputs: keep them in [0, 1]
        return (F.binary_cross_entropy(p, t, w, reduction="none"), F.binary_cross_entropy(p, t, w),
                F.binary_cross_entropy(p, t, w, reduction="sum"))


class NllScript(torch.nn.Module):
    def forward(self, x, t, w):
        return (F.nll_loss(x, t, w, ignore_index=3), F.nll_loss(x, t, reduction="none", ignore_index=3),
                F.cross_entropy(x, t, w, reduction="sum", label_smoothing=0.1))


class Modules(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ce = torch.nn.CrossEntropyLoss(ignore_index=1, label_smoothing=0.2)
        self.nll = torch.nn.NLLLoss(reduction="sum")
        self.bce = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([0.5, 2.0, 1.0, 3.0]))
        self.mse = torch.nn.MSELoss()

    def forward(self, x, t, p):
        return self.ce(x, t), self.nll(F.log_softmax(x, 1), t), self.bce(x, p), self.mse(x, p)


t4 = torch.tensor([1, 0, 3, 2, 1])
t_ignored = torch.tensor([1, -100, 3, 2, -100])
CASES = [
    case("nll", Nll(), [logp(5, 4), t4, torch.rand(4)]),
    case("nll_ignore", Nll(), [logp(5, 4), t_ignored, torch.rand(4)]),
    case("nll_ignore_in_range", Nll(ignore_index=2), [logp(5, 4), t4, torch.rand(4)]),
    case("nll_2d", Nll(ignore_index=0), [logp(2, 3, 4, 5), torch.randint(0, 3, (2, 4, 5)), torch.rand(3)]),
    case("nll_3d", Nll(), [logp(2, 3, 2, 3, 2), torch.randint(0, 3, (2, 2, 3, 2)), torch.rand(3)]),
    case("nll_unbatched", Nll(), [logp(6), torch.tensor(4), torch.rand(6)]),
    case("nll_script", NllScript(), [logp(5, 4), t4, torch.rand(4)], method="script"),
    case("nll_dynamic", Nll(), [logp(5, 4), t4, torch.rand(4)], cli_args=("--dynamic-axes", "x=0", "--dynamic-axes", "t=0")),
    case("cross_entropy", CrossEntropy(), [torch.randn(5, 4), t_ignored, torch.rand(4)]),
    case("cross_entropy_smoothing", CrossEntropy(label_smoothing=0.1), [torch.randn(5, 4), t_ignored, torch.rand(4)]),
    case("cross_entropy_smoothing_2d", CrossEntropy(label_smoothing=0.3, ignore_index=2),
         [torch.randn(2, 3, 4, 5), torch.randint(0, 3, (2, 4, 5)), torch.rand(3)]),
    case("cross_entropy_unbatched", CrossEntropy(label_smoothing=0.25), [torch.randn(6), torch.tensor(2), torch.rand(6)]),
    case("cross_entropy_probs", CrossEntropy(), [torch.randn(5, 4), torch.softmax(torch.randn(5, 4), 1), torch.rand(4)]),
    case("cross_entropy_probs_smoothing_2d", CrossEntropy(label_smoothing=0.2),
         [torch.randn(2, 3, 4), torch.softmax(torch.randn(2, 3, 4), 1), torch.rand(3)]),
    case("cross_entropy_probs_unbatched", CrossEntropy(label_smoothing=0.1),
         [torch.randn(6), torch.softmax(torch.randn(6), 0), torch.rand(6)]),
    case("cross_entropy_dynamic_classes", CrossEntropy(label_smoothing=0.1), [torch.randn(5, 4), t4, torch.rand(4)],
         opsets=(11, 13, 17), cli_args=("--dynamic-axes", "x=0,1", "--dynamic-axes", "t=0", "--dynamic-axes", "w=0")),
    case("pointwise", Pointwise(), [torch.randn(3, 4, 5), torch.randn(3, 4, 5)]),
    case("pointwise_broadcast", Fn(lambda x, t: (F.mse_loss(x, t, reduction="none"), F.l1_loss(x, t, reduction="sum"))),
         [torch.randn(3, 4), torch.randn(4)]),
    case("pointwise_0d", Fn(lambda x, t: (F.mse_loss(x, t), F.huber_loss(x, t, reduction="none"), F.l1_loss(x, t, reduction="sum"))),
         [torch.tensor(0.5), torch.tensor(-1.5)]),
    case("kl_div", KlDiv(), [logp(4, 5), torch.softmax(torch.randn(4, 5), 1).index_fill(1, torch.tensor([2]), 0.0),
                             logp(4, 5)]),
    case("bce", Bce(), [torch.randn(3, 4), torch.rand(3, 4).round(), torch.rand(3, 4), torch.rand(4) * 3]),
    case("bce_weighted", BceWeighted(), [torch.randn(3, 4), torch.rand(3, 4).round(), torch.rand(4)], method="script"),
    case("modules", Modules(), [torch.randn(5, 4), t4, torch.rand(5, 4)]),
    case("modules_script", Modules(), [torch.randn(5, 4), t4, torch.rand(5, 4)], method="script"),
]
