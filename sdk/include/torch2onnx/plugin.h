/*
 * torch2onnx plugin ABI — the only door between the host and an op pack.
 *
 * Pure C99. Rules (the contract; see ARCHITECTURE.md):
 *  - A pack exports exactly one symbol, T2O_ENTRY_SYMBOL, returning a static descriptor.
 *  - Versions: the host accepts a pack when abi_major == T2O_ABI_MAJOR, whatever its abi_minor.
 *    A pack built for an older minor uses only the members that minor had. A pack built for a
 *    newer minor than the host's checks the host's struct_size (T2O_HAS_MEMBER) before using a
 *    member added after the host's minor. Tested: tests/abi_plugins/minor_newer.c.
 *  - Every struct crossing the boundary starts with its size; function tables are append-only
 *    (new members go at the end and bump T2O_ABI_MINOR; removing or reordering bumps the major).
 *  - Arrays of structs (t2o_attr in t2o_node_spec.attrs) are read with the stride their first
 *    element's struct_size gives, never the reader's own sizeof, so such a struct may grow in a
 *    later minor. Tested: tests/abi_plugins/wide_attr.c (AbiRules test in tests/e2e/test_plugins.cpp).
 *  - Functions return a t2o_status; an error's message is handed to the host through
 *    host->set_error / reg->set_error, which copy it. No exception ever crosses the boundary.
 *  - Nothing allocated on one side is freed on the other. Strings returned by the host are
 *    borrowed and live until the symbolic call returns. Bytes given to the host are copied.
 *  - Packs are loaded once, serially, and never unloaded while the process lives.
 */
#ifndef TORCH2ONNX_PLUGIN_H
#define TORCH2ONNX_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define T2O_ABI_MAJOR 1
#define T2O_ABI_MINOR 4

/* The one symbol a pack exports. */
#define T2O_ENTRY_SYMBOL t2o_plugin_entry
#define T2O_ENTRY_SYMBOL_NAME "t2o_plugin_entry"

#if defined(_WIN32)
#define T2O_EXPORT __declspec(dllexport)
#else
#define T2O_EXPORT __attribute__((visibility("default")))
#endif

typedef int32_t t2o_status;
#define T2O_OK 0
#define T2O_ERROR 1       /* the symbolic failed; the message says why */
#define T2O_UNSUPPORTED 2 /* the symbolic cannot convert these particular arguments */

/* Handle of a value in the host's value table: a TorchScript value (a node input or output)
 * or an ONNX value emitted by a symbolic. T2O_NO_VALUE marks an omitted optional input. */
typedef int32_t t2o_value;
#define T2O_NO_VALUE (-1)

/* What a value is. */
typedef enum t2o_kind {
  T2O_KIND_NONE = 0,   /* TorchScript None */
  T2O_KIND_TENSOR = 1,
  T2O_KIND_INT = 2,    /* int scalar (constant, or dynamic: a 0-d int64 ONNX tensor) */
  T2O_KIND_FLOAT = 3,  /* float scalar (constant, or dynamic: a 0-d ONNX tensor) */
  T2O_KIND_BOOL = 4,
  T2O_KIND_STRING = 5, /* constant strings only */
  T2O_KIND_LIST = 6,   /* list or tuple of values; items read with value_list_item */
  T2O_KIND_DEVICE = 7, /* constant device; symbolics usually ignore it */
  T2O_KIND_OTHER = 8,  /* anything else (e.g. a generator, a layout); usually ignored */
  T2O_KIND_SEQUENCE = 9, /* ABI 1.1: an ONNX sequence of tensors (a list built at run time);
                          * value_dtype gives its elements' type */
  T2O_KIND_GRAPH = 10, /* ABI 1.1: a closed subgraph (subgraph_end), for a T2O_ATTR_GRAPH attribute */
  T2O_KIND_OPTIONAL = 11 /* ABI 1.3: an ONNX optional holding a tensor or nothing (a TorchScript Optional[Tensor]
                          * that is None on some run-time path; opset 15+). value_dtype/rank/dim describe the
                          * tensor it may hold. Made by make_optional; read with OptionalHasElement and
                          * OptionalGetElement. Only symbolics flagged T2O_SYMBOLIC_OPTIONALS receive one. */
} t2o_kind;

