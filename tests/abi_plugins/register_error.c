/* Registers one symbolic, then fails with a message: nothing of it may be kept. */
#include <torch2onnx/plugin.h>

#include <stddef.h>

static t2o_status identity(const t2o_host_api* host, t2o_ctx* ctx, void* user_data) {
  (void)user_data;
  return host->set_output(ctx, 0, host->input(ctx, 0));
}

static t2o_status register_all(const t2o_registrar_api* api, t2o_registrar* reg) {
  t2o_symbolic_desc d;
  d.struct_size = sizeof(t2o_symbolic_desc);
  d.op = "test::register_error_op";
  d.domain = "";
  d.since_opset = 9;
  d.fn = &identity;
  d.user_data = NULL;
  d.flags = 0u;
  if (api->register_symbolic(reg, &d) != T2O_OK) return T2O_ERROR;
  api->set_error(reg, "deliberate failure from the register_error pack");
  return T2O_ERROR;
}

static const t2o_plugin_descriptor descriptor = {sizeof(t2o_plugin_descriptor), T2O_ABI_MAJOR, T2O_ABI_MINOR, "register-error", "1.0", &register_all};

T2O_EXPORT const t2o_plugin_descriptor* T2O_ENTRY_SYMBOL(void) {
  return &descriptor;
}
