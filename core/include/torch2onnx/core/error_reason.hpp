// The one line worth printing from a libtorch error message.
//
// libtorch's messages (c10::Error::what(), TorchScript interpreter and loader errors) run to many
// lines, and their first line is often the least useful one: "The following operation failed in the
// TorchScript interpreter.", "… INTERNAL ASSERT FAILED at "file":line, please report a bug to
// PyTorch.", "Exception raised from …" and a C++ backtrace. Every place the core catches a libtorch
// exception reports error_reason(e.what()) on its one error line, and keeps the whole text
// (ExportError::details()) for --verbose / T2O_DEBUG=1.
#ifndef TORCH2ONNX_CORE_ERROR_REASON_HPP
#define TORCH2ONNX_CORE_ERROR_REASON_HPP

#include <string>

namespace t2o::core {

// One line (no '\n', no trailing blanks) saying why, chosen from a libtorch message:
//  - TorchScript interpreter errors (a traceback): the last "…Error: " line, without the
//    "RuntimeError: " prefix (other exception names such as "ValueError: " are kept); without such
//    a line, the failing source line of the traceback (the one marked "<--- HERE").
//  - internal asserts: the assert's own message ("… please report a bug to PyTorch. MESSAGE"), or
//    the failed condition when it has none; TORCH_CHECK's "(Could this error message be improved? …)"
//    is dropped.
//  - anything else: the first line that says something (C++ backtraces are skipped).
// The line is printable() (printable.hpp): bytes from the model or file escaped, at most
// kMaxLineBytes long.
std::string error_reason(const std::string& message);

// The first line that says something (no C++ backtrace header), for messages that are not libtorch's.
std::string first_line(const std::string& message);

}  // namespace t2o::core

#endif
