# libtorch2onnx_core.so and the Torch2Onnx CMake package: the core as a library for C++ programs that
# already link libtorch (API: include/torch2onnx/torch2onnx.hpp). The torch2onnx program links the
# static t2o_core; this shared library is made of the same objects (whole archives of t2o_core and
# t2o_registry), so nothing is compiled twice.
add_library(torch2onnx_core SHARED src/shared_library.cpp)
add_library(Torch2Onnx::core ALIAS torch2onnx_core)
# Whole archives first on the link line (a later plain t2o_core/t2o_registry then adds nothing): every
# public function is in the library, referenced by the core or not.
target_link_options(torch2onnx_core PRIVATE
  "LINKER:--whole-archive" "$<TARGET_FILE:t2o_core>" "$<TARGET_FILE:t2o_registry>" "LINKER:--no-whole-archive")
# PRIVATE: a program linking the library must not get a second, static copy of the core (its op
# registrations would clash); it gets the headers and libtorch.
target_link_libraries(torch2onnx_core PRIVATE t2o_core PUBLIC Torch2Onnx::sdk ${TORCH_LIBRARIES})
target_include_directories(torch2onnx_core PUBLIC
  ${CMAKE_CURRENT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/registry/include ${T2O_VERSION_INCLUDE_DIR})
add_dependencies(torch2onnx_core t2o_core t2o_registry)
# 0.x: the C++ API may change with every minor release.
set_target_properties(torch2onnx_core PROPERTIES
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
# lib/ (not GNUInstallDirs' libdir): the library finds the bundled packs at ../lib/torch2onnx/plugins
# relative to itself, as the program does from bin/.
install(TARGETS torch2onnx_core LIBRARY DESTINATION lib COMPONENT runtime NAMELINK_COMPONENT dev)
install(DIRECTORY include/torch2onnx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/registry/include/torch2onnx/registry.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/torch2onnx COMPONENT dev)

include(CMakePackageConfigHelpers)
set(T2O_CORE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Torch2Onnx)
set(T2O_CORE_LIBRARY lib/libtorch2onnx_core.so.${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
set(T2O_CORE_SONAME libtorch2onnx_core.so.${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
if(NOT DEFINED T2O_PLUGIN_SUBDIR)
  set(T2O_PLUGIN_SUBDIR lib/torch2onnx/plugins)
endif()
configure_package_config_file(cmake/Torch2OnnxConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/Torch2OnnxConfig.cmake
  INSTALL_DESTINATION ${T2O_CORE_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR T2O_PLUGIN_SUBDIR T2O_CORE_LIBRARY)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/Torch2OnnxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/Torch2OnnxConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/Torch2OnnxConfigVersion.cmake
  DESTINATION ${T2O_CORE_CMAKE_DIR} COMPONENT dev)
