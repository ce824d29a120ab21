// Pins the binary layout of plugin.h. Any reorder, removal, insertion in the middle, or change of a
// member's type fails to COMPILE here. Appending a member at the end of a table changes only its
// sizeof: update the size assertion and bump T2O_ABI_MINOR (see plugin.h).
#include <torch2onnx/plugin.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// Layout on 64-bit targets whose size_t and pointers are 8 bytes (x86_64, aarch64; LP64 and LLP64
// alike, since plugin.h uses no `long`).
#if (defined(__x86_64__) || defined(_M_X64) || defined(__aarch64__) || defined(_M_ARM64))
#define T2O_CHECK_LAYOUT 1
#endif

#ifdef T2O_CHECK_LAYOUT
static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "64-bit layout expected");

// --- scalar types ---
static_assert(std::is_same<t2o_status, int32_t>::value, "t2o_status is int32_t");
static_assert(std::is_same<t2o_value, int32_t>::value, "t2o_value is int32_t");

// --- t2o_attr ---
static_assert(offsetof(t2o_attr, struct_size) == 0, "t2o_attr layout");
static_assert(offsetof(t2o_attr, name) == 8, "t2o_attr layout");
static_assert(offsetof(t2o_attr, type) == 16, "t2o_attr layout");
static_assert(offsetof(t2o_attr, count) == 24, "t2o_attr layout");
static_assert(offsetof(t2o_attr, ints) == 32, "t2o_attr layout");
static_assert(offsetof(t2o_attr, floats) == 40, "t2o_attr layout");
static_assert(offsetof(t2o_attr, strings) == 48, "t2o_attr layout");
static_assert(offsetof(t2o_attr, tensor) == 56, "t2o_attr layout");
static_assert(sizeof(t2o_attr) == 64, "t2o_attr size");

// --- t2o_node_spec ---
static_assert(offsetof(t2o_node_spec, struct_size) == 0, "t2o_node_spec layout");
static_assert(offsetof(t2o_node_spec, op_type) == 8, "t2o_node_spec layout");
static_assert(offsetof(t2o_node_spec, domain) == 16, "t2o_node_spec layout");
static_assert(offsetof(t2o_node_spec, inputs) == 24, "t2o_node_spec layout");
static_assert(offsetof(t2o_node_spec, num_inputs) == 32, "t2o_node_spec layout");
static_assert(offsetof(t2o_node_spec, num_outputs) == 36, "t2o_node_spec layout");
static_assert(offsetof(t2o_node_spec, attrs) == 40, "t2o_node_spec layout");
static_assert(offsetof(t2o_node_spec, num_attrs) == 48, "t2o_node_spec layout");
static_assert(sizeof(t2o_node_spec) == 56, "t2o_node_spec size");

