// Small pure text helpers for parsers of /proc, /sys and tool output. All are total: bad input
// gives std::nullopt, never an exception or a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plumb {

// The pieces as one string in one allocation: `a + "/" + b` makes a temporary string per `+`
// (clang-tidy's performance-inefficient-string-concatenation), which adds up in loops over sysfs.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  out.reserve((std::string_view(parts).size() + ...));
  (out.append(std::string_view(parts)), ...);
  return out;
}

std::optional<std::int64_t> parse_int(std::string_view s);     // decimal, optional sign, trimmed
std::optional<std::uint64_t> parse_uint(std::string_view s);   // decimal, trimmed
std::optional<std::uint64_t> parse_hex(std::string_view s);    // with or without 0x
std::optional<double> parse_double(std::string_view s);        // trimmed, finite only
// "64M", "1.5G", "512k", "1048576" (binary multiples, as in mount options and sysfs) -> bytes.
std::optional<std::uint64_t> parse_size(std::string_view s);

std::vector<std::string_view> split_lines(std::string_view text);
std::vector<std::string_view> split_ws(std::string_view line);  // on runs of spaces/tabs
std::vector<std::string_view> split(std::string_view s, char sep);  // keeps empty fields
bool starts_with(std::string_view s, std::string_view prefix);
// ASCII case mapping (locale-independent).
std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);
// Non-empty and ASCII digits only.
bool all_digits(std::string_view s);
// The parts with `sep` between them.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// `first`, then `text` with `pad` after each of its newlines: a block of lines moved right.
std::string indent_lines(std::string_view text, std::string_view pad, std::string_view first = {});
// At most max_bytes, never splitting a UTF-8 sequence; "..." marks a cut when there is room.
std::string cut_utf8(std::string_view s, std::size_t max_bytes);
// The last component of a path ("/a/b/c.json" -> "c.json"; trailing slashes ignored; "-" stays "-").
std::string base_name(std::string_view path);
// "1.5 GiB", "512 MiB": a byte count for humans.
std::string human_bytes(std::uint64_t bytes);
// A fixed number of decimals without trailing noise: fmt_num(0.1234, 1) == "0.1".
std::string fmt_num(double v, int decimals);

}  // namespace plumb
