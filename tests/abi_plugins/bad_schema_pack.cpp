// Declares a schema string that is not a schema.
#include <torch2onnx/plugin.hpp>

T2O_SCHEMA("this is not a schema");
T2O_SYMBOLIC("test::bad_schema_op", 9) { ctx.set_output(0, ctx.input(0)); }

T2O_PLUGIN("bad-schema", "1.0")
