// The program's help texts and version line, shared by the launcher (launcher.cpp), which prints
// them without loading libtorch, and the commands (libtorch2onnx_cli.so).
#ifndef TORCH2ONNX_TOOLS_HELP_TEXT_HPP
#define TORCH2ONNX_TOOLS_HELP_TEXT_HPP

#include <optional>
#include <string>

namespace t2o::cli {

std::string usage_text();    // torch2onnx --help
std::string version_line();  // torch2onnx --version, with its newline
// The options export, check and verify share (export_options.cpp parses them).
std::string conversion_options_help();
std::string export_help();
std::string check_help();
std::string plugins_help();
std::string decompose_help();
std::string verify_help();
std::string show_help();
// `torch2onnx COMMAND --help`, or nullopt when COMMAND is no command.
std::optional<std::string> command_help(const std::string& command);
// --help or -h, as every command reads them.
bool is_help_flag(const std::string& word);

}  // namespace t2o::cli

#endif
