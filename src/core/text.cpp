// Number and line parsing shared by every parser of outside data.
#include "core/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/host_root.h"

namespace plumb {

std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  s = trim(s);
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_size(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  double mult = 1;
  char last = s.back();
  switch (last) {
    case 'k': case 'K': mult = 1024.0; break;
    case 'm': case 'M': mult = 1024.0 * 1024; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
    default: break;
  }
  if (mult != 1) s.remove_suffix(1);
  auto v = parse_double(s);
  if (!v || *v < 0 || *v * mult > 1.8e19) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(*v * mult));
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  for (;;) {
    auto e = s.find(sep, b);
    out.push_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string to_lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return o;
}

std::string to_upper(std::string_view s) {
  std::string o(s);
  for (auto& c : o) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return o;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

std::string indent_lines(std::string_view text, std::string_view pad, std::string_view first) {
  std::string out;
  out.reserve(first.size() + text.size() + text.size() / 8);
  out += first;
  std::size_t from = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', from)) {
    out += text.substr(from, nl + 1 - from);
    out += pad;
    from = nl + 1;
  }
  out += text.substr(from);
  return out;
}

std::string base_name(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  auto slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos || path.size() == 1 ? path : path.substr(slash + 1));
}

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return std::to_string(bytes) + " B";
  return fmt_num(v, v < 10 ? 1 : 0) + " " + units[u];
}

std::string fmt_num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

namespace {
// The largest n <= want such that s[0, n) ends on a UTF-8 sequence boundary.
std::size_t utf8_boundary(std::string_view s, std::size_t want) {
  std::size_t n = std::min(want, s.size());
  if (n == s.size()) return n;
  // Back off while s[n] is a continuation byte (10xxxxxx): it belongs to a sequence before n.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}
}  // namespace

std::string cut_utf8(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  constexpr std::string_view kMark = "...";
  if (max_bytes <= kMark.size()) return std::string(s.substr(0, utf8_boundary(s, max_bytes)));
  std::string out(s.substr(0, utf8_boundary(s, max_bytes - kMark.size())));
  out += kMark;
  return out;
}

}  // namespace plumb
