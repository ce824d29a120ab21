// Declares a schema that looks like one ("::" and "(") but that TorchScript's parser rejects. The
// registry alone accepts it; with the core's schema checker installed (the torch2onnx program) the
// pack is refused at load time, naming the file.
#include <torch2onnx/plugin.hpp>

T2O_SCHEMA("test::unparsable(Tensor x, -> Tensor");
T2O_SYMBOLIC("test::unparsable", 9) { ctx.set_output(0, ctx.input(0)); }

T2O_PLUGIN("unparsable-schema", "1.0")
