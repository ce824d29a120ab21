# Debian packages, built from an existing build with `cpack -G DEB` (in the build directory, or
# `cpack -G DEB --config <build>/CPackConfig.cmake -B <dir>`): nothing is recompiled.
#
#   torch2onnx      the program, the bundled and optional packs, libtorch2onnx_ops.so (+ its Python
#                   module), libtorch2onnx_compat.so, libtorch2onnx_core.so: install() rules of the
#                   "runtime" component
#   torch2onnx-dev  the SDK and core headers, the Torch2OnnxSDK and Torch2Onnx CMake packages and the
#                   libtorch2onnx_core.so link: the "dev" component
#
# Depends: the Debian packages owning the libraries the binaries link (libtorch, ONNX, protobuf, Boost,
# jemalloc), found with `dpkg -S` on those files when this build is configured, so they name exactly
# what this build was linked against (Debian 12: libtorch1.13, libonnx1, libprotobuf32).
set(CPACK_PACKAGE_NAME torch2onnx)
set(CPACK_PACKAGE_VENDOR "torch2onnx")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "TorchScript to ONNX exporter in C++, with op packs loaded as plugins")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # torch2onnx_0.1.0_amd64.deb, torch2onnx-dev_0.1.0_amd64.deb
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # xz takes minutes on the packs; gzip seconds
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "torch2onnx maintainers <torch2onnx@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME torch2onnx)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME torch2onnx-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "TorchScript to ONNX exporter: the torch2onnx program, op packs and libraries")
set(CPACK_COMPONENT_DEV_DESCRIPTION "torch2onnx development files: the op pack SDK and the core library's headers and CMake packages")

# The package owning `file` (symlinks resolved), or "" when dpkg does not know it.
function(t2o_owning_package file out)
  set(${out} "" PARENT_SCOPE)
  if(NOT file OR NOT EXISTS "${file}")
    return()
  endif()
  get_filename_component(real "${file}" REALPATH)
  execute_process(COMMAND dpkg -S "${real}" OUTPUT_VARIABLE owner ERROR_QUIET RESULT_VARIABLE failed)
  if(failed OR NOT owner)
    # usrmerge: dpkg may know the file under /lib rather than /usr/lib.
    string(REGEX REPLACE "^/usr/" "/" alt "${real}")
    execute_process(COMMAND dpkg -S "${alt}" OUTPUT_VARIABLE owner ERROR_QUIET RESULT_VARIABLE failed)
  endif()
  if(failed OR NOT owner)
    return()
  endif()
  string(REGEX REPLACE "[:,].*" "" owner "${owner}")  # "libtorch1.13:amd64: /usr/lib/..." -> libtorch1.13
  string(STRIP "${owner}" owner)
  set(${out} "${owner}" PARENT_SCOPE)
endfunction()

# The file an imported target (or a plain path) stands for.
function(t2o_library_file item out)
  set(file "")
  if(TARGET ${item})
    foreach(prop IMPORTED_LOCATION IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NONE IMPORTED_LOCATION_NOCONFIG)
      get_target_property(loc ${item} ${prop})
      if(loc)
        set(file "${loc}")
        break()
      endif()
    endforeach()
  elseif(IS_ABSOLUTE "${item}")
    set(file "${item}")
  endif()
  set(${out} "${file}" PARENT_SCOPE)
endfunction()

find_package(Boost 1.74 QUIET COMPONENTS filesystem)  # its imported target is scoped to registry/
set(_t2o_runtime_libs ${TORCH_LIBRARIES} torch_cpu c10 onnx onnx_proto protobuf::libprotobuf Boost::filesystem)
if(T2O_JEMALLOC)
  list(APPEND _t2o_runtime_libs ${T2O_JEMALLOC})
endif()
set(_t2o_runtime_depends libc6 libstdc++6 libgcc-s1)
foreach(item ${_t2o_runtime_libs})
  t2o_library_file(${item} file)
  t2o_owning_package("${file}" pkg)
  # The -dev package owns the unversioned .so link when a target points at it: take the runtime one.
  if(pkg MATCHES "-dev$")
    get_filename_component(real "${file}" REALPATH)
    t2o_owning_package("${real}" pkg)
  endif()
  if(pkg AND NOT pkg MATCHES "-dev$")
    list(APPEND _t2o_runtime_depends ${pkg})
  endif()
endforeach()
list(REMOVE_DUPLICATES _t2o_runtime_depends)
string(REPLACE ";" ", " _t2o_runtime_depends "${_t2o_runtime_depends}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "${_t2o_runtime_depends}")
# torchvision's kernels are loaded when present (python3-torchvision): a suggestion, not a need.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "python3-torchvision")

# The dev package: the runtime package of the same version, and libtorch's CMake package
# (find_package(Torch) in Torch2OnnxConfig.cmake).
set(_t2o_dev_depends "torch2onnx (= ${PROJECT_VERSION})")
t2o_owning_package("${Torch_DIR}/TorchConfig.cmake" _t2o_torch_dev)
if(_t2o_torch_dev)
  string(APPEND _t2o_dev_depends ", ${_t2o_torch_dev}")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_t2o_dev_depends}")

include(CPack)
message(STATUS "torch2onnx .deb Depends: ${CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS}; -dev: ${CPACK_DEBIAN_DEV_PACKAGE_DEPENDS}")
