# Made-up example inputs the model rejects as ones but takes as zeros (issue 43): with only --input
# specs (no --example-inputs: how every op case is exported), integer inputs are ones, and where the model rejects ones (one_hot's
# class ids below a class count of 1, embedding_bag's offsets starting at 0) zeros, a value every
# index op accepts. The exported model is then run on real values (PyTorch's test_one_hot,
# test_embedding_bag_*) and compared with PyTorch.
import torch
from op_case import case

torch.manual_seed(0)


class OneHotRuntimeClasses(torch.nn.Module):  # test_one_hot's second model: the class count an input
    def forward(self, x, num_classes):
        num_classes = num_classes.to(torch.int32)
        return torch.nn.functional.one_hot(x, num_classes[0])


class OneHotOneClass(torch.nn.Module):
    def forward(self, i):
        return torch.nn.functional.one_hot(i, 1) * 3


class BagSum(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(10, 4))

    def forward(self, ids, offsets):
        return torch.nn.functional.embedding_bag(ids, self.weight, offsets, mode="sum")


class BagPerSample(torch.nn.Module):  # test_embedding_bag_1d_per_sample_weights
    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 5, mode="sum")

    def forward(self, ids, offsets, weights):
        return self.bag(ids, offsets, weights)


IDS = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
OFFSETS = torch.tensor([0, 3, 5])
CASES = [
    case("one_hot_class_count_input", OneHotRuntimeClasses(), [torch.arange(10), 15 * torch.ones(1)], opsets=(11, 17)),
    case("one_hot_one_class", OneHotOneClass(), [torch.zeros(4, dtype=torch.int64)], opsets=(9, 11, 17)),
    case("embedding_bag_offsets", BagSum(), [IDS, OFFSETS], opsets=(11, 17)),
    case("embedding_bag_per_sample", BagPerSample(), [IDS, OFFSETS, torch.rand(8)], opsets=(11, 17)),
]
