// The one place where the core's code differs between the libtorch releases it builds against:
// libtorch 1.13.1 (Debian 12, C++17) and libtorch 2.14.1 (Debian sid, C++20). The language level
// and the build-side differences: cmake/DependencyVersions.cmake.
//
//  - c10::Allocator: libtorch 2.3 made allocate() non-const and added the pure virtual copy_data();
//    `Allocator` below is a c10::Allocator whose subclasses implement allocate_bytes() (const) and
//    whatever else they override, in one form for both.
#ifndef TORCH2ONNX_CORE_COMMON_TORCH_COMPAT_HPP
#define TORCH2ONNX_CORE_COMMON_TORCH_COMPAT_HPP

#include <c10/core/Allocator.h>
#include <torch/version.h>

#include <cstddef>

// Whether the libtorch built against is release MAJOR.MINOR or later.
#define T2O_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace t2o::core::torch_compat {

// A CPU allocator for c10::SetCPUAllocator, written once for every libtorch: a subclass implements
// allocate_bytes(n) and, if it wants, raw_deleter().
class Allocator : public c10::Allocator {
 public:
#if T2O_TORCH_AT_LEAST(2, 3)
  c10::DataPtr allocate(size_t n) override { return allocate_bytes(n); }
  // CPU bytes: a plain copy, as libtorch's own CPU allocator.
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#else
  c10::DataPtr allocate(size_t n) const override { return allocate_bytes(n); }
#endif

 protected:
  virtual c10::DataPtr allocate_bytes(size_t n) const = 0;
};

}  // namespace t2o::core::torch_compat

#endif
