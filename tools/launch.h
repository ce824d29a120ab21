/* Between the torch2onnx program (launcher.cpp, which does not link libtorch) and the command library
 * it loads for every real command (libtorch2onnx_cli.so, cli_main.cpp). Both are built together and
 * installed side by side: this is no stable interface. */
#ifndef TORCH2ONNX_TOOLS_LAUNCH_H
#define TORCH2ONNX_TOOLS_LAUNCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* The launcher's head start on an export's weights (weights_head_start.hpp): the .pt's weight records
 * being copied, in archive order, into OUT.data's temporary file while libtorch starts. */
struct t2o_weights_head_start {
  void* owner;
  const char* model_path;     /* as the command line gives them */
  const char* output_path;
  const char* data_temp_path; /* OUT.data.tmp.<pid>, the writer's own temporary name */
  unsigned long long device, inode, size, mtime_ns; /* the .pt, as fstat(2) saw it */
  unsigned long long record_count;
  const unsigned long long* records; /* record_count triples: offset in the .pt, length, offset in OUT.data */
  /* Waits for the copy to end; returns how many leading records it copied whole. */
  unsigned long long (*wait)(const struct t2o_weights_head_start* self);
  /* Asks the copy to stop soon (its file will not be used). */
  void (*stop)(const struct t2o_weights_head_start* self);
};

/* Instants of the launcher, in seconds of CLOCK_MONOTONIC (std::chrono::steady_clock's clock), for
 * --timings; and its head start, if it took one. */
struct t2o_cli_launch {
  double main_entered;   /* the launcher's main() began */
  double library_loaded; /* dlopen of the command library (libtorch's start-up) returned */
  const struct t2o_weights_head_start* head_start; /* NULL: none */
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
