#!/usr/bin/python3
"""Fixtures for the detection-model tests (run with Debian's /usr/bin/python3: torch 1.13, torchvision 0.14).

    /usr/bin/python3 tests/detection/make_detection_fixtures.py OUT_DIR MODEL

Writes OUT_DIR/MODEL/model.pt: torchvision's MODEL with random weights (seeded), wrapped to take one
image float32[3,H,W] and return a flat tuple (boxes, scores, labels[, masks | keypoints,
keypoint scores]), traced at 240x320 (or saved by torch2onnx.save with that image: SAVED_WITH_EXAMPLE);
OUT_DIR/MODEL/export.json ({"cli_args": [...]}: --input at the example size, --dynamic-axes image=1,2,
--dynamic-input); and OUT_DIR/MODEL/size_K/ (K = 0: the example image,
K = 1: an image of another size, K >= 2: EXTRA_IMAGES) with the input and PyTorch's outputs, meta.json as
tests/ort/compare.js reads it. compare_detections.js says how the outputs are compared.

The models are torchvision's detection classes with the smallest backbones torchvision offers,
random weights and weights_backbone=None: Faster R-CNN (its MobileNetV3-Large 320 FPN builder),
SSDlite (its MobileNetV3-Large builder), SSD300 (its VGG-16 builder: the image is resized to a fixed
300x300 inside the model), RetinaNet, FCOS, Mask R-CNN, Keypoint R-CNN (each with
torchvision's ResNet-18 FPN backbone, resnet_fpn_backbone, instead of the builders' ResNet-50, to
keep the tests fast), and Mask R-CNN with torchvision's ResNet-50 FPN builder (maskrcnn_resnet50_fpn as
PyTorch's ONNX test exports it; maskrcnn_resnet50_fpn_score_thresh0 as issue 43 reports it). A few classes keep random scores
above the score thresholds, so every model returns detections.
Regenerated only when this file changes (make_fixtures.generate_once: one process generates, others
wait for it).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))

EXAMPLE_HW = (240, 320)
OTHER_HW = (288, 224)  # another size and aspect ratio: the exported graph must not have baked 240x320 in
# The size of the export's second example run (--dynamic-input), which finds the dynamic dims: the
# models scale each image to a fixed short side and pad to a multiple of 32, so the default (each
# dynamic axis one larger) leaves every internal size as it was. A portrait image changes both.
DYNAMIC_RUN_HW = (320, 240)
NUM_CLASSES = 5
# More images for some models, after the example and OTHER_HW (size_2, ...): PyTorch's test of Mask
# R-CNN runs its export on another size and on a flat image with another number of detections.
# Models saved as a Python user saves them, by torch2onnx.save with the example image and dynamic H and W
# (its signature in the .pt: the export needs only --dynamic-input): the example runs are fed that
# image (resized copies at the other sizes) instead of made-up noise, so they all see what a real image
# gives, e.g. as many proposals as the RPN keeps at most.
SAVED_WITH_EXAMPLE = {"maskrcnn_resnet50_fpn_score_thresh0"}
# Kinds: other (smooth random, as the example), flat (every pixel 0.3), noise (standard normal).
EXTRA_IMAGES = {"maskrcnn_resnet50_fpn": ["other:250x380", "flat:100x100"],
                # Noise at the example size: the RPN keeps 138 proposals after NMS, where every example
                # run (the example image and its resized copies) kept its maximum, 1000.
                "maskrcnn_resnet50_fpn_score_thresh0": ["noise:240x320"]}


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
        model = D.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=NUM_CLASSES)
        # SSDlite's own initialisation (convolutions ~ N(0, 0.03)) shrinks the features to ~1e-13, so
        # every score is exactly 1/NUM_CLASSES: He initialisation keeps them O(1), and a smaller
        # classification head keeps the scores spread out rather than saturated at 1.
        for module in model.modules():
            if isinstance(module, torch.nn.Conv2d):
                torch.nn.init.kaiming_normal_(module.weight, mode="fan_in")
        for module in model.head.classification_head.modules():
            if isinstance(module, torch.nn.Conv2d):
                torch.nn.init.normal_(module.weight, std=0.03)
        return model
    if name == "ssd300_vgg16":
        # torchvision's own initialisation (VGG's Kaiming, the head's Xavier) keeps the scores spread.
        return D.ssd300_vgg16(weights=None, weights_backbone=None, num_classes=NUM_CLASSES)
    if name == "ssd300_vgg16_score_thresh":
        # Its random scores sit in [0.96, 1]: a threshold of 0.99 leaves some classes fewer candidates
        # than the top-k cap (400) and the number of detections varies from image to image (about 60).
        return D.ssd300_vgg16(weights=None, weights_backbone=None, num_classes=NUM_CLASSES, score_thresh=0.99)
    if name == "retinanet_resnet18_fpn":
        # Random sigmoid scores sit at the prior (0.01): take every candidate.
        return D.RetinaNet(resnet18_fpn(p6p7=True), NUM_CLASSES, score_thresh=0.0, **size)
    if name == "fcos_resnet18_fpn":
        return D.FCOS(resnet18_fpn(p6p7=True), NUM_CLASSES, score_thresh=0.0, **size)
    if name == "maskrcnn_resnet18_fpn":
        return D.MaskRCNN(resnet18_fpn(), NUM_CLASSES, **size)
    if name == "maskrcnn_resnet50_fpn":
        # As PyTorch's own ONNX test exports it (min_size=200, max_size=300, torchvision's ResNet-50 FPN
        # builder). With the transposed second run every product of H and W (the anchor count) is the
        # same as at the example size: the third example run tells them dynamic. A score threshold of
        # 0.5 keeps fewer than the 100 detections of the cap, a number that varies with the image, and
        # none on the flat image of EXTRA_IMAGES (its random scores are about 0.24).
        return D.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None, min_size=200, max_size=300,
                                       box_score_thresh=0.5)
    if name == "maskrcnn_resnet50_fpn_score_thresh0":
        # Issue 43: torchvision's builder at the example size with every detection kept (score
        # threshold 0: always the 100 of the cap). Every example run's RPN keeps its 1000 proposals,
        # a count that follows the data (NMS) and that the box head splits per image: the split's
        # parts must keep it dynamic, or the graph fails on an image with fewer (EXTRA_IMAGES).
        # NUM_CLASSES keeps the test fast: ONNX Runtime's NonMaxSuppression over 91 classes' 90000
        # candidates takes 4 s (PyTorch's: 0.3 s).
        return D.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=NUM_CLASSES,
                                       min_size=240, max_size=320, box_score_thresh=0.0)
    if name == "keypointrcnn_resnet18_fpn":
        return D.KeypointRCNN(resnet18_fpn(), NUM_CLASSES, num_keypoints=5, **size)
    raise SystemExit(f"unknown model {name}")


# torchvision's batched_nms wraps its body in a scripted `if boxes.numel() == 0` that tracing keeps
# as prim::If, converted since the plugin ABI 1.1 (blocks as subgraphs). True traces the non-empty
# branch only (what the tests did before prim::If converted).
TRACE_NONEMPTY_NMS_BRANCH_ONLY = False


def trace_nonempty_nms_branch_only():
    import torch
    import torchvision.ops.boxes as box_ops

    def coordinate_trick(boxes, scores, idxs, iou_threshold):
        # torchvision 0.14's _batched_nms_coordinate_trick without its empty-input branch.
        max_coordinate = boxes.max()
        offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
        return box_ops.nms(boxes + offsets[:, None], scores, iou_threshold)

    box_ops._batched_nms_coordinate_trick = coordinate_trick


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
    import make_fixtures as mf

    target = os.path.join(out_dir, name)
    extra = [os.path.join(SOURCE_DIR, "python", "torch2onnx", "__init__.py")] if name in SAVED_WITH_EXAMPLE else []
    mf.generate_once(target, __file__, lambda _digest: generate(target, name), fresh=True, extra_sources=extra)


def generate(target, name):
    """Writes fixture `name` into the (empty) directory target."""
    import torch
    import make_fixtures as mf

    torch.set_num_threads(1)
    torch.manual_seed(0)
    if name in ("nms_only", "deform_conv2d"):  # one-op models for the kernel-library and refusal tests
        import torchvision

        class Nms(torch.nn.Module):
            def forward(self, boxes, scores):
                return torchvision.ops.nms(boxes, scores, 0.5)

        class DeformConv(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torchvision.ops.DeformConv2d(4, 6, 3, padding=1)

            def forward(self, x, offset, mask):
                return self.conv(x, offset, mask)

        if name == "nms_only":
            example = (torch.rand(8, 4), torch.rand(8))
            traced = torch.jit.trace(Nms(), example)
        else:
            example = (torch.randn(1, 4, 8, 8), torch.randn(1, 18, 8, 8), torch.rand(1, 9, 8, 8))
            traced = torch.jit.trace(DeformConv().eval(), example)
        traced.save(os.path.join(target, "model.pt"))
        args = []
        for t in example:
            args += ["--input", mf.cli_spec(t)]
        with open(os.path.join(target, "export.json"), "w") as f:
            json.dump({"cli_args": args}, f)
        return
    if TRACE_NONEMPTY_NMS_BRANCH_ONLY:
        trace_nonempty_nms_branch_only()
    model = Detector(build(name)).eval()
    # An image with structure (smooth blobs), in [0, 1] as torchvision's transforms expect.
    example = torch.rand(3, EXAMPLE_HW[0] // 8, EXAMPLE_HW[1] // 8)
    example = torch.nn.functional.interpolate(example[None], size=EXAMPLE_HW, mode="bilinear")[0]
    other = torch.rand(3, OTHER_HW[0] // 8, OTHER_HW[1] // 8)
    other = torch.nn.functional.interpolate(other[None], size=OTHER_HW, mode="bilinear")[0]

    pt = os.path.join(target, "model.pt")
    if name in SAVED_WITH_EXAMPLE:
        import torch2onnx

        torch2onnx.save(model, (example,), pt, input_names=["image"],
                        dynamic_axes={"image": {1: "height", 2: "width"}})
    else:
        with torch.no_grad():
            traced = torch.jit.trace(model, (example,), check_trace=False)
        traced.save(pt)
    images = [example, other]
    for extra in EXTRA_IMAGES.get(name, []):
        kind, hw = extra.split(":")
        h, w = (int(v) for v in hw.split("x"))
        if kind == "flat":
            images.append(torch.ones(3, h, w) * 0.3)
        elif kind == "noise":
            images.append(torch.randn(3, h, w))
        else:
            image = torch.rand(3, h // 8, w // 8)
            images.append(torch.nn.functional.interpolate(image[None], size=(h, w), mode="bilinear")[0])
    for k, image in enumerate(images):
        d = os.path.join(target, f"size_{k}")
        os.makedirs(d)
        meta = mf.outputs_meta(pt, [image], 1e-4, d, "trace")
        meta["model_name"] = name
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    args = ["--input", mf.cli_spec(example), "--input-names", "image", "--dynamic-axes", "image=1:height,2:width"]
    if name in SAVED_WITH_EXAMPLE:
        args = []
    args += ["--dynamic-input", "float32[3,%d,%d]" % DYNAMIC_RUN_HW]
    with open(os.path.join(target, "export.json"), "w") as f:
        json.dump({"cli_args": args, "sizes": len(images)}, f, indent=1)


if __name__ == "__main__":
    main()
