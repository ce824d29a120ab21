/* A pack built against a later minor whose t2o_attr has grown (one more member): aten::relu becomes
 * HardSigmoid with two attributes passed in an array of the wider struct. The host must read the
 * array with the stride its first element's struct_size gives (plugin.h), not its own sizeof. */
#include <torch2onnx/plugin.h>

#include <stddef.h>

typedef struct wide_attr {
  t2o_attr base;      /* the 1.1 members */
  int64_t later_member; /* what a later minor might append */
} wide_attr;

static t2o_status relu_as_hard_sigmoid(const t2o_host_api* host, t2o_ctx* ctx, void* user_data) {
  static const double alpha = 0.25, beta = 0.75;
  wide_attr attrs[2];
  t2o_value in, out;
  t2o_node_spec spec;
  int k;
  (void)user_data;
  for (k = 0; k < 2; ++k) {
    attrs[k].base.struct_size = sizeof(wide_attr);
    attrs[k].base.type = T2O_ATTR_FLOAT;
    attrs[k].base.count = 1;
    attrs[k].base.ints = NULL;
    attrs[k].base.strings = NULL;
    attrs[k].base.tensor = T2O_NO_VALUE;
    attrs[k].later_member = -1;
  }
  attrs[0].base.name = "alpha";
  attrs[0].base.floats = &alpha;
  attrs[1].base.name = "beta";
  attrs[1].base.floats = &beta;
  in = host->input(ctx, 0);
  spec.struct_size = sizeof(t2o_node_spec);
  spec.op_type = "HardSigmoid";
  spec.domain = "";
  spec.inputs = &in;
  spec.num_inputs = 1;
  spec.num_outputs = 1;
  spec.attrs = &attrs[0].base;
  spec.num_attrs = 2;
  if (host->emit_node(ctx, &spec, &out) != T2O_OK) return T2O_ERROR;
  return host->set_output(ctx, 0, out);
}

static t2o_status register_all(const t2o_registrar_api* api, t2o_registrar* reg) {
  t2o_symbolic_desc d;
  d.struct_size = sizeof(t2o_symbolic_desc);
  d.op = "aten::relu";
  d.domain = "";
  d.since_opset = 9;
  d.fn = &relu_as_hard_sigmoid;
  d.user_data = NULL;
  d.flags = T2O_SYMBOLIC_OVERRIDE;
  return api->register_symbolic(reg, &d);
}

static const t2o_plugin_descriptor descriptor = {sizeof(t2o_plugin_descriptor), T2O_ABI_MAJOR, T2O_ABI_MINOR + 1,
                                                 "wide-attr", "1.0", &register_all};

T2O_EXPORT const t2o_plugin_descriptor* T2O_ENTRY_SYMBOL(void) { return &descriptor; }
