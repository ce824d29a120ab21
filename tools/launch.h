/* Between the torch2onnx program (launcher.cpp, which does not link libtorch) and the command library
 * it loads for every real command (libtorch2onnx_cli.so, cli_main.cpp). Both are built together and
 * installed side by side: this is no stable interface. */
#ifndef TORCH2ONNX_TOOLS_LAUNCH_H
#define TORCH2ONNX_TOOLS_LAUNCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* Instants of the launcher, in seconds of CLOCK_MONOTONIC (std::chrono::steady_clock's clock), for
 * --timings. */
struct t2o_cli_launch {
  double main_entered;   /* the launcher's main() began */
  double library_loaded; /* dlopen of the command library (libtorch's start-up) returned */
};

/* The program's main() behind the launcher: argv as the launcher got it; returns the exit status. */
typedef int (*t2o_cli_main_fn)(int argc, char** argv, const struct t2o_cli_launch* launch);
#define T2O_CLI_MAIN_SYMBOL "t2o_cli_main"
/* The command library, relative to the program's directory (bin/ -> lib/, in the build tree and an
 * installed tree alike). */
#define T2O_CLI_LIBRARY_FROM_BIN "../lib/libtorch2onnx_cli.so"

#ifdef __cplusplus
}
#endif

#endif
