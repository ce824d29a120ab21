// What a TorchScript archive claims, checked against what it holds before libtorch believes it.
//
// libtorch's reader allocates what a zip entry or a pickle says (a record's uncompressed size, a
// tensor's sizes) and its parsers recurse over nesting as deep as the file makes it: a small lying
// file can ask for terabytes or overflow the stack. check_archive_bounds() reads the zip's central
// directory, the pickles (data.pkl, constants.pkl) and the TorchScript code itself, allocating only
// in proportion to the file's real size, and refuses with one line what would not fit. The bounds
// are listed in docs/guide/exporting.md ("Limits").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace t2o::core {

struct ArchiveBounds {
  uint64_t max_entries = 1u << 20;           // zip members
  uint64_t max_deflate_ratio = 100;          // uncompressed / compressed of a compressed member ...
  uint64_t min_ratio_checked_bytes = 1u << 20;  // ... that expands beyond 1 MiB (small repetitive code may)
  size_t max_pickle_nesting = 1000;          // containers inside containers in data.pkl/constants.pkl
  size_t max_code_brackets = 256;            // (, [, { open at once in a code/ record
  size_t max_code_indent_levels = 100;       // nested blocks in a code/ record
  size_t max_code_expression_operators = 2000;  // operators chained in one expression (a tree that deep)
  size_t max_code_line_bytes = 1u << 20;     // one line of TorchScript code
  size_t max_json_nesting = 64;              // extra/*.json (the signature torch2onnx.save() keeps)
};

// Throws ExportError("PATH: corrupt or truncated TorchScript archive: WHAT") naming the member and the
// claim that does not hold; returns quietly for an archive within the bounds (or for a file that is
// not a zip at all: load_torchscript says that itself).
void check_archive_bounds(const std::string& path, const ArchiveBounds& bounds = {});

}  // namespace t2o::core
