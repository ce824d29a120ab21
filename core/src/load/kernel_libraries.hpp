// Libraries of TorchScript kernels, loaded into the process before a model loads, as
// torch.ops.load_library does: a shared library whose static initialisers register ops
// (TORCH_LIBRARY / TORCH_LIBRARY_IMPL) with libtorch's dispatcher. With the real kernels loaded,
// a model calling those ops loads without placeholder declarations and the example run computes
// real values (e.g. torchvision::nms, whose output size depends on the data).
//
// Two sources: `--load-library PATH` (explicit: any failure is an error) and the default libraries
// (kDefaultKernelLibraries in kernel_libraries.cpp: found automatically where installed; one that
// fails to load is a warning, the export goes on without it).
#ifndef TORCH2ONNX_CORE_KERNEL_LIBRARIES_HPP
#define TORCH2ONNX_CORE_KERNEL_LIBRARIES_HPP

#include <functional>
#include <string>
#include <vector>

namespace t2o::core {

// One default library: where it is found.
struct DefaultKernelLibrary {
  const char* name;     // for messages: "torchvision"
  // A glob (the first match is loaded). Absolute, or relative to the program's install prefix (the
  // parent of its bin/ directory, the same in the build tree), e.g. "lib/torch2onnx/kernels/libx.so".
  const char* pattern;
};

// default_kernel_libraries(), the ones present on this machine, is public: torch2onnx/core/exporter.hpp.

// Loads one library (RTLD_NOW | RTLD_LOCAL, like ctypes.CDLL). Loading the same file again does
// nothing. Throws ExportError with one line naming the path: no such file, not a shared library,
// the dynamic loader's reason (missing dependency, undefined symbol, wrong architecture), or a
// registration that clashes with ops already registered (e.g. a second copy of a library), found by
// loading it first in a forked child; `probe` false loads it directly (the default libraries after
// set_default_kernel_library_probe(false), exporter.hpp).
void load_kernel_library(const std::string& path, bool probe = true);

// The default libraries (when `defaults`), then each of `paths`, in order. A default library that
// fails to load is reported through `warn`; an explicit one throws.
void load_kernel_libraries(const std::vector<std::string>& paths, bool defaults,
                           const std::function<void(const std::string&)>& warn);

// The directory of the binary that holds the core: the lib/ of libtorch2onnx_cli.so (the program's
// command library) or of libtorch2onnx_core.so, else the directory of the executable that links it
// statically (library.cpp).
std::string core_binary_dir();

// Paths loaded so far by this process, in load order.
std::vector<std::string> loaded_kernel_libraries();

}  // namespace t2o::core

#endif
