# nn.LSTM / nn.GRU / nn.RNN (aten::lstm, gru, rnn_tanh, rnn_relu) -> ONNX LSTM / GRU / RNN per layer.
from typing import Optional

import torch
from op_case import case


class Seq(torch.nn.Module):
    """An nn.LSTM/GRU/RNN without initial state: returns (output, h_n) or (output, (h_n, c_n))."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        return self.rnn(x)


class SeqState(torch.nn.Module):
    """GRU / RNN with an initial state h0."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h0):
        return self.rnn(x, h0)


class LstmState(torch.nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h0, c0):
        return self.rnn(x, (h0, c0))


class SeqOptState(torch.nn.Module):
    """GRU / RNN whose initial state is an Optional argument defaulting to None (scripted)."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h0: Optional[torch.Tensor] = None):
        return self.rnn(x, h0)


class LstmOptState(torch.nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h0: Optional[torch.Tensor] = None, c0: Optional[torch.Tensor] = None):
        if h0 is None or c0 is None:
            return self.rnn(x)
        return self.rnn(x, (h0, c0))


class LstmWeightsIn(torch.nn.Module):
    """Functional LSTM whose weights are model inputs (re-laid out in the graph, not at export)."""

    def forward(self, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_ih_r, w_hh_r, b_ih_r, b_hh_r):
        return torch._VF.lstm(x, (h0, c0), [w_ih, w_hh, b_ih, b_hh, w_ih_r, w_hh_r, b_ih_r, b_hh_r],
                              True, 1, 0.0, False, True, False)


class GruWeightsIn(torch.nn.Module):
    def forward(self, x, h0, w_ih, w_hh, b_ih, b_hh):
        return torch._VF.gru(x, h0, [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, False, False, True)


class CellState(torch.nn.Module):
    """nn.GRUCell / nn.RNNCell with or without h, or nn.LSTMCell with (h, c)."""

    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, x, *state):
        if not state:
            return self.cell(x)
        return self.cell(x, state if len(state) == 2 else state[0])


class LstmCellLoop(torch.nn.Module):
    """An LSTMCell unrolled over 3 steps by tracing."""

    def __init__(self):
        super().__init__()
        self.cell = torch.nn.LSTMCell(4, 5)

    def forward(self, x, h, c):
        ys = []
        for t in range(x.size(0)):
            h, c = self.cell(x[t], (h, c))
            ys.append(h)
        return torch.stack(ys), c


def lstm(**kw):
    return torch.nn.LSTM(4, 5, **kw)


def gru(**kw):
    return torch.nn.GRU(4, 5, **kw)


def rnn(**kw):
    return torch.nn.RNN(4, 5, **kw)


x = torch.randn(3, 2, 4)     # [seq, batch, feature]
xb = torch.randn(2, 3, 4)    # batch_first
h1 = torch.randn(1, 2, 5)
h4 = torch.randn(4, 2, 5)    # 2 layers x 2 directions

CASES = [
    case("lstm", Seq(lstm()), [x]),
    case("lstm_2l_bi", Seq(lstm(num_layers=2, bidirectional=True)), [x]),
    case("lstm_nobias_2l", Seq(lstm(num_layers=2, bias=False)), [x]),
    case("lstm_bf_state", LstmState(lstm(batch_first=True)), [xb, h1, torch.randn(1, 2, 5)]),
    case("lstm_2l_bi_bf_state", LstmState(lstm(num_layers=2, bidirectional=True, batch_first=True)),
         [xb, h4, torch.randn(4, 2, 5)]),
    case("lstm_script", Seq(lstm(num_layers=2)), [x], method="script"),
    case("lstm_state_script", LstmState(lstm(bidirectional=True)), [x, torch.randn(2, 2, 5), torch.randn(2, 2, 5)],
         method="script"),
    case("lstm_weights_in", LstmWeightsIn(),
         [x, torch.randn(2, 2, 5), torch.randn(2, 2, 5)] + [torch.randn(*s) for s in [(20, 4), (20, 5), (20,), (20,)] * 2]),
    case("lstm_2l_bi_bf_state_dyn", LstmState(lstm(num_layers=2, bidirectional=True, batch_first=True)),
         [xb, h4, torch.randn(4, 2, 5)],
         cli_args=("--dynamic-axes", "x=0,1", "--dynamic-axes", "h0=1", "--dynamic-axes", "c0=1")),
    case("gru", Seq(gru()), [x]),
    case("gru_2l_bi", Seq(gru(num_layers=2, bidirectional=True)), [x]),
    case("gru_2l_bi_dyn", Seq(gru(num_layers=2, bidirectional=True)), [x], cli_args=("--dynamic-axes", "x=0,1")),
    case("gru_nobias_bf", Seq(gru(bias=False, batch_first=True)), [xb]),
    case("gru_2l_bi_bf_state", SeqState(gru(num_layers=2, bidirectional=True, batch_first=True)), [xb, h4]),
    case("gru_script", Seq(gru(bidirectional=True)), [x], method="script"),
    case("gru_weights_in", GruWeightsIn(),
         [xb, h1] + [torch.randn(*s) for s in [(15, 4), (15, 5), (15,), (15,)]]),
    # cells: weights are separate constants (re-laid out at export time)
    case("lstm_cell", CellState(torch.nn.LSTMCell(4, 5)), [x[0], h1[0], torch.randn(2, 5)]),
    case("lstm_cell_unbatched", CellState(torch.nn.LSTMCell(4, 5)), [x[0, 0], h1[0, 0], torch.randn(5)]),
    case("lstm_cell_loop", LstmCellLoop(), [x, h1[0], torch.randn(2, 5)]),
    case("gru_cell", CellState(torch.nn.GRUCell(4, 5)), [x[0]]),
    case("gru_cell_state", CellState(torch.nn.GRUCell(4, 5)), [x[0], h1[0]]),
    case("rnn_tanh_cell_state", CellState(torch.nn.RNNCell(4, 5)), [x[0], h1[0]]),
    case("rnn_relu_cell_nobias", CellState(torch.nn.RNNCell(4, 5, bias=False, nonlinearity="relu")), [x[0], h1[0]]),
    case("rnn_tanh", Seq(rnn()), [x]),
    case("rnn_tanh_2l_bi_state", SeqState(rnn(num_layers=2, bidirectional=True)), [x, h4]),
    case("rnn_relu_bi_bf", Seq(rnn(nonlinearity="relu", bidirectional=True, batch_first=True)), [xb]),
    case("rnn_relu_2l_nobias", Seq(rnn(nonlinearity="relu", num_layers=2, bias=False)), [x]),
    # scripted: the `hx is None` / batch-size checks fold at export (hx given, or taking its default)
    case("rnn_relu_script", SeqState(rnn(nonlinearity="relu")), [x, h1], method="script"),
    case("rnn_relu_script_nohx", Seq(rnn(nonlinearity="relu")), [x], method="script"),
    case("rnn_tanh_script_2l_bi_bf", SeqState(rnn(num_layers=2, bidirectional=True, batch_first=True)), [xb, h4],
         method="script"),
    case("gru_state_script", SeqState(gru(num_layers=2, bidirectional=True)), [x, h4], method="script"),
    case("gru_opt_state_script_default", SeqOptState(gru()), [x], method="script"),
    case("gru_opt_state_script_given", SeqOptState(gru(num_layers=2)), [x, torch.randn(2, 2, 5)], method="script"),
    case("rnn_relu_opt_state_script_default", SeqOptState(rnn(nonlinearity="relu")), [x], method="script"),
    case("lstm_opt_state_script_default", LstmOptState(lstm(batch_first=True)), [xb], method="script"),
    case("lstm_opt_state_script_given", LstmOptState(lstm()), [x, h1, torch.randn(1, 2, 5)], method="script"),
    case("lstm_state_script_dyn", LstmState(lstm()), [x, h1, torch.randn(1, 2, 5)], method="script",
         cli_args=("--dynamic-axes", "x=0,1", "--dynamic-axes", "h0=1", "--dynamic-axes", "c0=1")),
]
