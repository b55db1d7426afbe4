// One-line summaries of a judged node for the scheduler integrations.
#include "apps/node_health.h"

#include "report/report.h"

namespace plumb {

std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    bool space = u < 0x20 || u == 0x7f || c == ' ';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
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

std::vector<const Finding*> failing(const std::vector<Finding>& findings) {
  std::vector<const Finding*> out;
  for (const auto* f : ordered(findings)) {
    if (f->status == Status::fail) out.push_back(f);
  }
  return out;
}

std::string finding_summary(const Finding& f) {
  std::string s = f.id;
  if (f.subject != "host" && !f.subject.empty()) s += " (" + f.subject + ")";
  if (!f.evidence.empty()) {
    const auto& e = f.evidence.front();
    s += ": " + e.what;
    if (!e.value.empty()) s += " " + e.value;
  }
  return one_line(s);
}

}  // namespace plumb
