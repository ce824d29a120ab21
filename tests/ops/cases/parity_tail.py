# The last of torch.onnx 1.13's parity (issue 29, the smaller items): dicts a scripted forward()
# fills (aten::dict, aten::_set_item) and a traced list of dicts, flattened into their values in
# insertion order as torch.onnx does; baddbmm, cdist and scatter_add with dynamic axes, run at
# other sizes (scatter_add from opset 16: below it duplicate indices cannot accumulate, refused);
# a slice whose step is computed at run time; randint_like; multinomial on a made-up example input
# (drawn as probabilities); scripted InstanceNorm with track_running_stats (its running statistics
# read as constants after freezing); a dict filled in a loop the static-shape fold unrolls; the
# second example run at other sizes on models with size rules (view to halves of a dynamic axis,
# chunk of a dynamic axis unpacked, an LSTM over a dynamic batch and sequence inside a larger model).
from typing import Dict

import torch
from op_case import Fn, case


class DictFilled(torch.nn.Module):
    def forward(self, x):
        out: Dict[str, torch.Tensor] = {}
        out["out"] = x * 2
        out["aux"] = x + 1
        out["out"] = out["out"] - out["aux"]  # a key written again keeps its place
        y = x
        if "aux" in out:  # answered from the entries: the branch folds
            y = out["aux"] * 3
        out["n"] = x.sum(0) * len(out) + y.sum()
        return out


