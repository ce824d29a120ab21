# Results PyTorch's own ONNX Runtime suite (test/onnx/test_pytorch_onnx_onnxruntime.py, 1.13 and 2.6)
# found wrong or failing in ONNX Runtime (issue 43, kind 3), each with the suite's model and variants
# where the form changes:
#   * a scripted true division whose dtype follows the inputs and torch.get_default_dtype()
#     (test_div_promotion_script): int/int under the float32 and float64 defaults (stated by
#     --default-dtype, or recorded by torch2onnx.save), int/double, float/int;
#   * lists appended in nested blocks that every run leaves empty, returned beside a tensor
#     (test_list_append_nested_2): an empty list of tensors flattens to no output, as PyTorch's outputs
#     do (the suite's model, which returns nothing else, is refused: tests/refusals);
#   * index_add_ along each dim (test_index_add_normal; traced, scripted, saved by torch2onnx.save,
#     on a dynamic axis) and scatter_add with indices smaller than src (test_scatter_add_dynamic_index,
#     combination4), also on dynamic axes: src is cut to the indices' shape at run time;
#   * expand to run-time sizes holding -1 (test_expand's ExpandTensorSizeModel);
#   * einsum on bool and 8/16-bit integer tensors (test_einsum), which Einsum's kernels do not take;
#   * x.set_(y) (test_set_), at a fixed and at a dynamic size.
# Models that write into their inputs (index_add_, set_) are compared on the inputs as given
# (make_op_fixtures.py runs PyTorch on copies).
import torch
from op_case import case

torch.manual_seed(0)


# --- true division promoted by the inputs' dtypes and the default dtype -----------------------------
class DivPromotion(torch.nn.Module):
    def forward(self, x, y):
        # transposes hide the inputs' types from the scripted graph, as in PyTorch's test
        x = x.transpose(1, 2)
        y = y.transpose(1, 2)
        return x / y, torch.true_divide(x, y)


_div_x = torch.randn(2, 3, 4).to(torch.int)
_div_y = torch.arange(1, 2 * 3 * 4 + 1).reshape(2, 3, 4).to(torch.int)


# --- lists appended in nested blocks ----------------------------------------------------------------
class ListAppendNested2WithResult(torch.nn.Module):
    """The same empty lists returned beside a tensor: the tensor is the only output."""

    def forward(self, x):
        res = []
        res_replicate = []
        for i in range(x.size(0)):
            if len(res) > 2:
                for j in range(x.size(1)):
                    res.append(x[i][j])
                res_replicate.append(res[-1])
                res.append(res_replicate[-1])
        return res, x.sum(1), res_replicate


# --- index_add_ and scatter_add with fewer indices than updates ------------------------------------
class IndexAdd(torch.nn.Module):
    def __init__(self, dim, index, updates):
        super().__init__()
        self.dim = dim
        self.index = index
        self.updates = updates

    def forward(self, x):
        x.index_add_(self.dim, self.index, self.updates)
        return x


class ScatterAddDim0(torch.nn.Module):
    def forward(self, input, indices, src):
        return input.scatter_add(0, indices, src)


# --- expand to a run-time size -----------------------------------------------------------------------
class ExpandTensorSize(torch.nn.Module):
    def forward(self, input, size):
        return input.expand(size)


class ExpandTensorSizes(torch.nn.Module):
    """Two run-time sizes, one of them -1 (keep the input's dim)."""

    def forward(self, input, a, b):
        return input.expand(a, b)


# --- einsum on bool and small integer tensors ------------------------------------------------------
class EinsumBatchDiagonal(torch.nn.Module):
    def forward(self, x):
        return torch.einsum("...ii ->...i", x)


class EinsumTranspose(torch.nn.Module):
    def forward(self, x):
        return torch.einsum("ij->ji", x)


class EinsumForms(torch.nn.Module):
    """A transpose, a sum over an index (int64 for bool and integer operands, as PyTorch's sum) and
    an elementwise product."""

    def forward(self, x, y):
        return torch.einsum("ij->ji", x), torch.einsum("ij->i", x), torch.einsum("ij,ij->ij", x, y)


class EinsumContract(torch.nn.Module):
    def forward(self, x, y):
        return torch.einsum("ij,kj->ik", x, y)


# --- set_ ------------------------------------------------------------------------------------------------
class SetStorage(torch.nn.Module):
    def forward(self, x, y):
        x.set_(y)
        return x


