#include "core/utf8.h"

namespace plumb {

int utf8_char_length(std::string_view data, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(data[k]); };
  const unsigned char c = b(i);
  int n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range (RFC 3629, section 4)
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (int k = 1; k < n; ++k) {
    if (i + static_cast<std::size_t>(k) >= data.size()) return -1;
    const unsigned char x = b(i + static_cast<std::size_t>(k));
    if (k == 1 ? (x < lo || x > hi) : (x < 0x80 || x > 0xBF)) return 0;
  }
  return n;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    // A run of ASCII at once.
    std::size_t j = i;
    while (j < s.size() && static_cast<unsigned char>(s[j]) < 0x80) ++j;
    out.append(s.substr(i, j - i));
    if (j == s.size()) break;
    const int len = utf8_char_length(s, j);
    if (len > 0) {
      out.append(s.substr(j, static_cast<std::size_t>(len)));
      i = j + static_cast<std::size_t>(len);
    } else {
      out.append(kUtf8Replacement);
      i = j + 1;
    }
  }
  return out;
}

}  // namespace plumb
