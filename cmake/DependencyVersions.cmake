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
#                      consumers: 20 when libtorch's headers require it (2.10 and later), else 17.
#                      A cache variable: -DT2O_CXX_STANDARD=20 builds a 1.13 tree as C++20 too.
#   T2O_TORCH_VERSION  libtorch's version (Torch_VERSION), T2O_ONNX_VERSION ONNX's (ONNX_VERSION).

set(T2O_TORCH_VERSION "${Torch_VERSION}")
set(T2O_ONNX_VERSION "${ONNX_VERSION}")

# libtorch 2.10 and later refuse anything below C++20 (c10/macros/Macros.h: "C++20 or later compatible
# compiler is required to use ATen"); earlier ones are C++17 code.
if(T2O_TORCH_VERSION VERSION_GREATER_EQUAL 2.10)
  set(_t2o_cxx_default 20)
else()
  set(_t2o_cxx_default 17)
endif()
set(T2O_CXX_STANDARD ${_t2o_cxx_default} CACHE STRING
    "C++ standard of the targets that include libtorch (17 or 20; default: what libtorch ${T2O_TORCH_VERSION} needs)")
unset(_t2o_cxx_default)
if(T2O_TORCH_VERSION VERSION_GREATER_EQUAL 2.10 AND T2O_CXX_STANDARD LESS 20)
  message(FATAL_ERROR "libtorch ${T2O_TORCH_VERSION} requires C++20: T2O_CXX_STANDARD is ${T2O_CXX_STANDARD}")
endif()
set(CMAKE_CXX_STANDARD ${T2O_CXX_STANDARD})
set(CMAKE_CXX_STANDARD_REQUIRED ON)

# ONNX's headers need ONNX_ML=1 and ONNX_NAMESPACE=onnx (onnx/onnx_pb.h includes onnx-ml.pb.h, the
# only generated header Debian ships, only with ONNX_ML). ONNX 1.12's exported targets carry them;
# Debian's ONNX 1.20 does not: they are added to the imported targets that lack them.
foreach(_t2o_onnx_target onnx onnx_proto)
  if(TARGET ${_t2o_onnx_target})
    get_target_property(_t2o_defs ${_t2o_onnx_target} INTERFACE_COMPILE_DEFINITIONS)
    if(NOT _t2o_defs)
      set(_t2o_defs "")
    endif()
    if(NOT "${_t2o_defs}" MATCHES "ONNX_ML")
      set_property(TARGET ${_t2o_onnx_target} APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS ONNX_ML=1)
    endif()
    if(NOT "${_t2o_defs}" MATCHES "ONNX_NAMESPACE")
      set_property(TARGET ${_t2o_onnx_target} APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS ONNX_NAMESPACE=onnx)
    endif()
  endif()
endforeach()
unset(_t2o_onnx_target)
unset(_t2o_defs)

message(STATUS "torch2onnx: libtorch ${T2O_TORCH_VERSION}, ONNX ${T2O_ONNX_VERSION}, protobuf ${Protobuf_VERSION}, "
               "C++${T2O_CXX_STANDARD}")