/* Element types use ONNX's TensorProto.DataType numbering. */
typedef enum t2o_dtype {
  T2O_DTYPE_UNDEFINED = 0,
  T2O_DTYPE_FLOAT = 1,
  T2O_DTYPE_UINT8 = 2,
  T2O_DTYPE_INT8 = 3,
  T2O_DTYPE_UINT16 = 4,
  T2O_DTYPE_INT16 = 5,
  T2O_DTYPE_INT32 = 6,
  T2O_DTYPE_INT64 = 7,
  T2O_DTYPE_STRING = 8,
  T2O_DTYPE_BOOL = 9,
  T2O_DTYPE_FLOAT16 = 10,
  T2O_DTYPE_DOUBLE = 11,
  T2O_DTYPE_UINT32 = 12,
  T2O_DTYPE_UINT64 = 13,
  T2O_DTYPE_COMPLEX64 = 14,
  T2O_DTYPE_COMPLEX128 = 15,
  T2O_DTYPE_BFLOAT16 = 16
} t2o_dtype;

typedef enum t2o_attr_type {
  T2O_ATTR_INT = 1,     /* ints[0] */
  T2O_ATTR_FLOAT = 2,   /* floats[0] */
  T2O_ATTR_STRING = 3,  /* strings[0] */
  T2O_ATTR_INTS = 4,    /* ints[0..count) */
  T2O_ATTR_FLOATS = 5,  /* floats[0..count) */
  T2O_ATTR_STRINGS = 6, /* strings[0..count) */
  T2O_ATTR_TENSOR = 7,  /* a constant value (T2O_KIND_TENSOR, constant) in tensor; count ignored */
  T2O_ATTR_GRAPH = 8    /* ABI 1.1: a subgraph (a T2O_KIND_GRAPH value) in tensor; count ignored.
                         * Each subgraph is attached to exactly one node. */
} t2o_attr_type;

typedef struct t2o_attr {
  size_t struct_size; /* sizeof(t2o_attr) */
  const char* name;
  int32_t type; /* t2o_attr_type */
  int64_t count;
  const int64_t* ints;
  const double* floats;
  const char* const* strings;
  t2o_value tensor;
} t2o_attr;

typedef struct t2o_node_spec {
  size_t struct_size; /* sizeof(t2o_node_spec) */
  const char* op_type;
  const char* domain; /* "" or NULL for the default ONNX domain */
  const t2o_value* inputs; /* T2O_NO_VALUE for an omitted optional input */
  int32_t num_inputs;
  int32_t num_outputs;
  const t2o_attr* attrs;
  int32_t num_attrs;
} t2o_node_spec;

typedef struct t2o_ctx t2o_ctx; /* opaque: one symbolic call on one TorchScript node */

