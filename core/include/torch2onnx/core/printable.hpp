// Text from files and from libtorch made safe to print: what a terminal or a UTF-8 reader gets.
//
// Error lines, warnings, `check`'s report, `plugins`' listing and `show`'s graph carry bytes the
// user did not write: file names, TorchScript code, archive metadata, ONNX names, libtorch messages
// quoting any of these. A downloaded file may hold invalid UTF-8 (which breaks UTF-8 consumers) or
// control characters (which a terminal obeys: ESC sequences, carriage returns, bidi overrides that
// reorder the text shown). printable() is the one function every such text passes through.
#ifndef TORCH2ONNX_CORE_PRINTABLE_HPP
#define TORCH2ONNX_CORE_PRINTABLE_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace t2o::core {

// The bound of one printed line's message (the "torch2onnx: error: " prefix comes on top).
constexpr size_t kMaxLineBytes = 400;

// `text` escaped, as valid UTF-8 without control characters:
//  - a byte that does not start a valid UTF-8 sequence (stray continuation bytes, overlong forms,
//    surrogates, code points above U+10FFFF, truncated sequences) -> \xNN, one per byte;
//  - C0 controls, DEL and C1 controls (U+0080-U+009F) -> \xNN (ESC -> \x1b);
//  - bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the line and
//    paragraph separators (U+2028, U+2029) -> \uNNNN;
//  - '\n', '\r' and '\t' become one space each (the one-line rule);
//  - everything else, including valid non-ASCII UTF-8 and backslashes, is kept as it is.
// Longer than max_bytes after escaping: the head and the tail joined by " … " (U+2026), at most
// max_bytes in all, never cut inside a UTF-8 sequence or an escape. Applied to its own result it
// changes nothing (when that fits in max_bytes).
std::string printable(std::string_view text, size_t max_bytes = kMaxLineBytes);

// The same escapes for several lines (--verbose's whole message, `show`'s graph): '\n' and '\t'
// are kept, '\r' is escaped; no length bound.
std::string printable_lines(std::string_view text);

}  // namespace t2o::core

#endif
