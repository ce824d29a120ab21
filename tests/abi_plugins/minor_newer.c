/* Claims ABI major.(minor + 1): newer than the host, accepted (it uses only 1.0 members). */
#include <torch2onnx/plugin.h>

#include <stddef.h>

static t2o_status identity(const t2o_host_api* host, t2o_ctx* ctx, void* user_data) {
  (void)user_data;
  return host->set_output(ctx, 0, host->input(ctx, 0));
}

static t2o_status register_all(const t2o_registrar_api* api, t2o_registrar* reg) {
  t2o_symbolic_desc d;
  d.struct_size = sizeof(t2o_symbolic_desc);
  d.op = "test::minor_newer_op";
  d.domain = "";
  d.since_opset = 9;
  d.fn = &identity;
  d.user_data = NULL;
  d.flags = 0u;
  return api->register_symbolic(reg, &d);
}

static const t2o_plugin_descriptor descriptor = {sizeof(t2o_plugin_descriptor), T2O_ABI_MAJOR, T2O_ABI_MINOR + 1, "minor-newer", "1.0", &register_all};

T2O_EXPORT const t2o_plugin_descriptor* T2O_ENTRY_SYMBOL(void) {
  return &descriptor;
}