// --- t2o_host_api: header, then one function pointer every 8 bytes, in this order ---
static_assert(offsetof(t2o_host_api, struct_size) == 0, "t2o_host_api layout");
static_assert(offsetof(t2o_host_api, abi_major) == 8, "t2o_host_api layout");
static_assert(offsetof(t2o_host_api, abi_minor) == 12, "t2o_host_api layout");
#define T2O_HOST_FN(member, slot) \
  static_assert(offsetof(t2o_host_api, member) == 16 + 8 * (slot), "t2o_host_api: " #member " moved")
T2O_HOST_FN(node_kind, 0);
T2O_HOST_FN(node_schema, 1);
T2O_HOST_FN(node_location, 2);
T2O_HOST_FN(num_inputs, 3);
T2O_HOST_FN(num_outputs, 4);
T2O_HOST_FN(input, 5);
T2O_HOST_FN(output, 6);
T2O_HOST_FN(value_kind, 7);
T2O_HOST_FN(value_dtype, 8);
T2O_HOST_FN(value_rank, 9);
T2O_HOST_FN(value_dim, 10);
T2O_HOST_FN(value_is_constant, 11);
T2O_HOST_FN(value_int, 12);
T2O_HOST_FN(value_float, 13);
T2O_HOST_FN(value_string, 14);
T2O_HOST_FN(value_list_size, 15);
T2O_HOST_FN(value_list_item, 16);
T2O_HOST_FN(value_tensor_data, 17);
T2O_HOST_FN(value_set_type, 18);
T2O_HOST_FN(make_tensor, 19);
T2O_HOST_FN(make_int, 20);
T2O_HOST_FN(make_float, 21);
T2O_HOST_FN(make_bool, 22);
T2O_HOST_FN(make_none, 23);
T2O_HOST_FN(make_list, 24);
T2O_HOST_FN(make_dynamic_scalar, 25);
T2O_HOST_FN(value_as_onnx, 26);
T2O_HOST_FN(emit_node, 27);
T2O_HOST_FN(set_output, 28);
T2O_HOST_FN(opset, 29);
T2O_HOST_FN(require_opset, 30);
T2O_HOST_FN(unique_name, 31);
T2O_HOST_FN(set_error, 32);
T2O_HOST_FN(log, 33);
// ABI 1.1: blocks and subgraphs
T2O_HOST_FN(node_num_blocks, 34);
T2O_HOST_FN(block_num_inputs, 35);
T2O_HOST_FN(block_num_outputs, 36);
T2O_HOST_FN(block_input, 37);
T2O_HOST_FN(block_output, 38);
T2O_HOST_FN(subgraph_begin, 39);
T2O_HOST_FN(subgraph_input, 40);
T2O_HOST_FN(convert_block, 41);
T2O_HOST_FN(subgraph_end, 42);
// ABI 1.1: node metadata
T2O_HOST_FN(node_add_metadata, 43);
// ABI 1.1: quantized tensors
T2O_HOST_FN(quantized_dtype, 44);
// ABI 1.2: the default dtype
T2O_HOST_FN(default_dtype, 45);
// ABI 1.3: optional values
T2O_HOST_FN(make_optional, 46);
// ABI 1.4: the PyTorch release followed
T2O_HOST_FN(torch_version, 47);
#undef T2O_HOST_FN
static_assert(sizeof(t2o_host_api) == 16 + 8 * 48, "t2o_host_api size (ABI 1.4: 48 functions)");
static_assert(std::is_same<decltype(t2o_host_api::torch_version), int32_t (*)(t2o_ctx*)>::value, "torch_version");
static_assert(std::is_same<decltype(t2o_host_api::make_optional),
                           t2o_status (*)(t2o_ctx*, t2o_value, int32_t, int32_t, t2o_value*)>::value,
              "make_optional");
static_assert(std::is_same<decltype(t2o_host_api::default_dtype), int32_t (*)(t2o_ctx*)>::value, "default_dtype");
static_assert(std::is_same<decltype(t2o_host_api::quantized_dtype), int32_t (*)(t2o_ctx*, int32_t, int32_t)>::value,
              "quantized_dtype");
static_assert(std::is_same<decltype(t2o_host_api::node_add_metadata),
                           t2o_status (*)(t2o_ctx*, t2o_value, const char*, const char*)>::value,
              "node_add_metadata");
static_assert(std::is_same<decltype(t2o_host_api::subgraph_input),
                           t2o_status (*)(t2o_ctx*, int32_t, int32_t, int32_t, const int64_t*, t2o_value*)>::value,
              "subgraph_input");
static_assert(std::is_same<decltype(t2o_host_api::convert_block),
                           t2o_status (*)(t2o_ctx*, int32_t, const t2o_value*, int32_t, t2o_value*)>::value,
              "convert_block");
static_assert(std::is_same<decltype(t2o_host_api::subgraph_end),
                           t2o_status (*)(t2o_ctx*, const t2o_value*, int32_t, t2o_value*)>::value,
              "subgraph_end");

// --- function pointer signatures (a changed parameter list breaks the ABI too) ---
static_assert(std::is_same<decltype(t2o_host_api::node_kind), const char* (*)(t2o_ctx*)>::value, "node_kind");
static_assert(std::is_same<decltype(t2o_host_api::input), t2o_value (*)(t2o_ctx*, int32_t)>::value, "input");
static_assert(std::is_same<decltype(t2o_host_api::value_dim), int64_t (*)(t2o_ctx*, t2o_value, int32_t)>::value,
              "value_dim");
static_assert(std::is_same<decltype(t2o_host_api::make_tensor),
                           t2o_status (*)(t2o_ctx*, int32_t, const int64_t*, int32_t, const void*, size_t,
                                          t2o_value*)>::value,
              "make_tensor");
static_assert(std::is_same<decltype(t2o_host_api::emit_node),
                           t2o_status (*)(t2o_ctx*, const t2o_node_spec*, t2o_value*)>::value,
              "emit_node");
static_assert(std::is_same<decltype(t2o_host_api::set_output), t2o_status (*)(t2o_ctx*, int32_t, t2o_value)>::value,
              "set_output");
static_assert(std::is_same<decltype(t2o_host_api::opset), int64_t (*)(t2o_ctx*, const char*)>::value, "opset");
static_assert(std::is_same<decltype(t2o_host_api::set_error), void (*)(t2o_ctx*, const char*)>::value, "set_error");
static_assert(std::is_same<decltype(t2o_host_api::log), void (*)(t2o_ctx*, int32_t, const char*)>::value, "log");
static_assert(std::is_same<t2o_symbolic_fn, t2o_status (*)(const t2o_host_api*, t2o_ctx*, void*)>::value,
              "t2o_symbolic_fn");
static_assert(std::is_same<t2o_plugin_entry_fn, const t2o_plugin_descriptor* (*)(void)>::value,
              "t2o_plugin_entry_fn");

// --- t2o_symbolic_desc ---
static_assert(offsetof(t2o_symbolic_desc, struct_size) == 0, "t2o_symbolic_desc layout");
static_assert(offsetof(t2o_symbolic_desc, op) == 8, "t2o_symbolic_desc layout");
static_assert(offsetof(t2o_symbolic_desc, domain) == 16, "t2o_symbolic_desc layout");
static_assert(offsetof(t2o_symbolic_desc, since_opset) == 24, "t2o_symbolic_desc layout");
static_assert(offsetof(t2o_symbolic_desc, fn) == 32, "t2o_symbolic_desc layout");
static_assert(offsetof(t2o_symbolic_desc, user_data) == 40, "t2o_symbolic_desc layout");
static_assert(offsetof(t2o_symbolic_desc, flags) == 48, "t2o_symbolic_desc layout");
static_assert(sizeof(t2o_symbolic_desc) == 56, "t2o_symbolic_desc size");

// --- t2o_registrar_api ---
static_assert(offsetof(t2o_registrar_api, struct_size) == 0, "t2o_registrar_api layout");
static_assert(offsetof(t2o_registrar_api, abi_major) == 8, "t2o_registrar_api layout");
static_assert(offsetof(t2o_registrar_api, abi_minor) == 12, "t2o_registrar_api layout");
static_assert(offsetof(t2o_registrar_api, register_symbolic) == 16, "t2o_registrar_api layout");
static_assert(offsetof(t2o_registrar_api, declare_schema) == 24, "t2o_registrar_api layout");
static_assert(offsetof(t2o_registrar_api, set_error) == 32, "t2o_registrar_api layout");
static_assert(sizeof(t2o_registrar_api) == 40, "t2o_registrar_api size");
static_assert(std::is_same<decltype(t2o_registrar_api::register_symbolic),
                           t2o_status (*)(t2o_registrar*, const t2o_symbolic_desc*)>::value,
              "register_symbolic");
static_assert(std::is_same<decltype(t2o_registrar_api::declare_schema), t2o_status (*)(t2o_registrar*, const char*)>::value,
              "declare_schema");
static_assert(std::is_same<decltype(t2o_registrar_api::set_error), void (*)(t2o_registrar*, const char*)>::value,
              "registrar set_error");

// --- t2o_plugin_descriptor ---
static_assert(offsetof(t2o_plugin_descriptor, struct_size) == 0, "t2o_plugin_descriptor layout");
static_assert(offsetof(t2o_plugin_descriptor, abi_major) == 8, "t2o_plugin_descriptor layout");
static_assert(offsetof(t2o_plugin_descriptor, abi_minor) == 12, "t2o_plugin_descriptor layout");
static_assert(offsetof(t2o_plugin_descriptor, name) == 16, "t2o_plugin_descriptor layout");
static_assert(offsetof(t2o_plugin_descriptor, version) == 24, "t2o_plugin_descriptor layout");
static_assert(offsetof(t2o_plugin_descriptor, register_symbolics) == 32, "t2o_plugin_descriptor layout");
static_assert(sizeof(t2o_plugin_descriptor) == 40, "t2o_plugin_descriptor size");
static_assert(std::is_same<decltype(t2o_plugin_descriptor::register_symbolics),
                           t2o_status (*)(const t2o_registrar_api*, t2o_registrar*)>::value,
              "register_symbolics");
#endif  // T2O_CHECK_LAYOUT

// --- constants are part of the ABI too ---
static_assert(T2O_OK == 0 && T2O_ERROR == 1 && T2O_UNSUPPORTED == 2, "status codes");
static_assert(T2O_NO_VALUE == -1, "T2O_NO_VALUE");
static_assert(T2O_SYMBOLIC_OVERRIDE == 1u, "T2O_SYMBOLIC_OVERRIDE");
static_assert(T2O_KIND_NONE == 0 && T2O_KIND_TENSOR == 1 && T2O_KIND_INT == 2 && T2O_KIND_FLOAT == 3 &&
                  T2O_KIND_BOOL == 4 && T2O_KIND_STRING == 5 && T2O_KIND_LIST == 6 && T2O_KIND_DEVICE == 7 &&
                  T2O_KIND_OTHER == 8,
              "t2o_kind values");
// ONNX TensorProto.DataType numbering.
static_assert(T2O_DTYPE_UNDEFINED == 0 && T2O_DTYPE_FLOAT == 1 && T2O_DTYPE_UINT8 == 2 && T2O_DTYPE_INT8 == 3 &&
                  T2O_DTYPE_UINT16 == 4 && T2O_DTYPE_INT16 == 5 && T2O_DTYPE_INT32 == 6 && T2O_DTYPE_INT64 == 7 &&
                  T2O_DTYPE_STRING == 8 && T2O_DTYPE_BOOL == 9 && T2O_DTYPE_FLOAT16 == 10 &&
                  T2O_DTYPE_DOUBLE == 11 && T2O_DTYPE_UINT32 == 12 && T2O_DTYPE_UINT64 == 13 &&
                  T2O_DTYPE_COMPLEX64 == 14 && T2O_DTYPE_COMPLEX128 == 15 && T2O_DTYPE_BFLOAT16 == 16,
              "t2o_dtype values follow ONNX");
static_assert(T2O_ATTR_INT == 1 && T2O_ATTR_FLOAT == 2 && T2O_ATTR_STRING == 3 && T2O_ATTR_INTS == 4 &&
                  T2O_ATTR_FLOATS == 5 && T2O_ATTR_STRINGS == 6 && T2O_ATTR_TENSOR == 7 && T2O_ATTR_GRAPH == 8,
              "t2o_attr_type values");
static_assert(T2O_KIND_OTHER == 8 && T2O_KIND_SEQUENCE == 9 && T2O_KIND_GRAPH == 10, "t2o_kind values (1.1 appended)");
static_assert(T2O_KIND_OPTIONAL == 11, "t2o_kind values (1.3 appended)");
static_assert(T2O_SYMBOLIC_COMPLEX_PAIRS == 2u && T2O_SYMBOLIC_OPTIONALS == 4u, "symbolic flags (1.3 appended OPTIONALS)");

#define T2O_STR_INNER(x) #x
#define T2O_STR(x) T2O_STR_INNER(x)

TEST(AbiLayout, VersionIsOnePointFour) {
  // A change here is deliberate: a new minor appends members, a new major breaks every pack.
  EXPECT_EQ(T2O_ABI_MAJOR, 1);
  EXPECT_EQ(T2O_ABI_MINOR, 4);
}

TEST(AbiLayout, EntrySymbolName) {
  EXPECT_STREQ(T2O_ENTRY_SYMBOL_NAME, "t2o_plugin_entry");
  EXPECT_STREQ(T2O_STR(T2O_ENTRY_SYMBOL), T2O_ENTRY_SYMBOL_NAME);
}

TEST(AbiLayout, StructSizeComesFirst) {
  EXPECT_EQ(offsetof(t2o_attr, struct_size), 0u);
  EXPECT_EQ(offsetof(t2o_node_spec, struct_size), 0u);
  EXPECT_EQ(offsetof(t2o_host_api, struct_size), 0u);
  EXPECT_EQ(offsetof(t2o_symbolic_desc, struct_size), 0u);
  EXPECT_EQ(offsetof(t2o_registrar_api, struct_size), 0u);
  EXPECT_EQ(offsetof(t2o_plugin_descriptor, struct_size), 0u);
}

TEST(AbiLayout, CheckedOnThisTarget) {
#ifndef T2O_CHECK_LAYOUT
  GTEST_SKIP() << "offsets are pinned for 64-bit targets only";
#else
  SUCCEED();
#endif
}
