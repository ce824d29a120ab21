#!/usr/bin/python3
"""Fixtures for the detection-model tests (run with Debian's /usr/bin/python3: torch 1.13, torchvision 0.14).

    /usr/bin/python3 tests/detection/make_detection_fixtures.py OUT_DIR MODEL

Writes OUT_DIR/MODEL/model.pt: torchvision's MODEL with random weights (seeded), wrapped to take one
image float32[3,H,W] and return a flat tuple (boxes, scores, labels[, masks | keypoints,
keypoint scores]), traced at 240x320; OUT_DIR/MODEL/export.json ({"cli_args": [...]}: --input at the
example size, --dynamic-axes image=1,2); and OUT_DIR/MODEL/size_K/ (K = 0: the example image,
K = 1: an image of another size) with the input and PyTorch's outputs, meta.json as
tests/ort/compare.js reads it. compare_detections.js says how the outputs are compared.

The models are torchvision's detection classes with the smallest backbones torchvision offers,
random weights and weights_backbone=None: Faster R-CNN (its MobileNetV3-Large 320 FPN builder),
SSDlite (its MobileNetV3-Large builder), RetinaNet, FCOS, Mask R-CNN, Keypoint R-CNN (each with
torchvision's ResNet-18 FPN backbone, resnet_fpn_backbone, instead of the builders' ResNet-50, to
keep the tests fast), and SSD300-VGG16 (its builder; slow). A few classes keep random scores
above the score thresholds, so every model returns detections.
Regenerated only when this file changes.
"""
import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))

EXAMPLE_HW = (240, 320)
OTHER_HW = (288, 224)  # another size and aspect ratio: the exported graph must not have baked 240x320 in
NUM_CLASSES = 5


def build(name):
    import torch
    from torchvision.models import detection as D
    from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7

    size = dict(min_size=min(EXAMPLE_HW), max_size=max(EXAMPLE_HW))

    def resnet18_fpn(p6p7=False):
        if p6p7:  # RetinaNet and FCOS: P3-P7 as their builders make them
            return resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=5,
                                       returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(256, 256))
        return resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=5)

    if name == "fasterrcnn_mobilenet_v3_large_320_fpn":
        return D.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, num_classes=NUM_CLASSES,
                                                       **size)
    if name == "ssdlite320_mobilenet_v3_large":
        return D.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=NUM_CLASSES)
    if name == "ssd300_vgg16":
        return D.ssd300_vgg16(weights=None, weights_backbone=None, num_classes=NUM_CLASSES)
    if name == "retinanet_resnet18_fpn":
        # Random sigmoid scores sit at the prior (0.01): take every candidate.
        return D.RetinaNet(resnet18_fpn(p6p7=True), NUM_CLASSES, score_thresh=0.0, **size)
    if name == "fcos_resnet18_fpn":
        return D.FCOS(resnet18_fpn(p6p7=True), NUM_CLASSES, score_thresh=0.0, **size)
    if name == "maskrcnn_resnet18_fpn":
        return D.MaskRCNN(resnet18_fpn(), NUM_CLASSES, **size)
    if name == "keypointrcnn_resnet18_fpn":
        return D.KeypointRCNN(resnet18_fpn(), NUM_CLASSES, num_keypoints=5, **size)
    raise SystemExit(f"unknown model {name}")


class Detector:
    """One image in, a flat tuple of the first (only) image's detections out."""

    def __new__(cls, model):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self, model):
                super().__init__()
                self.model = model

            def forward(self, image):
                d = self.model([image])[0]
                out = (d["boxes"], d["scores"], d["labels"])
                if "masks" in d:
                    out = out + (d["masks"],)
                if "keypoints" in d:
                    out = out + (d["keypoints"], d["keypoints_scores"])
                return out

        return Wrapped(model)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    out_dir, name = sys.argv[1], sys.argv[2]
    with open(__file__, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    target = os.path.join(out_dir, name)
    done = os.path.join(target, "export.json")
    if os.path.exists(done):
        with open(done) as f:
            if json.load(f).get("source_hash") == digest:
                return
    import torch
    import make_fixtures as mf

    torch.set_num_threads(1)
    torch.manual_seed(0)
    if name == "nms_only":  # for the kernel-library tests: a model that calls torchvision::nms
        import torchvision

        class Nms(torch.nn.Module):
            def forward(self, boxes, scores):
                return torchvision.ops.nms(boxes, scores, 0.5)

        os.makedirs(target, exist_ok=True)
        torch.jit.trace(Nms(), (torch.rand(8, 4), torch.rand(8))).save(os.path.join(target, "model.pt"))
        with open(done, "w") as f:
            json.dump({"source_hash": digest, "cli_args": ["--input", "float32[8,4]", "--input", "float32[8]"]}, f)
        return
    model = Detector(build(name)).eval()
    # An image with structure (smooth blobs), in [0, 1] as torchvision's transforms expect.
    example = torch.rand(3, EXAMPLE_HW[0] // 8, EXAMPLE_HW[1] // 8)
    example = torch.nn.functional.interpolate(example[None], size=EXAMPLE_HW, mode="bilinear")[0]
    other = torch.rand(3, OTHER_HW[0] // 8, OTHER_HW[1] // 8)
    other = torch.nn.functional.interpolate(other[None], size=OTHER_HW, mode="bilinear")[0]

    tmp = target + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with torch.no_grad():
        traced = torch.jit.trace(model, (example,), check_trace=False)
    pt = os.path.join(tmp, "model.pt")
    traced.save(pt)
    for k, image in enumerate([example, other]):
        d = os.path.join(tmp, f"size_{k}")
        os.makedirs(d)
        meta = mf.outputs_meta(pt, [image], 1e-4, d, "trace")
        meta["model_name"] = name
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    args = ["--input", mf.cli_spec(example), "--input-names", "image", "--dynamic-axes", "image=1:height,2:width"]
    with open(os.path.join(tmp, "export.json"), "w") as f:
        json.dump({"source_hash": digest, "cli_args": args, "sizes": 2}, f, indent=1)
    shutil.rmtree(target, ignore_errors=True)
    os.rename(tmp, target)


if __name__ == "__main__":
    main()
