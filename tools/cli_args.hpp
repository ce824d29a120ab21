// Small command-line parsing shared by the subcommands.
#ifndef TORCH2ONNX_TOOLS_CLI_ARGS_HPP
#define TORCH2ONNX_TOOLS_CLI_ARGS_HPP

#include <stdexcept>
#include <string>
#include <vector>

namespace t2o::cli {

// A usage mistake: printed as one line, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
  UsageError(const std::string& line, std::string whole) : std::runtime_error(line), details(std::move(whole)) {}
  std::string details;  // what --verbose prints after the line (an ExportError's details), or ""
};

// Walks argv; options take their value as the next word or after '='.
class Args {
 public:
  Args(int argc, char** argv, int first);
  explicit Args(std::vector<std::string> words) : words_(std::move(words)) {}
  bool done() const { return pos_ >= words_.size(); }
  const std::string& peek() const { return words_[pos_]; }
  // If the current word is `name` (or `name=value`), consumes it and returns true.
  bool flag(const std::string& name);
  bool option(const std::string& name, std::string& value);
  std::string positional();

 private:
  std::vector<std::string> words_;
  size_t pos_ = 0;
};

std::vector<std::string> split_commas(const std::string& s);
int64_t parse_int(const std::string& option, const std::string& text);

}  // namespace t2o::cli

#endif
