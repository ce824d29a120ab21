// The opset 18 pack: only symbolics whose ONNX form changes at opset 18 (registered as
// T2O_SYMBOLIC("aten::op", 18)); everything else comes from the packs of opsets 9..17.
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("opset18", T2O_VERSION_STRING)
