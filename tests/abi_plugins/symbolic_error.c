/* Loads fine; its symbolic (an override of aten::relu) fails with a message at export time. */
#include <torch2onnx/plugin.h>

#include <stddef.h>

static t2o_status failing(const t2o_host_api* host, t2o_ctx* ctx, void* user_data) {
  (void)user_data;
  host->set_error(ctx, "deliberate failure from the symbolic_error pack");
  return T2O_ERROR;
}

static t2o_status register_all(const t2o_registrar_api* api, t2o_registrar* reg) {
  t2o_symbolic_desc d;
  d.struct_size = sizeof(t2o_symbolic_desc);
  d.op = "aten::relu";
  d.domain = "";
  d.since_opset = 9;
  d.fn = &failing;
  d.user_data = NULL;
  d.flags = 0u;
  return api->register_symbolic(reg, &d);
}

static const t2o_plugin_descriptor descriptor = {sizeof(t2o_plugin_descriptor), T2O_ABI_MAJOR, T2O_ABI_MINOR, "symbolic-error", "1.0", &register_all};

T2O_EXPORT const t2o_plugin_descriptor* T2O_ENTRY_SYMBOL(void) {
  return &descriptor;
}
