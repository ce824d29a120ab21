# Dynamic axes on inputs whose sizes must agree (issue 43): no single rule varies every dynamic axis
# at once and keeps the model running (a view to another input's shape, repeats whose length must be
# 1 or the repeated axis's, a feature size an LSTM fixes but the user declares dynamic). Export runs
# the model varying some axes only (the same axis position across inputs, one input, one axis), and
# keeps the axes none could vary symbolic, computing at run time every size derived from their inputs
# (core/src/run/coupled_axes.cpp), as torch.onnx exports these. Each case from PyTorch's suite
# (test_view_dynamic, test_dynamic_repeat_interleave, test_multiple_dynamic_repeat_interleave,
# test_lstm_sequence, test_dynamic_expand_as), compared at the example sizes and at two others.
import torch
from op_case import case

torch.manual_seed(0)


def f(*shape):
    return torch.randn(*shape)


class ViewAsOther(torch.nn.Module):  # test_view_dynamic
    def forward(self, input, other):
        return input.view(other.shape)


class RepeatsInput(torch.nn.Module):  # test_dynamic_repeat_interleave / test_multiple_dynamic_repeat_interleave
    def forward(self, x, repeats):
        return torch.repeat_interleave(x, repeats, dim=1)


class LstmNet(torch.nn.Module):  # test_lstm_sequence: the feature axis is declared dynamic too
    def __init__(self):
        super().__init__()
        self.rnn1 = torch.nn.LSTM(8, 8, bidirectional=True, batch_first=True)
        self.linear1 = torch.nn.Linear(8 * 2, 8)
        self.rnn2 = torch.nn.LSTM(8, 8, bidirectional=True, batch_first=True)
        self.linear2 = torch.nn.Linear(8 * 2, 8)

    def forward(self, input):
        rnn_output1, _ = self.rnn1(input)
        linear_output1 = self.linear1(rnn_output1)
        rnn_output2, _ = self.rnn2(linear_output1)
        return self.linear2(rnn_output2)


class FillTail(torch.nn.Module):  # test_dynamic_expand_as: x[:, n:] = 0 with n = x.size(0)
    def forward(self, x):
        x = x.clone()
        x[:, x.size(0):] = 0
        return x


class FillTailRow(torch.nn.Module):  # the same with a [3] tensor: axis 2 must stay 3
    def forward(self, x):
        x = x.clone()
        x[:, x.size(0):] = torch.tensor([1.0, 2.0, 3.0])
        return x


X_INT = torch.tensor([[1, 2, 4], [3, 4, 7]])
CASES = [
    case("view_as_other", ViewAsOther(), [f(2, 3, 4), f(6, 4)], opsets=(9, 13, 17),
         cli_args=("--dynamic-axes", "input=0,1,2", "--dynamic-axes", "other=0,1"),
         more_inputs=[[f(4, 3, 4), f(12, 4)], [f(3, 5, 2), f(15, 2)]]),
    case("view_as_other_script", ViewAsOther(), [f(2, 3, 4), f(6, 4)], method="script", opsets=(11, 17),
         cli_args=("--dynamic-axes", "input=0,1,2", "--dynamic-axes", "other=0,1"),
         more_inputs=[[f(4, 3, 4), f(12, 4)], [f(1, 6, 5), f(3, 10)]]),
    case("repeat_interleave_one_repeat", RepeatsInput(), [X_INT, torch.tensor([2])], opsets=(11, 13, 17),
         cli_args=("--dynamic-axes", "x=1", "--dynamic-axes", "repeats=0"),
         more_inputs=[[torch.tensor([[7, 8], [5, 6]]), torch.tensor([4])],
                      [torch.tensor([[7, 8, 1, 2], [5, 6, 3, 4]]), torch.tensor([1, 0, 2, 3])]]),
    case("repeat_interleave_repeats_dynamic_only", RepeatsInput(), [X_INT, torch.tensor([2, 3, 4])],
         opsets=(11, 17), cli_args=("--dynamic-axes", "repeats=0",),
         more_inputs=[[X_INT, torch.tensor([4, 3, 2])], [X_INT, torch.tensor([0, 1, 0])]]),
    case("lstm_sequence_feature_axis", LstmNet(), [f(1, 10, 8)], opsets=(9, 14, 17),
         cli_args=("--dynamic-axes", "input=0,1,2"), more_inputs=[[f(2, 7, 8)], [f(3, 4, 8)]], rtol=1e-3),
    case("fill_tail", FillTail(), [torch.ones(2, 5)], opsets=(11, 17), cli_args=("--dynamic-axes", "x=0,1"),
         more_inputs=[[f(3, 4)], [f(1, 6)]]),
    # Scripted: a trace records the [3] tensor expanded to the example's slice, which other sizes break.
    case("fill_tail_row_script", FillTailRow(), [torch.ones(2, 5, 3)], method="script", opsets=(11, 17),
         cli_args=("--dynamic-axes", "x=0,1,2"), more_inputs=[[f(3, 4, 3)], [f(1, 7, 3)]]),
]
