# Dynamic axes on inputs whose sizes must agree (issue 43): no single rule varies every dynamic axis
# at once and keeps the model running (a view to another input's shape, repeats whose length must be
# 1 or the repeated axis's, a feature size an LSTM fixes but the user declares dynamic). Export runs
# the model varying some axes only (the same axis position across inputs, one input, one axis), and
# keeps the axes none could vary symbolic, computing at run time every size derived from their inputs
# (core/src/run/coupled_axes.cpp), as torch.onnx exports these. Each case from PyTorch's suite
# (test_view_dynamic, test_dynamic_repeat_interleave, test_multiple_dynamic_repeat_interleave,
# test_lstm_sequence, test_dynamic_expand_as; test_dynamic_chunk, whose chunk count is x.size(0)
# and fixes the outputs' count; test_symbolic_shape_inference_time, whose batch axis must agree with
# the fixed initial state's; test_rpn, whose feature maps must agree with the image; and 2.6's
# test_scatter_add_dynamic_index combinations 1-3), compared at the example sizes and at two others
# (three for test_dynamic_chunk, as the suite runs it).
from collections import OrderedDict

import torch
import torchvision
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


class ChunkBySize(torch.nn.Module):  # test_dynamic_chunk: as many chunks as x.size(0)
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.chunk(x, x.size(0), dim=self.dim)


class LstmWithState(torch.nn.Module):
    """test_symbolic_shape_inference_time: nn.LSTM(5, 3) on (x, (h0, c0)); only x's axes are declared
    dynamic, so its batch must stay h0's. (h0, c0) are two arguments here (the op harness feeds
    tensors), as the trace flattens them."""

    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(5, 3, 1, bidirectional=False)

    def forward(self, x, h0, c0):
        return self.rnn(x, (h0, c0))


def _init_test_rpn():  # the suite's RegionProposalNetwork
    anchor_sizes = ((32,), (64,), (128,), (256,), (512,))
    aspect_ratios = ((0.5, 1.0, 2.0),) * len(anchor_sizes)
    rpn = torchvision.models.detection.rpn
    anchors = rpn.AnchorGenerator(anchor_sizes, aspect_ratios)
    head = rpn.RPNHead(256, anchors.num_anchors_per_location()[0])
    return rpn.RegionProposalNetwork(anchors, head, 0.7, 0.3, 256, 0.5, dict(training=2000, testing=1000),
                                     dict(training=2000, testing=1000), 0.7, score_thresh=0.0)


class RpnModule(torch.nn.Module):
    """test_rpn: the image and its five feature maps (the suite passes them as a dict, flattened into
    input1..input6 by the export; here as six arguments of those names), every axis dynamic."""

    def __init__(self):
        super().__init__()
        self.rpn = _init_test_rpn()
        # RPNHead's initial weights (std 0.01) put every objectness within 1e-3 of 0.5: hundreds of
        # proposals then tie, or differ by one float step that ONNX Runtime's and PyTorch's sigmoid
        # round apart, and their order (the output's row order) is the sort's, not the model's.
        # Larger seeded logits spread the scores.
        with torch.no_grad():
            self.rpn.head.cls_logits.weight.mul_(50.0)

    def forward(self, input1, input2, input3, input4, input5, input6):
        features = OrderedDict([("0", input2), ("1", input3), ("2", input4), ("3", input5), ("4", input6)])
        images = torchvision.models.detection.image_list.ImageList(
            input1, [(i.shape[-1], i.shape[-2]) for i in input1])
        return self.rpn(images, features)


