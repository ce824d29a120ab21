// The torchvision pack: symbolics for the ops torchvision's C++ extension registers (namespace
// torchvision::), as torchvision's own torch.onnx registrations export them. The ops' kernels come
// from torchvision's library, loaded before the model (found automatically, or --load-library):
// the example run needs their real output shapes (nms returns as many indices as boxes it keeps).
#include <torch2onnx/plugin.hpp>
#include <torch2onnx/version.h>  // bundled packs carry the release version

T2O_PLUGIN("torchvision", T2O_VERSION_STRING)
