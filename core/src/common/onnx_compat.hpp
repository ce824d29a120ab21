// The one place where the core's code differs between the ONNX libraries it builds against:
// ONNX 1.12 (Debian 12) and ONNX 1.20 (Debian sid). Each difference is told apart by what the
// library has (detected at compile time), not by a version number, so a release in between takes
// whichever form it has. (The build-side differences, ONNX_ML and ONNX_NAMESPACE: cmake/DependencyVersions.cmake.)
//
//  - OpSchema's type lists: 1.12 names the lists that include bfloat16 `*_with_bfloat`; later
//    releases name them after the IR version that added the types (`*_ir4`) and dropped the old names.
//  - NodeProto's metadata_props (field 9, ONNX 1.16): 1.12 lacks it, and an entry is written as that
//    field among the node's unknown fields (through reflection); 1.16+ has the field itself (and
//    Debian's 1.20 builds its protos as lite messages, without reflection).
#ifndef TORCH2ONNX_CORE_COMMON_ONNX_COMPAT_HPP
#define TORCH2ONNX_CORE_COMMON_ONNX_COMPAT_HPP

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace t2o::core::onnx_compat {

namespace detail {

template <class S, class = void>
struct has_ir4_lists : std::false_type {};
template <class S>
struct has_ir4_lists<S, std::void_t<decltype(S::all_tensor_types_ir4())>> : std::true_type {};

template <class N, class = void>
struct has_metadata_props : std::false_type {};
template <class N>
struct has_metadata_props<N, std::void_t<decltype(std::declval<N&>().add_metadata_props())>> : std::true_type {};

}  // namespace detail

// Every tensor element type of IR 4 (1.12's all_tensor_types_with_bfloat).
template <class S = onnx::OpSchema>
std::vector<std::string> all_tensor_types_with_bfloat() {
  if constexpr (detail::has_ir4_lists<S>::value) return S::all_tensor_types_ir4();
  else return S::all_tensor_types_with_bfloat();
}

// The numeric element types of IR 4 (1.12's all_numeric_types_with_bfloat).
template <class S = onnx::OpSchema>
std::vector<std::string> all_numeric_types_with_bfloat() {
  if constexpr (detail::has_ir4_lists<S>::value) return S::all_numeric_types_ir4();
  else return S::all_numeric_types_with_bfloat();
}

// The element types of the math reductions, bfloat16 included (1.12's
// numeric_types_for_math_reduction_with_bfloat).
template <class S = onnx::OpSchema>
std::vector<std::string> numeric_types_for_math_reduction_with_bfloat() {
  if constexpr (detail::has_ir4_lists<S>::value) return S::numeric_types_for_math_reduction_ir4();
  else return S::numeric_types_for_math_reduction_with_bfloat();
}

// Appends the entry key → value to the node's metadata_props (ONNX 1.16's field 9), as a newer ONNX
// writes it; readers that know the field (ONNX Runtime, onnx >= 1.16) see it either way.
template <class N = onnx::NodeProto>
void add_node_metadata_prop(N& node, const std::string& key, const std::string& value) {
  if constexpr (detail::has_metadata_props<N>::value) {
    auto* entry = node.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  } else {
    constexpr int kNodeMetadataPropsField = 9;
    onnx::StringStringEntryProto entry;
    entry.set_key(key);
    entry.set_value(value);
    node.GetReflection()->MutableUnknownFields(&node)->AddLengthDelimited(kNodeMetadataPropsField,
                                                                         entry.SerializeAsString());
  }
}

}  // namespace t2o::core::onnx_compat

#endif
