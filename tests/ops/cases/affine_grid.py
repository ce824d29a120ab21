# F.affine_grid (aten::affine_grid_generator) in 2-D and 3-D, align_corners True/False, sizes of 1.
import torch
import torch.nn.functional as F
from op_case import Fn, case

CASES = [
    case("affine_grid_2d", Fn(lambda t: (F.affine_grid(t, [2, 3, 4, 5], align_corners=False),
                                         F.affine_grid(t, [2, 1, 3, 1], align_corners=True))), [torch.randn(2, 2, 3)]),
    case("affine_grid_3d", Fn(lambda t: (F.affine_grid(t, [2, 1, 2, 3, 4], align_corners=False),
                                         F.affine_grid(t, [2, 1, 3, 2, 2], align_corners=True))), [torch.randn(2, 3, 4)]),
    case("affine_grid_sample", Fn(lambda x, t: F.grid_sample(x, F.affine_grid(t, x.size(), align_corners=False),
                                                            align_corners=False)),
         [torch.randn(1, 2, 5, 6), torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.05]]])], opsets=(16, 17)),
]
