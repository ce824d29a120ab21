# Forms torch.onnx converts that torch2onnx used to refuse (issue 43, kind 6), each the model of
# PyTorch's own ONNX Runtime suite (test/onnx/test_pytorch_onnx_onnxruntime.py, 1.13 and 2.6) that
# failed, exported the way that suite does (traced, and scripted where it scripts too), at the opsets
# where the form changes, with further inputs for the other branch, trip count or size.
from typing import List, Tuple

import torch
import torchvision
from torch import Tensor
from op_case import case

torch.manual_seed(0)


# --- arange(..., out=): test_dynamic_arange_out, test_dynamic_arange_start_out,
#     test_arange_with_floats_out, test_arange_out, test_arange_start_out
class ArangeOutInt(torch.nn.Module):
    def forward(self, end):
        out_t = torch.tensor([1], dtype=torch.int64)
        return torch.arange(end, out=out_t)


class ArangeStartOutInt(torch.nn.Module):
    def forward(self, start, end):
        out_t = torch.tensor([1], dtype=torch.int64)
        return torch.arange(start.size(0), end, out=out_t)


class ArangeOutFloat(torch.nn.Module):
    def forward(self, end):
        out_t = torch.tensor([1], dtype=torch.float)
        return torch.arange(end, out=out_t)


class ArangeStartOutFloat(torch.nn.Module):
    def forward(self, start, end):
        out_t = torch.tensor([1], dtype=torch.float)
        return torch.arange(start.size(0), end, out=out_t)


class ArangeStepOutFloat(torch.nn.Module):
    def forward(self, start, end):
        out_t = torch.tensor([1], dtype=torch.float)
        return torch.arange(start.size(0), end, 1.5, out=out_t)


# --- baddbmm with alpha and beta as graph inputs: test_baddbmm_dynamic
class BaddbmmDynamic(torch.nn.Module):
    def forward(self, input, batch1, batch2, alpha, beta):
        return torch.baddbmm(input, batch1, batch2, alpha=alpha, beta=beta)


# --- slice_scatter with a run-time step: test_slice_with_input_step_size
class SliceInputStep(torch.nn.Module):
    def forward(self, x, y, z):
        x[:y:z, 0::z, :] = 1
        return x