def rpn_inputs(h, w):
    images = torch.rand(2, 3, h, w)
    return [images] + [torch.rand(2, 256, h // d, w // d) for d in (4, 8, 16, 32, 64)]


class ScatterAddDim0(torch.nn.Module):  # test_scatter_add_dynamic_index
    def forward(self, input, indices, src):
        return input.scatter_add(0, indices, src)


X_INT = torch.tensor([[1, 2, 4], [3, 4, 7]])
RPN_AXES = tuple(a for k in range(1, 7) for a in ("--dynamic-axes", f"input{k}=0,1,2,3"))
SCATTER_AXES = ("--dynamic-axes", "indices=0:a,1:b", "--dynamic-axes", "src=0:c,1:d")
# Other sizes for the scatter_add combinations: indices no larger than src, rows below input's 3.
SCATTER_MORE = [[torch.zeros(3, 5), torch.tensor([[2, 1, 0], [0, 0, 1]]), torch.arange(12.0).reshape(3, 4)],
                [torch.zeros(3, 5), torch.tensor([[1, 2, 0, 1, 2]]), torch.ones(1, 5) * 2]]


def rnn_inputs(seq, cell=True):
    return [f(seq, 2, 5), f(1, 2, 3)] + ([f(1, 2, 3)] if cell else [])

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
    # chunk(x, x.size(0)): the count is read at run time (SplitToSequence, 11+); the outputs' count
    # stays the example's, so the rows stay 3 (the suite varies the chunked axis only)
    case("dynamic_chunk", ChunkBySize(1), [f(3, 18)], opsets=(11, 13, 17),
         cli_args=("--dynamic-axes", "x=0:batch_size,1:dims"), more_inputs=[[f(3, 13)], [f(3, 14)], [f(3, 15)]]),
    case("dynamic_chunk_neg_dim", ChunkBySize(-1), [f(3, 18)], opsets=(11, 13, 17),
         cli_args=("--dynamic-axes", "x=0:batch_size,1:dims"), more_inputs=[[f(3, 13)], [f(3, 14)], [f(3, 15)]]),
    # the sequence axis varies; the batch axis, declared dynamic too, must stay h0's 2
    case("symbolic_shape_inference_time_lstm", LstmWithState(), rnn_inputs(11), opsets=(9, 14, 17),
         cli_args=("--dynamic-axes", "x=0,1"), more_inputs=[rnn_inputs(7), rnn_inputs(4)], rtol=1e-3),
    case("symbolic_shape_inference_time_gru", torch.nn.GRU(5, 3, 1, bias=False), rnn_inputs(11, False),
         opsets=(9, 14, 17), cli_args=("--dynamic-axes", "input=0,1"),
         more_inputs=[rnn_inputs(7, False), rnn_inputs(4, False)], rtol=1e-3),
    case("symbolic_shape_inference_time_rnn", torch.nn.RNN(5, 3, 1, bias=False), rnn_inputs(11, False),
         opsets=(9, 14, 17), cli_args=("--dynamic-axes", "input=0,1"),
         more_inputs=[rnn_inputs(7, False), rnn_inputs(4, False)], rtol=1e-3),
    # the suite's 150x150 image and 80x80 one, and a 128x96 one (H and W apart)
    # (saved by torch2onnx.save, as a user would: it returns the empty dict of losses too)
    case("rpn", RpnModule().eval(), rpn_inputs(150, 150), opsets=(11, 17), cli_args=RPN_AXES,
         more_inputs=[rpn_inputs(80, 80), rpn_inputs(128, 96)], rtol=1e-3, save="torch2onnx", export_as_saved=True),
    # PyTorch 2.6's combinations 1-3: indices and src of equal shape, or indices smaller than src
    case("scatter_add_dynamic_combination1", ScatterAddDim0(),
         [torch.zeros(3, 5), torch.tensor([[0, 1, 2, 0, 0]]), torch.ones(1, 5)], opsets=(16, 17),
         cli_args=SCATTER_AXES, more_inputs=SCATTER_MORE),
    case("scatter_add_dynamic_combination2", ScatterAddDim0(),
         [torch.zeros(3, 5), torch.tensor([[0, 1, 2, 0, 0], [1, 0, 2, 1, 2]]), torch.ones(2, 5)], opsets=(16, 17),
         cli_args=SCATTER_AXES, more_inputs=SCATTER_MORE),
    case("scatter_add_dynamic_combination3", ScatterAddDim0(),
         [torch.zeros(3, 5), torch.tensor([[0, 1, 2, 0, 0], [1, 0, 2, 1, 2]]), torch.ones(3, 5)], opsets=(16, 17),
         cli_args=SCATTER_AXES, more_inputs=SCATTER_MORE),
]
