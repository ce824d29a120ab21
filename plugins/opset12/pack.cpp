// The opset 12 pack: only symbolics whose ONNX form changes at opset 12 (registered with
// T2O_SYMBOLIC("aten::op", 12)); everything else comes from the earlier packs.
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset12", T2O_VERSION_STRING)
