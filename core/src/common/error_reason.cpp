// Choosing the informative line of a libtorch error: see torch2onnx/core/error_reason.hpp.
#include "torch2onnx/core/error_reason.hpp"

#include "torch2onnx/core/printable.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace t2o::core {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string trim(std::string s) {
  size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return {};
  s.erase(0, a);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// The C++ part of a c10::Error ("Exception raised from f at file:line (most recent call first):"
// and its "frame #N: …" lines) says where in libtorch, never why.
std::string without_backtrace(const std::string& message) {
  size_t cut = message.find("Exception raised from ");
  while (cut != std::string::npos && cut != 0 && message[cut - 1] != '\n')
    cut = message.find("Exception raised from ", cut + 1);
  return cut == std::string::npos ? message : message.substr(0, cut);
}

// "NameError: text" at the start of a line: the exception class TorchScript printed.
bool is_exception_line(const std::string& line, size_t& text_at) {
  size_t colon = line.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  if (colon + 1 < line.size() && line[colon + 1] != ' ') return false;
  std::string name = line.substr(0, colon);
  for (char c : name)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '.')) return false;
  auto ends_with = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (!ends_with("Error") && !ends_with("Exception")) return false;
  text_at = std::min(colon + 2, line.size());
  return true;
}

// TORCH_CHECK / TORCH_INTERNAL_ASSERT decorations that say nothing about the failure.
std::string without_boilerplate(std::string line) {
  // The dispatcher's "Could not run 'op' with arguments from the 'X' backend. This could be because …":
  // the first sentence says it all (its list of backends with kernels follows on other lines).
  const std::string backend = " backend.";
  if (starts_with(line, "Could not run '")) {
    auto end = line.find(backend);
    if (end != std::string::npos) line = line.substr(0, end + backend.size());
  }
  const std::string improve = "(Could this error message be improved?";
  auto pos = line.find(improve);
  if (pos != std::string::npos) line = trim(line.substr(0, pos));
  const std::string assert_marker = " INTERNAL ASSERT FAILED at ";
  pos = line.find(assert_marker);
  if (pos != std::string::npos) {
    const std::string report = "please report a bug to PyTorch.";
    auto r = line.find(report, pos);
    std::string own = r == std::string::npos ? std::string() : trim(line.substr(r + report.size()));
    if (!own.empty()) return own;
    return "internal assert failed: " + trim(line.substr(0, pos));
  }
  return line;
}

// The line the traceback marks as failing: the source line above "~~~ <--- HERE", and its file/line.
std::string failing_source_line(const std::vector<std::string>& lines) {
  std::string where, source;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string t = trim(lines[i]);
    if (starts_with(t, "File \"")) where = t;
    if (t.find("<--- HERE") != std::string::npos && i > 0) {
      source = trim(lines[i - 1]);
      // The marker may share the line with the code ("x = f(y) <--- HERE" on one-line spans).
      if (!starts_with(t, "~")) source = trim(t.substr(0, t.find("<--- HERE")));
    }
  }
  if (source.empty()) return {};
  return "failed at " + source + (where.empty() ? "" : " (" + where + ")");
}

std::string first_line_of(const std::string& message) {
  for (const auto& line : split_lines(message)) {
    std::string t = trim(line);
    if (!t.empty() && !starts_with(t, "Exception raised from") && !starts_with(t, "frame #")) return t;
  }
  return {};
}

std::string reason_of(const std::string& message) {
  const std::string text = without_backtrace(message);
  const auto lines = split_lines(text);
  const bool traceback = text.find("Traceback of TorchScript") != std::string::npos ||
                         text.find("The following operation failed in the TorchScript interpreter") != std::string::npos;
  if (traceback) {
    // Nested calls repeat the header inside a RuntimeError line; the innermost reason comes last.
    for (size_t i = lines.size(); i-- > 0;) {
      size_t at = 0;
      if (!is_exception_line(lines[i], at)) continue;
      std::string own = trim(lines[i].substr(at));
      // A multi-line reason whose first line is empty ("RuntimeError: \nmessage"): the next line.
      for (size_t j = i + 1; own.empty() && j < lines.size(); ++j) own = trim(lines[j]);
      if (starts_with(own, "The following operation failed")) continue;
      std::string reason = starts_with(lines[i], "RuntimeError: ") ? own : lines[i].substr(0, at) + own;
      reason = without_boilerplate(reason);
      if (!reason.empty()) return reason;
    }
    std::string at_source = failing_source_line(lines);
    if (!at_source.empty()) return at_source;
  }
  for (const auto& line : lines) {
    std::string t = trim(line);
    if (t.empty() || starts_with(t, "frame #")) continue;
    if (starts_with(t, "The following operation failed in the TorchScript interpreter")) continue;
    if (starts_with(t, "Traceback of TorchScript")) break;
    return without_boilerplate(t);
  }
  return first_line_of(message);
}

}  // namespace

// The messages quote the model's code, names and file contents: escaped and bounded (printable.hpp).
std::string first_line(const std::string& message) { return printable(first_line_of(message)); }

std::string error_reason(const std::string& message) { return printable(reason_of(message)); }

}  // namespace t2o::core