/* Host functions a symbolic calls. Append-only. */
typedef struct t2o_host_api {
  size_t struct_size; /* sizeof(t2o_host_api) as the host was built; check before using a member */
  uint32_t abi_major;
  uint32_t abi_minor;

  /* --- the TorchScript node being converted --- */
  const char* (*node_kind)(t2o_ctx* ctx); /* e.g. "aten::add" */
  const char* (*node_schema)(t2o_ctx* ctx); /* overload schema, "" if none */
  const char* (*node_location)(t2o_ctx* ctx); /* source range / module path, "" if unknown */
  int32_t (*num_inputs)(t2o_ctx* ctx);
  int32_t (*num_outputs)(t2o_ctx* ctx);
  t2o_value (*input)(t2o_ctx* ctx, int32_t index);
  t2o_value (*output)(t2o_ctx* ctx, int32_t index); /* the TorchScript output (type info only) */

  /* --- reading a value --- */
  int32_t (*value_kind)(t2o_ctx* ctx, t2o_value v); /* t2o_kind */
  int32_t (*value_dtype)(t2o_ctx* ctx, t2o_value v); /* t2o_dtype; UNDEFINED if unknown */
  int32_t (*value_rank)(t2o_ctx* ctx, t2o_value v); /* -1 if unknown */
  int64_t (*value_dim)(t2o_ctx* ctx, t2o_value v, int32_t axis); /* -1 if dynamic/unknown; negative axis counts from the end */
  int32_t (*value_is_constant)(t2o_ctx* ctx, t2o_value v); /* 1 if its value is known at export time */
  t2o_status (*value_int)(t2o_ctx* ctx, t2o_value v, int64_t* out); /* constant INT/BOOL, or 1-element constant tensor */
  t2o_status (*value_float)(t2o_ctx* ctx, t2o_value v, double* out); /* constant FLOAT/INT/BOOL or 1-element tensor */
  t2o_status (*value_string)(t2o_ctx* ctx, t2o_value v, const char** out); /* borrowed */
  t2o_status (*value_list_size)(t2o_ctx* ctx, t2o_value v, int64_t* out);
  t2o_status (*value_list_item)(t2o_ctx* ctx, t2o_value v, int64_t index, t2o_value* out);
  /* Bytes of a constant tensor, contiguous, element type value_dtype; borrowed. */
  t2o_status (*value_tensor_data)(t2o_ctx* ctx, t2o_value v, const void** data, size_t* nbytes);
  /* Records what a plugin knows of an emitted value (dims may hold -1; rank -1 = unknown). */
  t2o_status (*value_set_type)(t2o_ctx* ctx, t2o_value v, int32_t dtype, int32_t rank, const int64_t* dims);

  /* --- making values --- */
  /* A constant tensor (becomes an initializer, stored once). The host copies the bytes. */
  t2o_status (*make_tensor)(t2o_ctx* ctx, int32_t dtype, const int64_t* dims, int32_t rank, const void* data,
                            size_t nbytes, t2o_value* out);
  t2o_status (*make_int)(t2o_ctx* ctx, int64_t value, t2o_value* out);
  t2o_status (*make_float)(t2o_ctx* ctx, double value, t2o_value* out);
  t2o_status (*make_bool)(t2o_ctx* ctx, int32_t value, t2o_value* out);
  t2o_status (*make_none)(t2o_ctx* ctx, t2o_value* out);
  t2o_status (*make_list)(t2o_ctx* ctx, const t2o_value* items, int64_t count, t2o_value* out);
  /* Views an ONNX tensor value as a dynamic scalar of the given kind (INT, FLOAT, BOOL), or (ABI 1.1)
   * an emitted value as an ONNX sequence (kind SEQUENCE; its element type is the value's dtype). */
  t2o_status (*make_dynamic_scalar)(t2o_ctx* ctx, t2o_value tensor, int32_t kind, t2o_value* out);
  /* The ONNX tensor behind a value: a tensor's name; constants (tensors, scalars, constant lists of
   * numbers) become initializers. Fails for None and for lists holding dynamic items. */
  t2o_status (*value_as_onnx)(t2o_ctx* ctx, t2o_value v, t2o_value* out);

  /* --- emitting --- */
  /* Appends an ONNX node; outputs receives num_outputs fresh tensor values. */
  t2o_status (*emit_node)(t2o_ctx* ctx, const t2o_node_spec* spec, t2o_value* outputs);
  /* Binds TorchScript output `index` to a value (tensor, scalar, list or None). */
  t2o_status (*set_output)(t2o_ctx* ctx, int32_t index, t2o_value v);

  /* --- opsets, names, diagnostics --- */
  int64_t (*opset)(t2o_ctx* ctx, const char* domain); /* target opset of a domain; 0 if not imported */
  t2o_status (*require_opset)(t2o_ctx* ctx, const char* domain, int64_t version);
  const char* (*unique_name)(t2o_ctx* ctx, const char* hint); /* borrowed */
  void (*set_error)(t2o_ctx* ctx, const char* message); /* copied; pair with returning T2O_ERROR/UNSUPPORTED */
  void (*log)(t2o_ctx* ctx, int32_t level, const char* message); /* 0 debug, 1 info, 2 warning */

  /* --- ABI 1.1: blocks and subgraphs (control flow) ---
   * A node such as prim::If or prim::Loop holds blocks. Its symbolic opens a subgraph, declares the
   * subgraph's inputs, has the host convert a block into it (each node of the block dispatched to
   * its symbolic, as at the top level), closes it into a T2O_KIND_GRAPH value and attaches that to
   * the node it emits with a T2O_ATTR_GRAPH attribute. Values of enclosing graphs may be used
   * inside a subgraph (ONNX's outer scope). */
  int32_t (*node_num_blocks)(t2o_ctx* ctx);
  int32_t (*block_num_inputs)(t2o_ctx* ctx, int32_t block);  /* the block's parameters */
  int32_t (*block_num_outputs)(t2o_ctx* ctx, int32_t block);
  /* Type-only handles (the example run's types, as output() gives) of a block's parameter / output. */
  t2o_value (*block_input)(t2o_ctx* ctx, int32_t block, int32_t index);
  t2o_value (*block_output)(t2o_ctx* ctx, int32_t block, int32_t index);
  /* Opens a subgraph; nodes emitted until subgraph_end go into it. */
  t2o_status (*subgraph_begin)(t2o_ctx* ctx, const char* name_hint);
  /* Appends an input to the open subgraph. kind: TENSOR or SEQUENCE (dtype: the elements'), or
   * INT/FLOAT/BOOL for a scalar carried as a 0-d tensor, or (ABI 1.3) OPTIONAL (an optional tensor). rank -1: unknown; dims may hold -1. */
  t2o_status (*subgraph_input)(t2o_ctx* ctx, int32_t kind, int32_t dtype, int32_t rank, const int64_t* dims,
                               t2o_value* out);
  /* Binds block `block`'s parameters to params[0..num_params) (num_params must equal
   * block_num_inputs), converts the block's nodes into the open subgraph and stores the block's
   * outputs (block_num_outputs handles) in outputs. */
  t2o_status (*convert_block)(t2o_ctx* ctx, int32_t block, const t2o_value* params, int32_t num_params,
                              t2o_value* outputs);
  /* Closes the open subgraph with these outputs (tensors, sequences, scalars, optionals; constants are
   * materialized, values not produced inside pass through an Identity) into a T2O_KIND_GRAPH value. */
  t2o_status (*subgraph_end)(t2o_ctx* ctx, const t2o_value* outputs, int32_t num_outputs, t2o_value* graph);

  /* --- ABI 1.1: node metadata (torch.onnx.ops: onnx_ops pack) ---
   * Adds the entry (key, value) to NodeProto.metadata_props (field 9 of ONNX >= 1.16's NodeProto) of
   * the ONNX node that produced node_output (an output of emit_node). */
  t2o_status (*node_add_metadata)(t2o_ctx* ctx, t2o_value node_output, const char* key, const char* value);

  /* --- ABI 1.1: quantized tensors (the quantized pack) ---
   * An exported quantized tensor is a FLOAT value holding its dequantized values. For the node's
   * TorchScript input (is_output = 0) or output (1) `index`, the element type of its integer
   * representation when the example run saw a quantized tensor there: T2O_DTYPE_UINT8 (quint8),
   * T2O_DTYPE_INT8 (qint8), T2O_DTYPE_INT32 (qint32); T2O_DTYPE_UNDEFINED otherwise. */
  int32_t (*quantized_dtype)(t2o_ctx* ctx, int32_t is_output, int32_t index);

  /* --- ABI 1.2: the default dtype ---
   * torch.get_default_dtype() of the model (T2O_DTYPE_FLOAT or T2O_DTYPE_DOUBLE): the dtype PyTorch
   * gives true division of integers, Python floats, float factories without a dtype. The one
   * torch2onnx.save recorded, or --default-dtype; FLOAT otherwise. */
  int32_t (*default_dtype)(t2o_ctx* ctx);

  /* --- ABI 1.3: optional values ---
   * A T2O_KIND_OPTIONAL value holding `element`: an emitted or constant tensor is wrapped (ONNX
   * Optional(x)); an OPTIONAL value is returned as it is; None or T2O_NO_VALUE gives an empty optional
   * of a tensor of element type dtype and rank `rank` (-1: unknown; ONNX Optional's `type` attribute).
   * Emits ONNX Optional, which needs opset 15 of the default domain. */
  t2o_status (*make_optional)(t2o_ctx* ctx, t2o_value element, int32_t dtype, int32_t rank, t2o_value* out);

  /* --- ABI 1.4: the PyTorch release whose semantics the model follows ---
   * The libtorch the host runs the model with, major * 100 + minor (113 for 1.13, 214 for 2.14). A
   * few ops' results changed between releases (arange's length with float bounds and an int64 dtype,
   * quantile's rank precision); their symbolics follow this one, as the model's own runs do. */
  int32_t (*torch_version)(t2o_ctx* ctx);
} t2o_host_api;

