// libtorch2onnx_core.so's own source: everything else comes from the whole t2o_core and t2o_registry
// archives (core/library.cmake). A C symbol for programs that dlopen the library and want its version.
#include <torch2onnx/version.h>

extern "C" __attribute__((visibility("default"))) const char* torch2onnx_core_version(void) {
  return T2O_VERSION_STRING;
}
