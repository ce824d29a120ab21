# t2o_add_plugin(<target> SOURCES <files>... [OUTPUT_DIRECTORY <dir>])
#
# Declares an op pack: a shared module built against the SDK only, with hidden visibility so that it
# exports the entry symbol alone, placed where the host looks for packs.
#
# In the torch2onnx tree this file is included by sdk/CMakeLists.txt; out of tree it comes with
# find_package(Torch2OnnxSDK) (the installed Torch2OnnxSDKConfig.cmake includes it). The version
# script plugin.map lives beside this file in both cases. The module is named <target>.so (no "lib"
# prefix); without OUTPUT_DIRECTORY it goes to T2O_PLUGIN_OUTPUT_DIR if set, else CMake's default.
if(CMAKE_VERSION VERSION_LESS 3.17)
  message(FATAL_ERROR "t2o_add_plugin needs CMake 3.17 or later (CMAKE_CURRENT_FUNCTION_LIST_DIR)")
endif()

function(t2o_add_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Torch2Onnx::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_STANDARD 17
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(UNIX AND NOT APPLE)
    # Export the entry point only, and keep the C++ runtime's symbols out of the dynamic table.
    target_link_options(${target} PRIVATE
      "-Wl,--version-script=${CMAKE_CURRENT_FUNCTION_LIST_DIR}/plugin.map" "-Wl,--exclude-libs,ALL" "-Wl,--no-undefined")
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED T2O_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${T2O_PLUGIN_OUTPUT_DIR})
  endif()
endfunction()