/* A symbolic: converts one TorchScript node. Returns T2O_OK after binding every output. */
typedef t2o_status (*t2o_symbolic_fn)(const t2o_host_api* host, t2o_ctx* ctx, void* user_data);

#define T2O_SYMBOLIC_OVERRIDE 1u /* may replace a symbolic registered by another pack for the same key */
/* Complex tensors have no ONNX type: the host represents one as a real tensor with a trailing dim of
 * 2 (real, imaginary), as torch.view_as_real gives, while value_dtype/rank/dims still describe the
 * TorchScript tensor (COMPLEX64/COMPLEX128, without the trailing 2). The host refuses a node with a
 * complex input unless its symbolic sets this flag (it reads such inputs as pairs). */
#define T2O_SYMBOLIC_COMPLEX_PAIRS 2u
/* ABI 1.3: the host refuses a node with an input of kind T2O_KIND_OPTIONAL (an Optional[Tensor] that
 * is None on some run-time path) unless its symbolic sets this flag (it reads the optional itself:
 * prim::If/Loop carry it, `is None` and prim::unchecked_cast unwrap it). */
#define T2O_SYMBOLIC_OPTIONALS 4u

typedef struct t2o_symbolic_desc {
  size_t struct_size; /* sizeof(t2o_symbolic_desc) */
  const char* op; /* qualified TorchScript op, e.g. "aten::relu" or "myvendor::fused_gelu" */
  const char* domain; /* ONNX domain whose opset selects this symbolic; "" = default domain */
  int64_t since_opset; /* used for targets >= since_opset, until a higher registration takes over */
  t2o_symbolic_fn fn;
  void* user_data;
  uint32_t flags; /* T2O_SYMBOLIC_* */
} t2o_symbolic_desc;

