// UTF-8 as RFC 3629 defines it: which bytes are a character, and text made valid.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace plumb {

// The length of the valid UTF-8 character at data[i] whose lead byte is >= 0x80 (RFC 3629): 2-4;
// 0 when it is not one, -1 when data ends inside what could still be one.
int utf8_char_length(std::string_view data, std::size_t i);
// U+FFFD, what a byte that is not UTF-8 is shown as.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";
// `s` with each byte that is not part of valid UTF-8 replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

}  // namespace plumb
