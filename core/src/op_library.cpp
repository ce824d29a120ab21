// See torch2onnx/core/op_library.hpp.
#include "torch2onnx/core/op_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace t2o::core {

std::string load_bundled_op_library(const std::string& exe_dir) {
  static std::once_flag once;
  static std::string result;
  std::call_once(once, [&] {
    if (std::getenv("TORCH2ONNX_NO_OPS_LIBRARY")) return;
    const std::filesystem::path path = std::filesystem::path(exe_dir) / ".." / "lib" / "libtorch2onnx_ops.so";
    if (!std::filesystem::exists(path)) return;
    // Static initializers register the ops with libtorch's dispatcher; never unloaded.
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      const char* why = dlerror();
      result = path.lexically_normal().string() + ": " + (why ? why : "cannot load");
    }
  });
  return result;
}

}  // namespace t2o::core
