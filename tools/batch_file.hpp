// The job list of `torch2onnx export --batch FILE`: one export per line, written as its command line
// after `torch2onnx export` (MODEL.pt -o OUT.onnx [options]). Words are split at blanks; '...' keeps
// everything literally, "..." keeps blanks and takes \" and \\ as escapes, a backslash outside
// quotes escapes the next character; a word starting with # begins a comment to the end of the
// line; blank lines and comment lines are skipped.
#ifndef TORCH2ONNX_TOOLS_BATCH_FILE_HPP
#define TORCH2ONNX_TOOLS_BATCH_FILE_HPP

#include <string>
#include <vector>

namespace t2o::cli {

struct BatchJob {
  int line = 0;                    // 1-based line number in the file, for messages
  std::vector<std::string> words;  // the export command line's words
};

// Reads FILE ("-" for standard input). Throws UsageError naming FILE:LINE for an unterminated quote
// or a trailing backslash, and naming the file when it cannot be read or holds no job.
std::vector<BatchJob> read_batch_file(const std::string& path);

// Splits one line into words (the rules above); throws std::invalid_argument saying what is wrong.
std::vector<std::string> split_batch_line(const std::string& line);

}  // namespace t2o::cli

#endif
