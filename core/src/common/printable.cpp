// Escaping text for the terminal: see torch2onnx/core/printable.hpp.
#include "torch2onnx/core/printable.hpp"

#include <cstdint>
#include <vector>

namespace t2o::core {

namespace {

// The length of the valid UTF-8 sequence at text[i] and its code point; 0 when the bytes there do
// not form one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence(std::string_view text, size_t i, uint32_t& cp) {
  const auto byte = [&](size_t k) { return (unsigned char)text[k]; };
  const unsigned char b0 = byte(i);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // overlong below U+0800
    if (b0 == 0xED) hi = 0x9F;  // U+D800-U+DFFF: surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // overlong below U+10000
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // ASCII is handled by the caller; 0x80-0xC1 and 0xF5-0xFF never start a sequence
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const unsigned char b = byte(i + k);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  return n;
}

bool reorders_text(uint32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

void hex_escape(std::string& out, const char* prefix, uint32_t value, int digits) {
  static const char* kHex = "0123456789abcdef";
  out += prefix;
  for (int d = digits - 1; d >= 0; --d) out += kHex[(value >> (4 * d)) & 0xF];
}

// The escaped text; `units` (when given) receives the offset in `out` where each escape or
// character begins, the places a cut may fall.
std::string escape(std::string_view text, bool one_line, std::vector<size_t>* units) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (units) units->push_back(out.size());
    const unsigned char b = (unsigned char)text[i];
    if (b < 0x80) {
      if (b == '\n' || b == '\t') out += one_line ? ' ' : char(b);
      else if (b == '\r' && one_line) out += ' ';
      else if (b < 0x20 || b == 0x7F) hex_escape(out, "\\x", b, 2);
      else out += char(b);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = utf8_sequence(text, i, cp);
    if (n == 0) {
      hex_escape(out, "\\x", b, 2);  // one byte; the next may start a valid sequence
      ++i;
    } else {
      if (cp <= 0x9F) hex_escape(out, "\\x", cp, 2);  // C1 control
      else if (reorders_text(cp)) hex_escape(out, "\\u", cp, 4);
      else out.append(text.data() + i, n);
      i += n;
    }
  }
  if (units) units->push_back(out.size());
  return out;
}

}  // namespace

std::string printable(std::string_view text, size_t max_bytes) {
  std::vector<size_t> units;
  std::string out = escape(text, true, &units);
  if (out.size() <= max_bytes) return out;
  // Head and tail: a long line usually starts with where (a path) and ends with why.
  static const std::string kEllipsis = " \xE2\x80\xA6 ";  // " … "
  if (max_bytes < kEllipsis.size()) return std::string();
  const size_t budget = max_bytes - kEllipsis.size();
  const size_t head_budget = budget - budget / 3, tail_budget = budget / 3;
  size_t head = 0, tail = out.size();
  for (size_t u : units) {
    if (u <= head_budget) head = u;
    if (out.size() - u <= tail_budget && u < tail) tail = u;
  }
  if (tail < head) tail = head;  // cannot happen with the budgets above; kept as a guard
  return out.substr(0, head) + kEllipsis + out.substr(tail);
}

std::string printable_lines(std::string_view text) { return escape(text, false, nullptr); }

}  // namespace t2o::core