class DictCall(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.aux = None  # frozen to None: its branch folds away, as in torchvision's segmentation models

    def forward(self, x):
        d = dict()
        d["b"] = torch.relu(x)
        if self.aux is not None:
            d["aux"] = x
        d["a"] = d.get("b", x) + d.get("c", x)
        e = dict(d)
        e["c"] = x.mean(0)
        return d, e


class ListOfDicts(torch.nn.Module):
    def forward(self, x):
        return [{"boxes": x[0] * 2, "scores": x[0].sum(-1)}, {"boxes": x[1] + 1, "scores": x[1].amax(-1)}]


class Baddbmm(torch.nn.Module):
    def forward(self, a, b, c):
        return torch.baddbmm(a, b, c, beta=0.5, alpha=2.0), torch.baddbmm(a, b, c)


class Cdist(torch.nn.Module):
    def forward(self, a, b):
        return torch.cdist(a, b), torch.cdist(a, b, p=1.0)


class ScatterAdd(torch.nn.Module):
    def forward(self, x, idx, src):
        return x.scatter_add(1, idx, src)


class SliceStep(torch.nn.Module):
    def forward(self, x):
        s = x.size(0) // 2
        return x[::s], x[1:-1:s]


class SliceStepList(torch.nn.Module):
    def forward(self, x):
        k = x.size(1) - 2
        return x[:, ::k]


class RandintLike(torch.nn.Module):
    def forward(self, x):
        return torch.randint_like(x, 3, 10), torch.randint_like(x, 7, dtype=torch.int64)


class Multinomial(torch.nn.Module):
    def forward(self, p):
        return torch.multinomial(p, 2000, replacement=True)


class InstanceNormStats(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n = torch.nn.InstanceNorm2d(3, track_running_stats=True, affine=True)
        with torch.no_grad():
            self.n.running_mean.uniform_(-1, 1)
            self.n.running_var.uniform_(0.5, 2)
            self.n.weight.uniform_(0.5, 1.5)
            self.n.bias.uniform_(-1, 1)

    def forward(self, x):
        return self.n(x)


class DictFilledInLoop(torch.nn.Module):
    """A dict written in a loop of a static trip count: unrolled by the static-shape fold, then its
    writes fold into its entries."""
    def forward(self, x):
        out: Dict[str, torch.Tensor] = {}
        out["first"] = x[0]
        for i in range(x.size(0)):
            out["last"] = x[i] * float(i)
        return out


class ViewFromDynamicSize(torch.nn.Module):
    """view to sizes computed from a dynamic axis (halves of it: odd sizes fail in PyTorch too, so the
    second example run must pick a size the model accepts)."""
    def forward(self, x):
        return x.view(x.size(0), x.size(1) // 2, 2).sum(2), x.reshape(-1, 2, x.size(1) // 2)


class ChunkDynamicUnpacked(torch.nn.Module):
    def forward(self, x):
        a, b, c = x.chunk(3, 1)
        return a * 2 + b.sum(1, keepdim=True), c


class Tagger(torch.nn.Module):
    """An LSTM over a dynamic batch and sequence inside a larger model (embedding, LSTM, linear)."""
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(11, 6)
        self.lstm = torch.nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True)
        self.out = torch.nn.Linear(10, 4)

    def forward(self, ids):
        h, (hn, cn) = self.lstm(self.emb(ids))
        scores = self.out(h).log_softmax(-1)
        return scores, hn.transpose(0, 1).reshape(ids.size(0), -1) + cn.sum(0).repeat(1, 4)


DYN3 = ("--dynamic-axes", "a=0,1,2", "--dynamic-axes", "b=0,1,2", "--dynamic-axes", "c=0,1,2")
DYN_CDIST = ("--dynamic-axes", "a=0,1", "--dynamic-axes", "b=0,1")
DYN_SCATTER = ("--dynamic-axes", "idx=1", "--dynamic-axes", "src=1")

CASES = [
    case("dict_set_item", DictFilled(), [torch.randn(3, 4)], method="script"),
    case("dict_filled_in_loop", DictFilledInLoop(), [torch.randn(3, 4)], method="script"),
    case("dict_call_copy", DictCall(), [torch.randn(3, 4)], method="script"),
    case("list_of_dicts", ListOfDicts(), [torch.randn(2, 3, 4)], save="torch2onnx"),
    case("baddbmm_dynamic", Baddbmm(), [torch.randn(2, 3, 5), torch.randn(2, 3, 4), torch.randn(2, 4, 5)],
         cli_args=DYN3, more_inputs=[[torch.randn(4, 2, 6), torch.randn(4, 2, 3), torch.randn(4, 3, 6)]]),
    case("baddbmm_dynamic_script", Baddbmm(), [torch.randn(2, 3, 5), torch.randn(2, 3, 4), torch.randn(2, 4, 5)],
         method="script", cli_args=DYN3,
         more_inputs=[[torch.randn(4, 2, 6), torch.randn(4, 2, 3), torch.randn(4, 3, 6)]]),
    case("cdist_dynamic", Cdist(), [torch.randn(2, 5, 3), torch.randn(2, 4, 3)], cli_args=DYN_CDIST,
         more_inputs=[[torch.randn(3, 7, 3), torch.randn(3, 2, 3)]]),
    case("cdist_dynamic_script", Cdist(), [torch.randn(2, 5, 3), torch.randn(2, 4, 3)], method="script",
         cli_args=DYN_CDIST, more_inputs=[[torch.randn(3, 7, 3), torch.randn(3, 2, 3)]]),
    case("scatter_add_dynamic_index", ScatterAdd(), [torch.zeros(3, 5), torch.randint(0, 5, (3, 4)), torch.randn(3, 4)],
         opsets=(16, 17), cli_args=DYN_SCATTER,
         more_inputs=[[torch.zeros(3, 5), torch.randint(0, 5, (3, 7)), torch.randn(3, 7)],
                      [torch.zeros(3, 5), torch.randint(0, 5, (3, 2)), torch.randn(3, 2)]]),
    case("scatter_add_dynamic_index_script", ScatterAdd(),
         [torch.zeros(3, 5), torch.randint(0, 5, (3, 4)), torch.randn(3, 4)], method="script",
         opsets=(16, 17), cli_args=DYN_SCATTER,
         more_inputs=[[torch.zeros(3, 5), torch.randint(0, 5, (3, 7)), torch.randn(3, 7)]]),
    case("slice_runtime_step", SliceStep(), [torch.randn(6, 3)], opsets=(10, 13, 17),
         cli_args=("--dynamic-axes", "x=0"), more_inputs=[[torch.randn(9, 3)], [torch.randn(4, 3)]]),
    case("slice_runtime_step_script", SliceStep(), [torch.randn(6, 3)], method="script", opsets=(10, 17),
         cli_args=("--dynamic-axes", "x=0"), more_inputs=[[torch.randn(9, 3)], [torch.randn(4, 3)]]),
    case("slice_runtime_step_axis1", SliceStepList(), [torch.randn(2, 5)], method="script", opsets=(10, 17),
         cli_args=("--dynamic-axes", "x=1"), more_inputs=[[torch.randn(2, 9)]]),
    case("view_from_dynamic_size", ViewFromDynamicSize(), [torch.randn(3, 6)], cli_args=("--dynamic-axes", "x=0,1"),
         more_inputs=[[torch.randn(2, 10)], [torch.randn(5, 2)]]),
    case("view_from_dynamic_size_script", ViewFromDynamicSize(), [torch.randn(3, 6)], method="script",
         cli_args=("--dynamic-axes", "x=0,1"), more_inputs=[[torch.randn(2, 10)], [torch.randn(5, 2)]]),
    case("chunk_dynamic_unpacked", ChunkDynamicUnpacked(), [torch.randn(2, 9)], opsets=(10, 11, 13, 17),
         cli_args=("--dynamic-axes", "x=0,1"), more_inputs=[[torch.randn(3, 7)], [torch.randn(1, 12)]]),
    case("chunk_dynamic_unpacked_script", ChunkDynamicUnpacked(), [torch.randn(2, 9)], method="script",
         opsets=(10, 11, 13, 17), cli_args=("--dynamic-axes", "x=0,1"), more_inputs=[[torch.randn(3, 7)]]),
    case("lstm_in_model_dynamic", Tagger(), [torch.randint(0, 11, (2, 7))], opsets=(9, 14, 17),
         cli_args=("--dynamic-axes", "ids=0,1"),
         more_inputs=[[torch.randint(0, 11, (3, 4))], [torch.randint(0, 11, (1, 9))]]),
    case("lstm_in_model_dynamic_script", Tagger(), [torch.randint(0, 11, (2, 7))], method="script",
         opsets=(9, 14, 17), cli_args=("--dynamic-axes", "ids=0,1"),
         more_inputs=[[torch.randint(0, 11, (3, 4))]]),
    case("randint_like", RandintLike(), [torch.randn(60, 50)], compare="stats"),
    case("randint_like_script", RandintLike(), [torch.randn(60, 50)], method="script", compare="stats"),
    case("multinomial_made_up_probs", Multinomial(), [torch.rand(2, 5)], compare="stats"),
    case("multinomial_made_up_probs_1d", Multinomial(), [torch.rand(6)], method="script", compare="stats"),
    case("instance_norm_running_stats_script", InstanceNormStats(), [torch.randn(2, 3, 4, 5)], method="script",
         cli_args=("--dynamic-axes", "x=0,2,3"), more_inputs=[[torch.randn(3, 3, 6, 2)]]),
    case("instance_norm_running_stats", InstanceNormStats(), [torch.randn(2, 3, 4, 5)]),
]
