# The versions of libtorch and ONNX found, and what follows from them: the one place of the build
# where they differ (the sources' counterparts: core/src/common/torch_compat.hpp and onnx_compat.hpp,
# compat/src/compat_common.hpp's T2O_TORCH_LACKS). Two lines are supported and tested:
#   Debian 12:  libtorch 1.13.1, ONNX 1.12, C++17
#   Debian sid: libtorch 2.14.1, ONNX 1.20, C++20
# Included by the top-level CMakeLists.txt after find_package(Torch) and find_package(ONNX).
#
# Sets:
#   T2O_CXX_STANDARD   the language level of every target that includes libtorch's headers (the core,
#                      compat/, ops/, tools/, the tests) and that find_package(Torch2Onnx) asks of its
#                      consumers: 20 when libtorch's headers require it (2.14's do), else 17 (1.13).
#                      A cache variable, so that a libtorch that merely allows C++20 can be built so.
#   T2O_TORCH_VERSION  libtorch's version (Torch_VERSION), T2O_ONNX_VERSION ONNX's (ONNX_VERSION).

set(T2O_TORCH_VERSION "${Torch_VERSION}")
set(T2O_ONNX_VERSION "${ONNX_VERSION}")

# Recent libtorch refuses anything below C++20: ATen/ATen.h says "#error C++20 or later compatible
# compiler is required to use ATen" (2.14 does; 1.13 is C++17 code). Read from the header itself.
set(_t2o_cxx_required 17)
foreach(_t2o_dir ${TORCH_INCLUDE_DIRS})
  if(EXISTS "${_t2o_dir}/ATen/ATen.h")
    file(STRINGS "${_t2o_dir}/ATen/ATen.h" _t2o_cxx20 REGEX "C\\+\\+20 or later")
    if(_t2o_cxx20)
      set(_t2o_cxx_required 20)
    endif()
    break()
  endif()
endforeach()
set(T2O_CXX_STANDARD ${_t2o_cxx_required} CACHE STRING
    "C++ standard of the targets that include libtorch (default: the lowest libtorch ${T2O_TORCH_VERSION} accepts)")
if(T2O_CXX_STANDARD LESS _t2o_cxx_required)
  message(FATAL_ERROR "libtorch ${T2O_TORCH_VERSION} requires C++${_t2o_cxx_required}: T2O_CXX_STANDARD is ${T2O_CXX_STANDARD}")
endif()
unset(_t2o_cxx_required)
unset(_t2o_cxx20)
unset(_t2o_dir)
set(CMAKE_CXX_STANDARD ${T2O_CXX_STANDARD})
set(CMAKE_CXX_STANDARD_REQUIRED ON)

# ONNX's imported targets: ONNX 1.12 exports them as onnx and onnx_proto, ONNX 1.20 as ONNX::onnx and
# ONNX::onnx_proto. The build links the plain names, aliases of the namespaced ones where only those
# exist (without them, `onnx` would be a bare -lonnx: no include directory, no definitions). Either
# way they carry ONNX_ML=1 and ONNX_NAMESPACE=onnx, which ONNX's headers need (onnx/onnx_pb.h includes
# onnx-ml.pb.h, the only generated header Debian ships, only with ONNX_ML); added where missing.
foreach(_t2o_onnx_target onnx onnx_proto)
  if(NOT TARGET ${_t2o_onnx_target} AND TARGET ONNX::${_t2o_onnx_target})
    add_library(${_t2o_onnx_target} ALIAS ONNX::${_t2o_onnx_target})
  endif()
  if(NOT TARGET ${_t2o_onnx_target})
    message(FATAL_ERROR "ONNX ${ONNX_VERSION} exports no target ${_t2o_onnx_target} (nor ONNX::${_t2o_onnx_target})")
  endif()
  get_target_property(_t2o_real ${_t2o_onnx_target} ALIASED_TARGET)
  if(NOT _t2o_real)
    set(_t2o_real ${_t2o_onnx_target})
  endif()
  get_target_property(_t2o_defs ${_t2o_real} INTERFACE_COMPILE_DEFINITIONS)
  if(NOT _t2o_defs)
    set(_t2o_defs "")
  endif()
  if(NOT "${_t2o_defs}" MATCHES "ONNX_ML")
    set_property(TARGET ${_t2o_real} APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS ONNX_ML=1)
  endif()
  if(NOT "${_t2o_defs}" MATCHES "ONNX_NAMESPACE")
    set_property(TARGET ${_t2o_real} APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS ONNX_NAMESPACE=onnx)
  endif()
endforeach()
unset(_t2o_onnx_target)
unset(_t2o_real)
unset(_t2o_defs)

message(STATUS "torch2onnx: libtorch ${T2O_TORCH_VERSION}, ONNX ${T2O_ONNX_VERSION}, protobuf ${Protobuf_VERSION}, "
               "C++${T2O_CXX_STANDARD}")