typedef struct t2o_registrar t2o_registrar; /* opaque */

/* Functions a pack calls while registering. Append-only. */
typedef struct t2o_registrar_api {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  t2o_status (*register_symbolic)(t2o_registrar* reg, const t2o_symbolic_desc* desc);
  /* A TorchScript schema for a custom op, e.g. "myvendor::fused_gelu(Tensor x, float alpha) -> Tensor". */
  t2o_status (*declare_schema)(t2o_registrar* reg, const char* schema);
  void (*set_error)(t2o_registrar* reg, const char* message);
} t2o_registrar_api;

typedef struct t2o_plugin_descriptor {
  size_t struct_size; /* sizeof(t2o_plugin_descriptor) */
  uint32_t abi_major; /* T2O_ABI_MAJOR the pack was built with */
  uint32_t abi_minor; /* T2O_ABI_MINOR the pack was built with */
  const char* name;
  const char* version;
  t2o_status (*register_symbolics)(const t2o_registrar_api* api, t2o_registrar* reg);
} t2o_plugin_descriptor;

typedef const t2o_plugin_descriptor* (*t2o_plugin_entry_fn)(void);

/* Whether a struct that starts with struct_size, as the other side built it, has MEMBER. The host
 * accepts packs built for a newer minor ABI than its own: such a pack must check, before calling a
 * member added after the host's minor, e.g.
 *   if (T2O_HAS_MEMBER(host, t2o_host_api, some_new_fn)) host->some_new_fn(...);
 * (The C++ wrapper does this for the members it uses.) */
#define T2O_HAS_MEMBER(ptr, type, member) \
  ((ptr)->struct_size >= offsetof(type, member) + sizeof(((const type*)0)->member))

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TORCH2ONNX_PLUGIN_H */
