# Scripted control flow: prim::If -> ONNX If, prim::Loop -> ONNX Loop, lists built at run time ->
# ONNX sequences (opset 11+). Each model runs on its example inputs and on further input sets that
# take the other branch / another trip count (more_inputs); sizes that drive a trip count are
# dynamic axes there.
from typing import List, Optional, Tuple

import torch
from op_case import case

torch.manual_seed(0)

NO_SEQ = (9, 11, 13, 17)  # no sequence: opset 9 too
SEQ = (13, 17)  # lists carried by If/Loop are sequences: ONNX If/Loop carry them from 13


class IfData(torch.nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            y = x * 2
        else:
            y = x - 1
        return y


class IfNested(torch.nn.Module):
    def forward(self, x):
        if bool(x.mean() > 0):
            if bool(x.max() > 1.5):
                y = x * 3
            else:
                y = x + 10
        else:
            y = -x
        return y.relu()


class IfTuple(torch.nn.Module):
    def forward(self, x, y):
        if bool((x * y).sum() > 0):
            a, b = x + y, x * y
        else:
            a, b = x - y, y
        return a, b


class IfShapes(torch.nn.Module):
    """Branches whose results differ in shape."""

    def forward(self, x):
        if bool(x[0, 0] > 0):
            y = x[:2]
        else:
            y = torch.cat([x, x], 0)
        return y * 2


class IfScalar(torch.nn.Module):
    """An int computed in a branch, used afterwards."""

    def forward(self, x):
        if bool(x.sum() > 0):
            k = 2
        else:
            k = 3
        return x * k


class LoopConst(torch.nn.Module):
    def forward(self, x):
        for i in range(7):
            x = torch.sin(x) + i
        return x


class LoopSize(torch.nn.Module):
    """Trip count from a dynamic dim; the counter used in the body."""

    def forward(self, x):
        h = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            h = h * 0.5 + x[i] * i
        return h


class LoopFromData(torch.nn.Module):
    """Trip count: an int computed from an input's values."""

    def forward(self, x, n):
        steps = int(n.sum())
        for _ in range(steps):
            x = x * 0.9 + 1
        return x


class While(torch.nn.Module):
    def forward(self, x):
        i = 0
        while bool(x.abs().sum() < 100.0):
            x = x * 2
            i += 1
        return x, torch.tensor(i)


class LoopIf(torch.nn.Module):
    """An if inside a loop, on the counter and on data."""

    def forward(self, x):
        acc = torch.zeros_like(x)
        for i in range(x.size(0)):
            if i % 2 == 0:
                acc = acc + x
            else:
                acc = acc * 0.5
            if bool(acc.sum() > 3):
                acc = acc - 1
        return acc


class IfLoop(torch.nn.Module):
    """A loop inside an if."""

    def forward(self, x):
        if bool(x.sum() > 0):
            for i in range(x.size(1)):
                x = x + x[:, i : i + 1]
        else:
            x = x * -1
        return x


class LoopTwoCarried(torch.nn.Module):
    """Two tensors and an int carried, one tensor growing."""

    def forward(self, x):
        s = x
        total = 0
        for i in range(3):
            s = torch.cat([s, x * i], 1)
            total = total + s.size(1)
        return s, x * total


class ListStack(torch.nn.Module):
    def forward(self, x):
        outs: List[torch.Tensor] = []
        for i in range(x.size(0)):
            outs.append(x[i] * 2 + i)
        return torch.stack(outs, 0)


class ListCat(torch.nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = []
        for i in range(x.size(1)):
            if bool(x[0, i] > 0):
                parts.append(x[:, i : i + 1])
        parts.append(x[:, :1] * 0)
        return torch.cat(parts, 1)


class ListOps(torch.nn.Module):
    """len, indexing, pop and insert on a list built at run time."""

    def forward(self, x):
        items: List[torch.Tensor] = []
        for i in range(x.size(0)):
            items.append(x[i] + i)
        last = items.pop()
        items.insert(0, last * 10)
        n = len(items)
        return torch.stack(items, 0), items[1] * n


class RaiseBranch(torch.nn.Module):
    def forward(self, x):
        if bool(x.sum() > -1000.0):
            y = x + 1
        else:
            raise RuntimeError("input out of range")
        return y


class GRUCell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.GRUCell(6, 5)

    def forward(self, x, h):
        return self.cell(x, h)


class LSTMCell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.LSTMCell(6, 5)

    def forward(self, x, h, c):
        return self.cell(x, (h, c))


class RNNCell(torch.nn.Module):
    def __init__(self, nonlinearity):
        super().__init__()
        self.cell = torch.nn.RNNCell(6, 5, nonlinearity=nonlinearity)

    def forward(self, x, h):
        return self.cell(x, h)


class CellNoState(torch.nn.Module):
    """A cell called without a state (zeros), scripted."""

    def __init__(self):
        super().__init__()
        self.cell = torch.nn.GRUCell(6, 5)

    def forward(self, x):
        return self.cell(x)


class RNNUnroll(torch.nn.Module):
    """An LSTMCell stepped over a dynamic time axis."""

    def __init__(self):
        super().__init__()
        self.cell = torch.nn.LSTMCell(4, 3)

    def forward(self, x):
        h = torch.zeros(x.size(1), 3)
        c = torch.zeros(x.size(1), 3)
        outs: List[torch.Tensor] = []
        for t in range(x.size(0)):
            h, c = self.cell(x[t], (h, c))
            outs.append(h)
        return torch.stack(outs, 0)


class GreedyDecoder(torch.nn.Module):
    """embedding -> GRU cell -> linear -> argmax fed back, for as many steps as `steps` is long."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(11, 8)
        self.cell = torch.nn.GRUCell(8, 16)
        self.out = torch.nn.Linear(16, 11)

    def forward(self, start, hidden, steps):
        token = start
        tokens: List[torch.Tensor] = []
        for _ in range(steps.size(0)):
            hidden = self.cell(self.embed(token), hidden)
            token = self.out(hidden).argmax(-1)
            tokens.append(token)
        return torch.stack(tokens, 1), hidden


class LstmOptional(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(4, 6, num_layers=2)

    def forward(self, x, state: Optional[Tuple[torch.Tensor, torch.Tensor]] = None):
        out, (h, c) = self.rnn(x, state)
        return out, h, c


class GruHx(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(4, 6)

    def forward(self, x, h: Optional[torch.Tensor]):
        if h is None:
            out, hn = self.rnn(x)
        else:
            out, hn = self.rnn(x, h)
        return out, hn


class MhaPadding(torch.nn.Module):
    """Scripted MultiheadAttention with a key padding mask (its data-dependent checks stay)."""

    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x, mask):
        return self.mha(x, x, x, key_padding_mask=mask, need_weights=False)[0]


class EncoderLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)

    def forward(self, x, mask):
        return self.layer(x, src_key_padding_mask=mask)


def pos(*shape):
    return torch.rand(*shape) + 0.5


def neg(*shape):
    return -torch.rand(*shape) - 0.5


DYN0 = ("--dynamic-axes", "x=0")

CASES = [
    case("if_data", IfData(), [pos(3, 4)], opsets=NO_SEQ, method="script", more_inputs=[[neg(3, 4)]]),
    case("if_nested", IfNested(), [pos(3, 4) + 1.5], opsets=NO_SEQ, method="script",
         more_inputs=[[pos(3, 4) * 0.1], [neg(3, 4)]]),
    case("if_tuple", IfTuple(), [pos(2, 3), pos(2, 3)], opsets=NO_SEQ, method="script",
         more_inputs=[[pos(2, 3), neg(2, 3)]]),
    case("if_shapes", IfShapes(), [pos(4, 3)], opsets=(11, 13, 17), method="script", more_inputs=[[neg(4, 3)]]),
    case("if_scalar", IfScalar(), [pos(2, 3)], opsets=NO_SEQ, method="script", more_inputs=[[neg(2, 3)]]),
    case("loop_const", LoopConst(), [torch.randn(2, 3)], opsets=NO_SEQ, method="script"),
    case("loop_size", LoopSize(), [torch.randn(5, 3)], opsets=NO_SEQ, method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(2, 3)], [torch.randn(9, 3)]]),
    case("loop_from_data", LoopFromData(), [torch.randn(2, 3), torch.tensor([2, 1])], opsets=NO_SEQ, method="script",
         more_inputs=[[torch.randn(2, 3), torch.tensor([0, 1])], [torch.randn(2, 3), torch.tensor([4, 3])]]),
    case("while_data", While(), [torch.randn(2, 3)], opsets=NO_SEQ, method="script",
         more_inputs=[[torch.randn(2, 3) * 40], [torch.randn(2, 3) * 0.01]]),
    case("loop_if", LoopIf(), [pos(4, 3)], opsets=NO_SEQ, method="script", cli_args=DYN0,
         more_inputs=[[pos(7, 3) * 0.1], [neg(2, 3)]]),
    case("if_loop", IfLoop(), [pos(2, 3)], opsets=NO_SEQ, method="script", more_inputs=[[neg(2, 3)]]),
    case("loop_two_carried", LoopTwoCarried(), [torch.randn(2, 3)], opsets=NO_SEQ, method="script"),
    case("list_stack", ListStack(), [torch.randn(4, 3)], opsets=SEQ, method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(1, 3)], [torch.randn(6, 3)]]),
    case("list_cat", ListCat(), [torch.randn(3, 6)], opsets=SEQ, method="script",
         more_inputs=[[torch.randn(3, 6)], [-pos(3, 6)]]),
    case("list_ops", ListOps(), [torch.randn(4, 3)], opsets=SEQ, method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(2, 3)], [torch.randn(7, 3)]]),
    case("raise_branch", RaiseBranch(), [torch.randn(2, 3)], opsets=NO_SEQ, method="script"),
    case("gru_cell", GRUCell(), [torch.randn(3, 6), torch.randn(3, 5)], opsets=NO_SEQ, method="script"),
    case("gru_cell_trace", GRUCell(), [torch.randn(3, 6), torch.randn(3, 5)], opsets=NO_SEQ),
    case("lstm_cell", LSTMCell(), [torch.randn(3, 6), torch.randn(3, 5), torch.randn(3, 5)], opsets=NO_SEQ,
         method="script"),
    case("rnn_tanh_cell", RNNCell("tanh"), [torch.randn(3, 6), torch.randn(3, 5)], opsets=NO_SEQ, method="script"),
    case("rnn_relu_cell", RNNCell("relu"), [torch.randn(3, 6), torch.randn(3, 5)], opsets=NO_SEQ, method="script"),
    case("cell_no_state", CellNoState(), [torch.randn(3, 6)], opsets=NO_SEQ, method="script"),
    case("rnn_unroll", RNNUnroll(), [torch.randn(5, 2, 4)], opsets=SEQ, method="script", cli_args=DYN0,
         more_inputs=[[torch.randn(1, 2, 4)], [torch.randn(8, 2, 4)]]),
    case("greedy_decoder", GreedyDecoder(), [torch.tensor([1, 4]), torch.randn(2, 16), torch.zeros(5)], opsets=SEQ,
         method="script", cli_args=("--dynamic-axes", "steps=0"),
         more_inputs=[[torch.tensor([3, 0]), torch.randn(2, 16), torch.zeros(2)],
                      [torch.tensor([7, 7]), torch.randn(2, 16), torch.zeros(9)]]),
    case("lstm_optional_state", LstmOptional(), [torch.randn(5, 2, 4)], opsets=NO_SEQ, method="script"),
    case("gru_hx_given", GruHx(), [torch.randn(5, 2, 4), torch.randn(1, 2, 6)], opsets=NO_SEQ, method="script"),
    case("mha_padding_mask", MhaPadding(), [torch.randn(2, 5, 8), torch.tensor([[False] * 5, [False] * 3 + [True] * 2])],
         opsets=NO_SEQ, method="script"),
    case("encoder_layer_mask", EncoderLayer(),
         [torch.randn(2, 5, 8), torch.tensor([[False] * 5, [False] * 3 + [True] * 2])], opsets=NO_SEQ, method="script"),
]
