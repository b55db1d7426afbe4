// Fuzzes the terminal filter every report printed as text passes through: the same result however
// the input is cut into chunks, nothing left that a terminal would obey but the sequences it keeps,
// valid UTF-8, and a second pass that changes nothing. The same input through valid_utf8 (the
// Prometheus label values): valid UTF-8, ASCII kept in place, a second pass that changes nothing.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/terminal_text.h"
#include "core/utf8.h"

namespace {

// Whether `s` is valid UTF-8 (RFC 3629) with no C0 control but newline, tab and the ESC of a kept
// sequence, no DEL and no C1 control.
void check_safe(std::string_view s, bool colour) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {
      if (!colour || i + 1 >= s.size() || s[i + 1] != '[') throw std::logic_error("an ESC was let through");
      std::size_t j = i + 2;
      while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
      if (j >= s.size() || (s[j] != 'm' && s[j] != 'H' && s[j] != 'J')) throw std::logic_error("an escape sequence was let through");
      i = j + 1;
      continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) throw std::logic_error("a control was let through");
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || i + n > s.size()) throw std::logic_error("not UTF-8");
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0U) != 0x80U) throw std::logic_error("not UTF-8");
    }
    if (c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) throw std::logic_error("a C1 control was let through");
    i += n;
  }
}

// Valid UTF-8 by decoding: each sequence's code point in its length's range, no surrogate, none
// above U+10FFFF (RFC 3629, section 3).
void check_strict_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if ((c & 0xE0U) == 0xC0U) {
      n = 2;
      cp = c & 0x1FU;
    } else if ((c & 0xF0U) == 0xE0U) {
      n = 3;
      cp = c & 0x0FU;
    } else if ((c & 0xF8U) == 0xF0U) {
      n = 4;
      cp = c & 0x07U;
    } else {
      throw std::logic_error("valid_utf8: a stray byte");
    }
    if (i + n > s.size()) throw std::logic_error("valid_utf8: a cut sequence");
    for (std::size_t k = 1; k < n; ++k) {
      const auto x = static_cast<unsigned char>(s[i + k]);
      if ((x & 0xC0U) != 0x80U) throw std::logic_error("valid_utf8: a bad continuation byte");
      cp = (cp << 6U) | (x & 0x3FU);
    }
    const std::uint32_t least = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) throw std::logic_error("valid_utf8: not a character");
    i += n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte chooses the colour mode and the chunk size.
  const bool colour = (data[0] & 1U) != 0;
  const std::size_t step = 1 + (data[0] >> 1U) % 7;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string whole = plumb::terminal_text(text, colour);
  plumb::TerminalFilter f(colour);
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += step) f.feed(text.substr(i, step), out);
  f.finish(out);
  if (out != whole) throw std::logic_error("chunks give another result");
  check_safe(whole, colour);
  if (plumb::terminal_text(whole, colour) != whole) throw std::logic_error("a second pass changed the text");
  const std::string valid = plumb::valid_utf8(text);
  check_strict_utf8(valid);
  if (plumb::valid_utf8(valid) != valid) throw std::logic_error("valid_utf8 changed valid UTF-8");
  std::size_t ascii_in = 0, ascii_out = 0;
  for (char c : text) ascii_in += static_cast<unsigned char>(c) < 0x80 ? 1 : 0;
  for (char c : valid) ascii_out += static_cast<unsigned char>(c) < 0x80 ? 1 : 0;
  if (ascii_in != ascii_out) throw std::logic_error("valid_utf8 lost or added ASCII");
  return 0;
}
