// printable(): what reaches the terminal from files and libtorch's messages is valid UTF-8 without
// control characters, on one bounded line.
#include <torch2onnx/core/error_reason.hpp>
#include <torch2onnx/core/printable.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <string>

namespace {

using t2o::core::kMaxLineBytes;
using t2o::core::printable;
using t2o::core::printable_lines;

// An independent check of the result: strict UTF-8 decoding, no C0/C1 control, DEL, bidi control.
bool clean_utf8(const std::string& s, bool allow_newlines = false) {
  for (size_t i = 0; i < s.size();) {
    unsigned char b = s[i];
    uint32_t cp;
    size_t n;
    if (b < 0x80) cp = b, n = 1;
    else if ((b & 0xE0) == 0xC0) cp = b & 0x1F, n = 2;
    else if ((b & 0xF0) == 0xE0) cp = b & 0x0F, n = 3;
    else if ((b & 0xF8) == 0xF0) cp = b & 0x07, n = 4;
    else return false;
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    bool newline = allow_newlines && (cp == '\n' || cp == '\t');
    if (!newline && (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))) return false;
    if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029) return false;
    i += n;
  }
  return true;
}

TEST(Printable, KeepsPlainTextAndValidUtf8) {
  EXPECT_EQ(printable("model.pt: not a zip file"), "model.pt: not a zip file");
  EXPECT_EQ(printable("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC");
  EXPECT_EQ(printable("C:\\dir\\x.pt"), "C:\\dir\\x.pt");  // backslashes kept
  EXPECT_EQ(printable(""), "");
  // The highest code point and the ones next to the surrogates are valid.
  EXPECT_EQ(printable("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF");
  EXPECT_EQ(printable("\xED\x9F\xBF\xEE\x80\x80"), "\xED\x9F\xBF\xEE\x80\x80");
}

TEST(Printable, EscapesControlCharacters) {
  EXPECT_EQ(printable("a\x1b[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(printable(std::string("nul\0here", 8)), "nul\\x00here");
  EXPECT_EQ(printable("bell\x07 del\x7f"), "bell\\x07 del\\x7f");
  EXPECT_EQ(printable("\x08\x0b\x0c"), "\\x08\\x0b\\x0c");
  // C1 controls, validly encoded (U+0085 NEL, U+009B CSI): escaped by their value.
  EXPECT_EQ(printable("x\xC2\x85y\xC2\x9B"), "x\\x85y\\x9b");
  // U+00A0 is the first code point after them: kept.
  EXPECT_EQ(printable("\xC2\xA0"), "\xC2\xA0");
}

TEST(Printable, OneLine) {
  EXPECT_EQ(printable("line one\nline two\r\n\tend"), "line one line two   end");
  EXPECT_EQ(printable_lines("a\nb\tc\rd\x1b"), "a\nb\tc\\x0dd\\x1b");
}

TEST(Printable, EscapesBidiControls) {
  // RLO, PDF, LRE, RLE, LRO; the isolates LRI, RLI, FSI, PDI; line and paragraph separators.
  EXPECT_EQ(printable("file\xE2\x80\xAEtxt.pt"), "file\\u202etxt.pt");
  EXPECT_EQ(printable("\xE2\x80\xAA\xE2\x80\xAB\xE2\x80\xAC\xE2\x80\xAD"), "\\u202a\\u202b\\u202c\\u202d");
  EXPECT_EQ(printable("\xE2\x81\xA6\xE2\x81\xA7\xE2\x81\xA8\xE2\x81\xA9"), "\\u2066\\u2067\\u2068\\u2069");
  EXPECT_EQ(printable("\xE2\x80\xA8\xE2\x80\xA9"), "\\u2028\\u2029");
  // Neighbours are ordinary text: U+2029's next (U+202F) and U+2065/U+206A.
  EXPECT_EQ(printable("\xE2\x80\xAF\xE2\x81\xA5\xE2\x81\xAA"), "\xE2\x80\xAF\xE2\x81\xA5\xE2\x81\xAA");
}

TEST(Printable, EscapesInvalidUtf8) {
  EXPECT_EQ(printable("expected a valid token but found '\xCE' here"),
            "expected a valid token but found '\\xce' here");  // truncated 2-byte sequence
  EXPECT_EQ(printable("\x80\xBF"), "\\x80\\xbf");  // stray continuation bytes
  EXPECT_EQ(printable("\xC0\xAF"), "\\xc0\\xaf");  // overlong '/'
  EXPECT_EQ(printable("\xC1\xBF"), "\\xc1\\xbf");  // overlong
  EXPECT_EQ(printable("\xE0\x80\xAF"), "\\xe0\\x80\\xaf");  // overlong 3-byte
  EXPECT_EQ(printable("\xF0\x80\x80\xAF"), "\\xf0\\x80\\x80\\xaf");  // overlong 4-byte
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // surrogate U+D800
  EXPECT_EQ(printable("\xED\xBF\xBF"), "\\xed\\xbf\\xbf");  // surrogate U+DFFF
  EXPECT_EQ(printable("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(printable("\xF5\xFF\xFE"), "\\xf5\\xff\\xfe");
  EXPECT_EQ(printable("ab\xE2\x82"), "ab\\xe2\\x82");  // truncated at the end
  EXPECT_EQ(printable("\xE2\x82z"), "\\xe2\\x82z");  // truncated before ASCII
  // A broken sequence before a good one: only the broken bytes are escaped.
  EXPECT_EQ(printable("\xE2\xC3\xA9"), "\\xe2\xC3\xA9");
  EXPECT_EQ(printable("Couldn't parse the version \xE5\xD7O\xFE"), "Couldn't parse the version \\xe5\\xd7O\\xfe");
}

TEST(Printable, BoundsLongLines) {
  const std::string head = "/models/" + std::string(2000, 'a') + ".pt";
  const std::string line = head + ": not a TorchScript archive (not a zip file)";
  const std::string p = printable(line);
  EXPECT_LE(p.size(), kMaxLineBytes);
  EXPECT_GE(p.size(), kMaxLineBytes - 8);
  EXPECT_EQ(p.rfind("/models/aaaa", 0), 0u) << p;
  EXPECT_NE(p.find(" \xE2\x80\xA6 "), std::string::npos) << p;
  EXPECT_EQ(p.substr(p.size() - 16), "(not a zip file)") << p;  // the reason survives
  EXPECT_TRUE(clean_utf8(p));
  EXPECT_EQ(printable(line, std::string::npos), line);
  // Exactly at the bound: unchanged.
  EXPECT_EQ(printable(std::string(kMaxLineBytes, 'x')), std::string(kMaxLineBytes, 'x'));
  EXPECT_LT(printable(std::string(kMaxLineBytes + 1, 'x')).size(), kMaxLineBytes + 1);
}

// Cutting never splits a multi-byte character or an escape, whatever the offset of the cut.
TEST(Printable, CutPoints) {
  const std::string units[] = {"\xE6\x97\xA5", "\xF0\x9F\x98\x80", "\x1b", "\xFF", "\xE2\x80\xAE", "\xC3\xA9", "z"};
  for (size_t shift = 0; shift < 8; ++shift) {
    std::string text(shift, '-');
    for (int k = 0; k < 400; ++k) text += units[(k * 5 + shift) % 7];
    for (size_t max : {kMaxLineBytes, size_t(40), size_t(41), size_t(42), size_t(43), size_t(10)}) {
      const std::string p = printable(text, max);
      EXPECT_LE(p.size(), max);
      EXPECT_TRUE(clean_utf8(p)) << p;
      // Every escape is whole: a backslash is followed by x and 2 hex digits or u and 4.
      for (size_t i = p.find('\\'); i != std::string::npos; i = p.find('\\', i + 1)) {
        ASSERT_LT(i + 1, p.size()) << p;
        const size_t digits = p[i + 1] == 'x' ? 2 : p[i + 1] == 'u' ? 4 : 0;
        ASSERT_NE(digits, 0u) << p;
        ASSERT_LE(i + 2 + digits, p.size()) << p;
        for (size_t d = 0; d < digits; ++d) EXPECT_TRUE(std::isxdigit((unsigned char)p[i + 2 + d])) << p;
      }
      EXPECT_EQ(printable(p, max), p);  // idempotent
    }
  }
}

// Every byte value, alone and in pairs: the result is always clean.
TEST(Printable, EveryByte) {
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; b += 7) {
      std::string s = {char(a), char(b), char(0xA9)};
      const std::string p = printable(s);
      ASSERT_TRUE(clean_utf8(p)) << a << " " << b;
      ASSERT_EQ(printable(p), p);
      ASSERT_TRUE(clean_utf8(printable_lines(s), true));
    }
  }
}

// error_reason() returns printable lines: libtorch quotes the bytes of a corrupted archive.
TEST(Printable, ErrorReasonEscapes) {
  EXPECT_EQ(t2o::core::error_reason("PytorchStreamReader failed: \x1b]0;title\x07 \xFF"),
            "PytorchStreamReader failed: \\x1b]0;title\\x07 \\xff");
  const std::string r = t2o::core::error_reason(std::string(5000, 'y') + "\nframe #0: x");
  EXPECT_LE(r.size(), kMaxLineBytes);
  EXPECT_TRUE(clean_utf8(r));
  EXPECT_EQ(t2o::core::first_line("\xE2\x80\xAEgnp.exe\n"), "\\u202egnp.exe");
}

}  // namespace
