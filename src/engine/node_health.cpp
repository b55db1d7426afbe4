// One-line summaries of a judged node for the scheduler integrations.
#include "engine/node_health.h"

#include "core/text.h"
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