# --- slice_scatter inside If: test_index_put_if, _2, _3, _4, _5
@torch.jit.script
def _check_init(input_data: Tensor, hidden_size: int, prev_state: Tensor) -> Tuple[Tensor, Tensor]:
    batch_size = input_data.size(0)
    spatial_size_0 = input_data.size(2)
    spatial_size_1 = input_data.size(3)
    state_size = (2, batch_size, hidden_size, spatial_size_0, spatial_size_1)
    state = torch.zeros(state_size, device=input_data.device)
    state_copy = torch.zeros(state_size, device=input_data.device)
    if prev_state.size(0) == 0:
        state[:] = torch.zeros(batch_size, hidden_size, spatial_size_0, spatial_size_1) + state[:]
        state_copy[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 2
        state_copy[:] = torch.zeros(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 2
    else:
        state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 4
    return state, state_copy


class IndexPutIf(torch.nn.Module):
    def forward(self, input_data, prev_state):
        prev_state = _check_init(input_data, 10, prev_state)
        return prev_state[0], prev_state[1]


@torch.jit.script
def _check_init_2(input_data: Tensor, hidden_size: int, prev_state: Tensor) -> Tuple[Tensor, Tensor]:
    batch_size = input_data.size(0)
    spatial_size_0 = input_data.size(2)
    spatial_size_1 = input_data.size(3)
    state_size = (2, batch_size, hidden_size, spatial_size_0, spatial_size_1)
    state = torch.zeros(state_size, device=input_data.device)
    state_copy = torch.zeros(state_size, device=input_data.device)
    if prev_state.size(0) == 0:
        for i in range(2):
            state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * i
            state_copy[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * i
    elif prev_state.size(0) == 1:
        s = state[:]
        state[:] = prev_state + s
    elif prev_state.size(0) == 2:
        state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 4
    return state, state_copy


class IndexPutIf2(torch.nn.Module):
    def forward(self, input_data, prev_state):
        prev_state = _check_init_2(input_data, 10, prev_state)
        return prev_state[0], prev_state[1]


@torch.jit.script
def _check_init_3(input_data: Tensor, hidden_size: int, prev_state: Tensor) -> Tensor:
    batch_size = input_data.size(0)
    spatial_size_0 = input_data.size(2)
    spatial_size_1 = input_data.size(3)
    state_size = (2, batch_size, hidden_size, spatial_size_0, spatial_size_1)
    state = torch.zeros(state_size, device=input_data.device)
    if prev_state.size(0) < 2:
        state = state * 3
        if prev_state.size(0) == 0:
            state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 3
        else:
            state = state + 2
    return state


class IndexPutIf3(torch.nn.Module):
    def forward(self, input_data, prev_state):
        return _check_init_3(input_data, 4, prev_state)


@torch.jit.script
def _check_init_5(input_data: Tensor, hidden_size: int, prev_state: Tensor) -> Tuple[Tensor, Tensor]:
    batch_size = input_data.size(0)
    spatial_size_0 = input_data.size(2)
    spatial_size_1 = input_data.size(3)
    state_size = (2, batch_size, hidden_size, spatial_size_0, spatial_size_1)
    state = torch.zeros(state_size, device=input_data.device)
    state_ref = state
    if prev_state.size(0) == 0:
        state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 3
        state = state + 3
        state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 4
    else:
        state = state + 2
    return state, state_ref


class IndexPutIf5(torch.nn.Module):
    def forward(self, input_data, prev_state):
        prev_state, state_ref = _check_init_5(input_data, 4, prev_state)
        return prev_state, state_ref


@torch.jit.script
def _check_init_4(input_data: Tensor, hidden_size: int, prev_state: Tensor) -> Tensor:
    batch_size = input_data.size(0)
    spatial_size_0 = input_data.size(2)
    spatial_size_1 = input_data.size(3)
    state_size = (2, batch_size, hidden_size, spatial_size_0, spatial_size_1)
    state = torch.zeros(state_size, device=input_data.device)
    if prev_state.size(0) == 0:
        state = state + 3
        state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 3
        state = state + 3
        state[:] = torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 4
    else:
        state = state + 2
    return state


class IndexPutIf4(torch.nn.Module):
    def forward(self, input_data, prev_state):
        return _check_init_4(input_data, 4, prev_state)


# --- select_scatter into a loop-carried tensor, in a branch and a loop: test_index_put_inplace_ops
@torch.jit.script
def _check_init_inplace(input_data: Tensor, hidden_size: int) -> Tensor:
    batch_size = input_data.size(0)
    spatial_size_0 = input_data.size(2)
    spatial_size_1 = input_data.size(3)
    state_size = (2, batch_size, hidden_size, spatial_size_0, spatial_size_1)
    state = torch.zeros(state_size, device=input_data.device)
    if input_data.size(0) == 1:
        state[1] += torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 2
        state[1] /= torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * 3
    for i in range(input_data.size(0)):
        state[1] += torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1)
        state[1] /= torch.ones(batch_size, hidden_size, spatial_size_0, spatial_size_1) * i
    return state


class IndexPutInplaceOps(torch.nn.Module):
    def forward(self, input_data):
        return _check_init_inplace(input_data, 10)


class SelectWriteUntakenBranch(torch.nn.Module):
    """done[i] = ... in a branch the example run never takes: its source's rank is not seen."""

    def forward(self, x):
        done = torch.zeros(x.shape[0], dtype=torch.bool)
        for k in range(2):
            for i in range(x.shape[0]):
                if bool(x[i].sum() > 100):
                    done[i] = x[i].sum() > 0
        return done


# --- copy_ into a tensor and a list carried by a loop: test_inplace_sequence_with_loop
class InplaceSequenceWithLoop(torch.nn.Module):
    def process(self, beam_hyps: List[Tensor], done: Tensor, x):
        batch_size = x.shape[0]
        for i in range(batch_size):
            if done[i]:
                continue
            beam_idx = 0
            for _, token in enumerate(x[i]):
                beam_hyps.append(token)
                beam_idx += 1
                if beam_idx == 6:
                    break
            done[i] = len(beam_hyps) > 4
        return beam_hyps, done

    def forward(self, x):
        return self.search(x)

    def search(self, x):
        beam_hyps: List[Tensor] = []
        batch_size = x.shape[0]
        cur_len = 0
        max_len = x.shape[1]
        done = torch.zeros(batch_size, dtype=torch.bool)
        while cur_len < max_len:
            beam_hyps, done = self.process(beam_hyps, done, x[:, 0, :])
            cur_len = cur_len + 1
        return beam_hyps


class InplaceSequenceWithLoopStacked(InplaceSequenceWithLoop):
    """The list as one tensor: ONNX Runtime's node binding returns no sequence outputs."""

    def forward(self, x):
        hyps = self.search(x)
        return torch.stack(hyps), torch.tensor(len(hyps))


# --- `+` on lists carried by a loop: test_loop_with_list
class LoopWithList(torch.nn.Module):
    def forward(self, x):
        res = []
        res1 = []
        arr = x.split([3, 4, 1, 1, 2, 3, 2], 0)
        res2 = torch.zeros(3, 4, dtype=torch.long)
        res3 = []
        res4 = []
        for i in range(len(arr)):
            res.append(arr[i].sum(0, False))
            res1.append(arr[-1 - i].sum(0, False))
            res2 += 1
            res3 = res3 + [arr[i].sum(0, False)]
            res4 += [arr[-1 - i].sum(0, False)]
        return res, res1, res2, torch.stack(res3), torch.stack(res4)


class LoopWithListStacked(torch.nn.Module):
    """Its lists as tensors: ONNX Runtime's node binding returns no sequence outputs."""

    def __init__(self):
        super().__init__()
        self.m = LoopWithList()

    def forward(self, x):
        res, res1, res2, res3, res4 = self.m(x)
        return torch.stack(res), torch.stack(res1), res2, res3, res4


class LoopListPrepend(torch.nn.Module):
    """A host list plus a list carried by a loop, and the list carried by a loop plus one."""

    def forward(self, x):
        res: List[Tensor] = []
        for i in range(x.size(0)):
            res = [x[i] * 2] + res
            res = res + [x[i], x[i] + 1]
        return torch.stack(res)


# --- a tuple result of an If whose other branch raises: test_tuple_output_from_if_with_raised_exception
class TupleFromIfWithRaise(torch.nn.Module):
    def forward(self, t: Tensor) -> Tuple[Tensor, Tensor]:
        if float(t) < 0:
            raise Exception("Negative input")
        else:
            return torch.zeros(5), torch.zeros(5)


class TupleFromIfWithRaiseComputed(torch.nn.Module):
    def forward(self, t: Tensor) -> Tuple[Tensor, Tensor]:
        if float(t.sum()) < -100:
            raise Exception("Negative input")
        else:
            return t * 2, torch.zeros(2, dtype=torch.long) + t.size(0)


# --- __interpolate with sizes from another input, scripted: test_interpolate_no_shape
class InterpolateNoShape(torch.nn.Module):
    def forward(self, x, y):
        x = torch.add(x, x)
        out1 = torch.nn.functional.interpolate(x, mode="bilinear", size=(16, 16), align_corners=False)
        out2 = torch.nn.functional.interpolate(x, mode="nearest", size=(int(y.size(0)), int(y.size(1))))
        return out1, out2


# --- outputs that are the same value: test_slice_dynamic
class DynamicSliceExportMod(torch.nn.Module):
    def forward(self, x):
        results = []
        for i in range(4):
            results.append(x[: x.size(0) - i, i : x.size(2), i:3])
        return tuple(results)


# --- an If whose branches give different ranks or dtypes: test_floating_point_infer_dtype
class FloatingPointInferDtype(torch.nn.Module):
    def forward(self, x):
        if x.size(0) > 1:
            a = x + 2
            if a.is_floating_point():
                return x.new_zeros(x.shape[1:])
            return x.new_zeros(x.shape)
        return x


class FloatingPointInferDtype2(torch.nn.Module):
    def forward(self, x):
        if x.size(0) > 1:
            a = x + 2
            if a.is_floating_point():
                return x + 1
            return x
        return x


A11 = (11, 13, 17)
RANGE = (9, 10, 11, 17)
SEQ = (13, 17)  # ONNX Loop carries sequences from 13  # ConstantOfShape + NonZero before Range (11)
X234 = torch.randn(2, 3, 4)

# --- lists whose length follows a dynamic axis, returned from early-return branches: test_dim_1,
#     test_uninitialized_tensorList_dynamic, test_uninitialized_tensorList_shape. Their lists are ONNX
#     sequence outputs (as torch.onnx gives), which ONNX Runtime's node binding cannot read: the
#     suite's code runs here in a method whose list forward() stacks, or reads at both ends and counts.
#     The branch an early return leaves unset (prim::Uninitialized) gets a placeholder of the type the
#     other branch gives; the list and If merge run-time lists as sequences (Loop from 13, and Identity
#     of a sequence from 14, hence the suite's opsets).
class ClipBoxesPerRow(torch.nn.Module):  # test_dim_1, stacked
    def forward(self, poses):
        boxes = torch.zeros([poses.shape[0], 2, 4])
        batch_boxes = []
        for kp_boxes in boxes:
            kp_boxes = torchvision.ops.clip_boxes_to_image(kp_boxes, (2, 3))
            batch_boxes.append(kp_boxes)
        return torch.stack(batch_boxes)


class UninitializedTensorListDynamic(torch.nn.Module):
    def lists(self, x) -> List[Tensor]:  # test_uninitialized_tensorList_dynamic's forward
        if x[0].shape[0] < 5:
            if x.size(0) == 1:
                x += x
            else:
                return list(x)
        return list(x)

    def forward(self, x):
        res = self.lists(x)
        return res[0], res[-1], torch.tensor(len(res))


class UninitializedTensorListShape(torch.nn.Module):
    def lists(self, x) -> List[Tensor]:  # test_uninitialized_tensorList_shape's forward
        if x.shape[1] < 5:
            if x.size(0) == 1:
                x = x + 4
            else:
                x_list = list(x)
                x_list.append(x)
                return x_list
        return [x, x]

    def forward(self, x):
        res = self.lists(x)
        return res[0], res[-1], torch.tensor(len(res))


_TLIST_MORE = [[torch.randn(2, 3, dtype=torch.double)], [torch.randn(1, 2, dtype=torch.double)],
               [torch.randn(5, 7, dtype=torch.double)]]
_TLIST_SHAPE_MORE = [[torch.ones((4, 6), dtype=torch.int)], [torch.arange(6, dtype=torch.int).reshape(2, 3)],
                     [torch.ones((1, 2), dtype=torch.int)]]

CASES = [
    case("arange_out_int", ArangeOutInt(), [torch.tensor(8)], opsets=RANGE, more_inputs=[[torch.tensor(3)]]),
    case("arange_out_int_script", ArangeOutInt(), [torch.tensor(8)], opsets=RANGE, method="script",
         more_inputs=[[torch.tensor(3)], [torch.tensor(0)]]),
    case("arange_start_out_int", ArangeStartOutInt(), [X234, torch.tensor(8)], opsets=RANGE, save="torch2onnx", export_as_saved=True,
         cli_args=["--dynamic-axes", "start=0,1,2"], more_inputs=[[torch.randn(5, 3, 4), torch.tensor(9)]]),
    case("arange_start_out_int_script", torch.jit.script(ArangeStartOutInt()), [X234, torch.tensor(8)],
         opsets=RANGE, save="torch2onnx", export_as_saved=True, cli_args=["--dynamic-axes", "start=0,1,2"],
         more_inputs=[[torch.randn(5, 3, 4), torch.tensor(9)], [torch.randn(1, 3, 4), torch.tensor(2)]]),
    case("arange_out_float", ArangeOutFloat(), [torch.tensor(8.5)], opsets=RANGE,
         more_inputs=[[torch.tensor(2.2)], [torch.tensor(3.0)]]),
    case("arange_out_float_script", ArangeOutFloat(), [torch.tensor(8.5)], opsets=RANGE, method="script",
         more_inputs=[[torch.tensor(2.2)]]),
    case("arange_start_out_float", ArangeStartOutFloat(), [X234, torch.tensor(8.5)], opsets=RANGE,
         save="torch2onnx", export_as_saved=True, cli_args=["--dynamic-axes", "start=0,1,2"],
         more_inputs=[[torch.randn(4, 3, 4), torch.tensor(7.25)]]),
    case("arange_start_out_float_script", torch.jit.script(ArangeStartOutFloat()), [X234, torch.tensor(8.5)],
         opsets=RANGE, save="torch2onnx", export_as_saved=True, cli_args=["--dynamic-axes", "start=0,1,2"],
         more_inputs=[[torch.randn(4, 3, 4), torch.tensor(7.25)]]),
    case("arange_step_out_float", ArangeStepOutFloat(), [X234, torch.tensor(8.5)], opsets=RANGE,
         save="torch2onnx", export_as_saved=True, cli_args=["--dynamic-axes", "start=0,1,2"],
         more_inputs=[[torch.randn(4, 3, 4), torch.tensor(11.0)]]),
    case("arange_step_out_float_script", torch.jit.script(ArangeStepOutFloat()), [X234, torch.tensor(8.5)],
         opsets=RANGE, save="torch2onnx", export_as_saved=True, cli_args=["--dynamic-axes", "start=0,1,2"],
         more_inputs=[[torch.randn(4, 3, 4), torch.tensor(11.0)]]),

    case("baddbmm_dynamic", BaddbmmDynamic(),
         [torch.randn(10, 3, 5), torch.randn(10, 3, 4), torch.randn(10, 4, 5), torch.tensor(5), torch.tensor(3.5)],
         more_inputs=[[torch.randn(10, 3, 5), torch.randn(10, 3, 4), torch.randn(10, 4, 5), torch.tensor(-2),
                       torch.tensor(0.25)],
                      [torch.randn(10, 3, 5), torch.randn(10, 3, 4), torch.randn(10, 4, 5), torch.tensor(2),
                       torch.tensor(0.0)]]),
    case("baddbmm_dynamic_script", BaddbmmDynamic(),
         [torch.randn(10, 3, 5), torch.randn(10, 3, 4), torch.randn(10, 4, 5), torch.tensor(5), torch.tensor(3.5)],
         method="script"),

    case("slice_input_step", SliceInputStep(),
         [torch.zeros(56, 6, 256), torch.tensor(5), torch.tensor(2)], opsets=A11,
         more_inputs=[[torch.zeros(56, 6, 256), torch.tensor(9), torch.tensor(3)]]),
    case("slice_input_step_script", SliceInputStep(),
         [torch.zeros(56, 6, 256), torch.tensor(5), torch.tensor(2)], opsets=A11, method="script",
         more_inputs=[[torch.zeros(56, 6, 256), torch.tensor(9), torch.tensor(3)]]),
    case("index_put_if", IndexPutIf(), [torch.rand(1, 5, 30, 30), torch.zeros(0, 0, 0, 0, 0)], opsets=A11,
         cli_args=["--dynamic-axes", "input_data=0,1,2,3", "--dynamic-axes", "prev_state=0,1,2,3,4"],
         more_inputs=[[torch.rand(1, 5, 30, 30), torch.rand(1, 1, 10, 30, 30)]]),
    case("index_put_if_2", IndexPutIf2(), [torch.rand(1, 5, 30, 30), torch.zeros(0, 0, 0, 0, 0)], opsets=A11,
         cli_args=["--dynamic-axes", "input_data=0,1,2", "--dynamic-axes", "prev_state=0,1,2,3,4"],
         more_inputs=[[torch.rand(1, 5, 30, 30), torch.rand(1, 1, 10, 30, 30)],
                      [torch.rand(1, 5, 30, 30), torch.rand(2, 1, 10, 30, 30)]]),
    case("index_put_if_3", IndexPutIf3(), [torch.rand(1, 5, 4, 4), torch.zeros(0, 0, 0, 0, 0)], opsets=A11,
         cli_args=["--dynamic-axes", "input_data=0,1,2,3", "--dynamic-axes", "prev_state=0,1,2,3,4"],
         more_inputs=[[torch.rand(1, 5, 4, 4), torch.rand(1, 1, 4, 4, 4)],
                      [torch.rand(1, 5, 4, 4), torch.rand(3, 1, 4, 4, 4)]]),
    case("index_put_if_5", IndexPutIf5(), [torch.rand(1, 5, 4, 4), torch.zeros(0, 0, 0, 0, 0)], opsets=A11,
         cli_args=["--dynamic-axes", "input_data=0,1,2,3", "--dynamic-axes", "prev_state=0,1,2,3,4"],
         more_inputs=[[torch.rand(1, 5, 4, 4), torch.rand(1, 1, 4, 4, 4)]]),

    case("index_put_if_4", IndexPutIf4(), [torch.rand(1, 5, 4, 4), torch.zeros(0, 0, 0, 0, 0)], opsets=A11,
         cli_args=["--dynamic-axes", "input_data=0,1,2,3", "--dynamic-axes", "prev_state=0,1,2,3,4"],
         more_inputs=[[torch.rand(1, 5, 4, 4), torch.rand(1, 1, 4, 4, 4)]]),
    case("index_put_inplace_ops", IndexPutInplaceOps(), [torch.rand(1, 5, 30, 30)], opsets=A11,
         cli_args=["--dynamic-axes", "input_data=0,1,2,3"], more_inputs=[[torch.rand(3, 2, 4, 5)]]),
    case("select_write_untaken_branch", SelectWriteUntakenBranch(), [torch.randn(4, 3)], opsets=(9, 17),
         method="script", cli_args=["--dynamic-axes", "x=0"],
         more_inputs=[[torch.randn(5, 3) * 100], [torch.full((2, 3), 50.0)]]),
    case("inplace_sequence_with_loop", InplaceSequenceWithLoopStacked(), [torch.randn(8, 4, 3)], opsets=(14, 17),
         method="script", cli_args=["--dynamic-axes", "x=0,1"],
         more_inputs=[[torch.randn(3, 2, 3)], [torch.randn(1, 5, 3)]]),
    case("loop_with_list", LoopWithListStacked(), [torch.randn(16)], opsets=SEQ, method="script"),
    case("loop_list_prepend", LoopListPrepend(), [torch.randn(3, 2)], opsets=SEQ, method="script",
         cli_args=["--dynamic-axes", "x=0"], more_inputs=[[torch.randn(5, 2)], [torch.randn(1, 2)]]),
    case("tuple_from_if_with_raise", TupleFromIfWithRaise(), [torch.zeros(1)], method="script",
         opsets=(9, 11, 13, 17)),
    case("tuple_from_if_with_raise_computed", TupleFromIfWithRaiseComputed(), [torch.randn(3)], method="script",
         opsets=(9, 17), cli_args=["--dynamic-axes", "t=0"], more_inputs=[[torch.randn(5)]]),
    case("interpolate_no_shape", InterpolateNoShape(), [torch.randn(1, 2, 4, 4), torch.randn(16, 16)],
         opsets=A11, method="script",
         cli_args=["--dynamic-axes", "x=0,1,2,3", "--dynamic-axes", "y=0,1"],
         more_inputs=[[torch.randn(2, 3, 5, 6), torch.randn(7, 9)]]),
    case("slice_dynamic", DynamicSliceExportMod(), [torch.rand(5, 5, 5)], opsets=(10, 11, 13, 17),
         cli_args=["--input-names", "input_1", "--output-names", "output_1", "--dynamic-axes", "input_1=0,1,2",
                   "--dynamic-axes", "output_1=0,1,2"],
         more_inputs=[[torch.randn(6, 7, 8)]]),
    case("floating_point_infer_dtype", FloatingPointInferDtype(), [X234], opsets=A11, method="script",
         cli_args=["--dynamic-axes", "x=0,1,2"], more_inputs=[[torch.randn(1, 3, 4)], [torch.randn(3, 2, 5)]]),
    case("floating_point_infer_dtype_2", FloatingPointInferDtype2(), [torch.randn(2, 3, 4).to(torch.int32)],
         opsets=A11, method="script"),
    # lists of a dynamic length out of early-return branches (the suite's [3, 4] input and others,
    # every path: x.size(0) == 1, x.shape[1] >= 5)
    case("dim_1_stacked", ClipBoxesPerRow(), [torch.rand(2, 2, 3)], opsets=(13, 17), method="script",
         cli_args=["--dynamic-axes", "poses=0"], more_inputs=[[torch.rand(3, 2, 3)], [torch.rand(1, 2, 3)]]),
    case("uninitialized_tensor_list_dynamic", UninitializedTensorListDynamic(), [torch.ones((3, 4), dtype=torch.double)],
         opsets=(14, 17), method="script", cli_args=["--dynamic-axes", "x=0,1"], more_inputs=_TLIST_MORE),
    case("uninitialized_tensor_list_shape", UninitializedTensorListShape(), [torch.ones((3, 4), dtype=torch.int)],
         opsets=(14, 17), method="script", cli_args=["--dynamic-axes", "x=0,1"], more_inputs=_TLIST_SHAPE_MORE),
    # saved by torch2onnx.save (the scripted module runs inside the trace: its branches stay)
    case("uninitialized_tensor_list_shape_saved", torch.jit.script(UninitializedTensorListShape()),
         [torch.ones((3, 4), dtype=torch.int)], opsets=(14, 17), save="torch2onnx", export_as_saved=True,
         cli_args=["--dynamic-axes", "x=0,1"], more_inputs=_TLIST_SHAPE_MORE),
]