CASES = [
    # true division: int/int gives the default dtype, int/double gives double
    case("div_promotion_script_int_float32", DivPromotion(), [_div_x, _div_y], method="script"),
    case("div_promotion_script_int_float64", DivPromotion(), [_div_x, _div_y], method="script",
         default_dtype=torch.float64, cli_args=("--default-dtype", "float64")),
    # the scripted module saved by torch2onnx.save, which records the default dtype
    case("div_promotion_script_int_float64_saved", torch.jit.script(DivPromotion()), [_div_x, _div_y],
         default_dtype=torch.float64, save="torch2onnx", export_as_saved=True),
    case("div_promotion_script_int_double", DivPromotion(),
         [_div_x, torch.arange(1, 2 * 3 * 4 + 1).reshape(2, 3, 4).to(torch.double)], method="script"),
    case("div_promotion_script_float_int", DivPromotion(),
         [torch.randn(2, 3, 4), _div_y.to(torch.int64)], method="script", default_dtype=torch.float64,
         cli_args=("--default-dtype", "float64")),
    # lists every run leaves empty, returned beside a tensor
    case("list_append_nested_2_with_result", ListAppendNested2WithResult(), [torch.randn(4, 4, 3, 4)],
         method="script", opsets=(13, 14, 17)),
    # index_add_ along each dim of PyTorch's test; index shorter than the dim
    case("index_add_normal_dim0", IndexAdd(0, torch.tensor([0, 2, 3, 1, 4]),
                                           torch.tensor([[1], [4], [7], [3], [2]], dtype=torch.float)),
         [torch.ones(5, 1)], opsets=(9, 11, 13, 16, 17)),
    case("index_add_normal_dim1", IndexAdd(1, torch.tensor([0, 2, 3, 1]),
                                           torch.tensor([[[1, 5, 7], [2, 4, 5], [5, 5, 6], [2, 3, 4]]],
                                                        dtype=torch.float)),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17)),
    case("index_add_normal_dim2", IndexAdd(2, torch.tensor([0, 2, 1]),
                                           torch.tensor([[[1, 2, 3], [4, 5, 6], [7, 8, 9], [2, 3, 4]]],
                                                        dtype=torch.float)),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17)),
    case("index_add_normal_dim0_script", IndexAdd(0, torch.tensor([0, 2, 3, 1, 4]),
                                                  torch.tensor([[1], [4], [7], [3], [2]], dtype=torch.float)),
         [torch.ones(5, 1)], opsets=(9, 11, 13, 16, 17), method="script"),
    case("index_add_normal_dim1_script", IndexAdd(1, torch.tensor([0, 2, 3, 1]),
                                                  torch.tensor([[[1, 5, 7], [2, 4, 5], [5, 5, 6], [2, 3, 4]]],
                                                               dtype=torch.float)),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17), method="script"),
    case("index_add_normal_dim2_script", IndexAdd(2, torch.tensor([0, 2, 1]),
                                                  torch.tensor([[[1, 2, 3], [4, 5, 6], [7, 8, 9], [2, 3, 4]]],
                                                               dtype=torch.float)),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17), method="script"),
    case("index_add_normal_dim1_saved", IndexAdd(1, torch.tensor([0, 2, 3, 1]),
                                                 torch.tensor([[[1, 5, 7], [2, 4, 5], [5, 5, 6], [2, 3, 4]]],
                                                              dtype=torch.float)),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17), save="torch2onnx", export_as_saved=True),
    case("index_add_normal_dim0_script_saved", torch.jit.script(IndexAdd(0, torch.tensor([0, 2, 3, 1, 4]),
                                                 torch.tensor([[1], [4], [7], [3], [2]], dtype=torch.float))),
         [torch.ones(5, 1)], opsets=(9, 11, 13, 16, 17), save="torch2onnx", export_as_saved=True),
    case("index_add_normal_dim2_script_saved", torch.jit.script(IndexAdd(2, torch.tensor([0, 2, 1]),
                                                 torch.tensor([[[1, 2, 3], [4, 5, 6], [7, 8, 9], [2, 3, 4]]],
                                                              dtype=torch.float))),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17), save="torch2onnx", export_as_saved=True),
    case("index_add_dim_size_differ", IndexAdd(1, torch.tensor([0, 2, 1]),
                                               torch.tensor([[[1, 5, 7], [2, 4, 5], [5, 5, 6]]],
                                                            dtype=torch.float)),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17)),
    case("index_add_dynamic", IndexAdd(1, torch.tensor([0, 2, 3, 1]),
                                       torch.tensor([[[1, 5, 7], [2, 4, 5], [5, 5, 6], [2, 3, 4]]],
                                                    dtype=torch.float)),
         [torch.ones(1, 4, 3)], opsets=(9, 11, 13, 16, 17), cli_args=("--dynamic-axes", "x=0,1"),
         more_inputs=[[torch.ones(2, 5, 3)]]),
    # scatter_add with indices smaller than src: fixed, and on dynamic axes (PyTorch 2.6's combination4)
    case("scatter_add_index_smaller_src", ScatterAddDim0(),
         [torch.zeros(3, 5), torch.tensor([[0, 1, 2, 0], [1, 0, 2, 1]]), torch.ones(3, 5)],
         opsets=(16, 17)),
    case("scatter_add_dynamic_combination4", ScatterAddDim0(),
         [torch.zeros(3, 5), torch.tensor([[0, 1, 2, 0], [1, 0, 2, 1]]), torch.ones(3, 5)],
         opsets=(16, 17),
         cli_args=("--dynamic-axes", "indices=0:a,1:b", "--dynamic-axes", "src=0:c,1:d"),
         more_inputs=[[torch.zeros(3, 5), torch.tensor([[0, 1, 2, 0, 0]]), torch.ones(2, 5)]]),
    # expand to run-time sizes: -1 keeps the dim (saved by torch2onnx.save and exported from what it
    # stored, as a user does: the example values hold the -1, where made-up ones would not)
    case("expand_tensor_size_neg1", ExpandTensorSize(), [torch.randn(3), torch.tensor(-1)],
         save="torch2onnx", export_as_saved=True, more_inputs=[[torch.randn(3), torch.tensor(3)]]),
    case("expand_tensor_size_neg1_script", torch.jit.script(ExpandTensorSize()), [torch.randn(3), torch.tensor(-1)],
         save="torch2onnx", export_as_saved=True, more_inputs=[[torch.randn(3), torch.tensor(3)]]),
    case("expand_tensor_sizes", ExpandTensorSizes(), [torch.randn(3, 1), torch.tensor(-1), torch.tensor(4)],
         save="torch2onnx", export_as_saved=True,
         more_inputs=[[torch.randn(3, 1), torch.tensor(3), torch.tensor(2)],
                      [torch.randn(3, 1), torch.tensor(-1), torch.tensor(1)]]),
    # einsum on bools (PyTorch's test) and on the integer types Einsum's kernels lack
    case("einsum_bool_batch_diagonal", EinsumBatchDiagonal(), [torch.randn(3, 5, 5).to(torch.bool)],
         opsets=(12, 13, 17)),
    case("einsum_bool_transpose", EinsumTranspose(), [torch.randn(3, 4).to(torch.bool)], opsets=(12, 13, 17)),
    case("einsum_bool_forms", EinsumForms(), [torch.rand(3, 4) > 0.5, torch.rand(3, 4) > 0.5], opsets=(12, 17)),
    case("einsum_int8_forms", EinsumForms(), [torch.randint(-100, 100, (3, 4), dtype=torch.int8),
                                              torch.randint(-100, 100, (3, 4), dtype=torch.int8)], opsets=(12, 17)),
    case("einsum_uint8_contract", EinsumContract(), [torch.randint(0, 255, (3, 4), dtype=torch.uint8),
                                                     torch.randint(0, 255, (5, 4), dtype=torch.uint8)],
         opsets=(12, 17)),
    case("einsum_int16_contract", EinsumContract(), [torch.randint(-300, 300, (3, 4), dtype=torch.int16),
                                                     torch.randint(-300, 300, (5, 4), dtype=torch.int16)],
         opsets=(12, 17)),
    case("einsum_int32_forms", EinsumForms(), [torch.randint(-9, 9, (3, 4), dtype=torch.int32),
                                               torch.randint(-9, 9, (3, 4), dtype=torch.int32)], opsets=(12, 17)),
    case("einsum_float16_forms", EinsumForms(), [torch.randn(3, 4).half(), torch.randn(3, 4).half()],
         opsets=(12, 17), rtol=1e-3),
    # set_
    case("set_", SetStorage(), [torch.ones(2, 3), torch.randn(4, 6)]),
    case("set_dynamic", SetStorage(), [torch.ones(2, 3), torch.randn(4, 6)],
         cli_args=("--dynamic-axes", "x=0,1", "--dynamic-axes", "y=0,1"),
         more_inputs=[[torch.randn(4, 6), torch.randn(5, 2)]]),
    # saved by torch2onnx.save and exported from what it recorded: the specs and example values are the
    # inputs as given (x [2, 3]), not as the model left them after set_ (x [4, 6])
    case("set_saved", SetStorage(), [torch.ones(2, 3), torch.randn(4, 6)], save="torch2onnx", export_as_saved=True),
]
