// The options of one conversion, read by `export`, `check` and `verify` through this one parser, so
// a command line `check` accepts is one `export` accepts, with the same meaning (check is a dry run
// of export: it takes -o and friends too and writes nothing).
#ifndef TORCH2ONNX_TOOLS_EXPORT_OPTIONS_HPP
#define TORCH2ONNX_TOOLS_EXPORT_OPTIONS_HPP

#include "cli_args.hpp"
#include "help_text.hpp"

#include <torch2onnx/core/exporter.hpp>
#include <torch2onnx/registry.hpp>

#include <string>
#include <vector>

namespace t2o::cli {

struct ConversionArgs {
  // The program's lazy weights use the signal handler (ExportOptions::lazy_weights_handler): it also
  // leaves the weights of archives whose load runs code in the file; the library's default does not.
  ConversionArgs() { options.lazy_weights_handler = true; }

  std::string model;                     // the positional MODEL.pt
  std::string output;                    // -o (export writes it; check only validates the rest)
  t2o::core::ExportOptions options;
  std::vector<std::string> plugin_dirs;  // --plugin-path and --enable-pack, in order
  bool quiet = false;
  bool timings = false;
};

// If the current word is a conversion option, consumes it (and its value) into `conv` and returns true.
bool parse_conversion_option(Args& args, ConversionArgs& conv);
// Takes the current word as MODEL.pt (an unknown option is a UsageError; a second model too).
void take_model(Args& args, ConversionArgs& conv);
// The option lines of --help shared by every command that converts: conversion_options_help(),
// help_text.hpp.
// Loads the bundled packs and the command line's --plugin-path / --enable-pack packs.
void load_conversion_plugins(t2o::registry::Registry& registry, const ConversionArgs& conv,
                             const std::function<void(const char*)>& phase = nullptr);

// --load-library / --no-default-libraries alone (decompose loads kernel libraries but converts nothing).
bool parse_library_option(Args& args, std::vector<std::string>& libraries, bool& default_libraries);

}  // namespace t2o::cli

#endif
