// The subcommands of the torch2onnx program.
#ifndef TORCH2ONNX_TOOLS_COMMANDS_HPP
#define TORCH2ONNX_TOOLS_COMMANDS_HPP

#include "cli_args.hpp"
#include "help_text.hpp"
#include "launch.h"

#include <torch2onnx/core/printable.hpp>
#include <torch2onnx/registry.hpp>

#include <functional>
#include <string>
#include <vector>

namespace t2o::cli {

// Text from files (paths, names, messages) goes to the terminal through these: printable.hpp.
using t2o::core::printable;
using t2o::core::printable_lines;

int run_export(Args& args);
int run_plugins(Args& args);
int run_check(Args& args);
int run_decompose(Args& args);
int run_verify(Args& args);  // verify_command.cpp
int run_show(Args& args);    // show_command.cpp

// Loads the bundled packs, TORCH2ONNX_PLUGIN_PATH and the given --plugin-path dirs. `phase`, when
// given, is told "plugin-dirs" before each directory is listed and "packs" before its packs open.
using PhaseCallback = std::function<void(const char* phase)>;
void load_plugins(t2o::registry::Registry& registry, const std::vector<std::string>& user_dirs,
                  const PhaseCallback& phase = nullptr);
// The directory of an optional pack shipped with the program (--enable-pack NAME); a UsageError
// listing the available names when there is none of that name.
std::string optional_pack_path(const std::string& name);
// Prints one warning line per refused pack (export keeps going without it).
void warn_refused(const t2o::registry::Registry& registry);

void print_error(const std::string& message);
void print_warning(const std::string& message);

// How main() reports a failure: its exit status (2 usage mistakes, 1 failed conversions), the one line
// and the whole message --verbose adds. Call inside a catch block: describes the exception in flight.
struct Failure {
  int exit_code = 1;
  std::string line;
  std::string details;
};
Failure describe_current_exception();
// --verbose or T2O_DEBUG=1: print the whole message after an error's line.
bool verbose_errors();
// The launcher's instants (launch.h), for --timings.
const t2o_cli_launch* launch_times();
void print_details(const std::string& line, const std::string& details);

}  // namespace t2o::cli

#endif
