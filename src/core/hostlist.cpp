// Compact host-range notation ("gpu[01-03,07]"), as Slurm's hostlist and pdsh print it.
#include "core/hostlist.h"

#include <map>
#include <set>

namespace plumb {

namespace {

struct Numbered {
  std::string prefix;
  std::string digits;  // as written, zero padding kept
};

// "gpu017" -> {"gpu", "017"}; names without trailing digits have empty digits.
Numbered split_name(const std::string& h) {
  std::size_t end = h.size();
  std::size_t start = end;
  while (start > 0 && h[start - 1] >= '0' && h[start - 1] <= '9') --start;
  // Very long digit runs are identifiers, not node numbers: keep them whole.
  if (start == end || end - start > 9) return {h, ""};
  return {h.substr(0, start), h.substr(start, end - start)};
}

}  // namespace

std::string compact_hosts(const std::vector<std::string>& hosts) {
  // prefix + digit width -> numbers. A zero-padded number ("gpu007") sets its group's width; an
  // unpadded one joins the padded group of its own length when there is one (gpu09 and gpu10
  // fold into gpu[09-10]), else the unpadded group (node9 and node10 fold into node[9-10]).
  std::vector<Numbered> numbered;
  std::set<std::pair<std::string, std::size_t>> padded;
  std::set<std::string> plain;
  for (const auto& h : hosts) {
    Numbered n = split_name(h);
    if (n.digits.empty()) {
      plain.insert(h);
      continue;
    }
    if (n.digits.size() > 1 && n.digits[0] == '0') padded.insert({n.prefix, n.digits.size()});
    numbered.push_back(std::move(n));
  }
  std::map<std::pair<std::string, std::size_t>, std::set<long>> groups;
  for (const auto& n : numbered) {
    std::pair<std::string, std::size_t> key{n.prefix, n.digits.size()};
    if (!padded.count(key)) key.second = 0;  // 0: unpadded
    groups[key].insert(std::stol(n.digits));
  }
  auto pad = [](long v, std::size_t width) {
    std::string s = std::to_string(v);
    if (s.size() < width) s.insert(0, width - s.size(), '0');
    return s;
  };
  std::vector<std::string> parts;
  for (const auto& [key, nums] : groups) {
    const auto& [prefix, width] = key;
    if (nums.size() == 1) {
      parts.push_back(prefix + pad(*nums.begin(), width));
      continue;
    }
    std::string ranges;
    auto it = nums.begin();
    while (it != nums.end()) {
      long first = *it, last = *it;
      auto next = std::next(it);
      while (next != nums.end() && *next == last + 1) {
        last = *next;
        ++next;
      }
      if (!ranges.empty()) ranges += ",";
      ranges += pad(first, width);
      if (last != first) ranges += "-" + pad(last, width);
      it = next;
    }
    parts.push_back(prefix);
    parts.back().append("[").append(ranges).append("]");
  }
  for (const auto& p : plain) parts.push_back(p);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace plumb
