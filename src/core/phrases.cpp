// The phrase table and its matcher (see core/phrases.h).
#include "core/phrases.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/tables.h"

namespace plumb {

namespace {

// A pattern as literal text and {name} parts, in order: parts[i] is a literal when !is_slot[i].
struct Pattern {
  std::vector<std::string> parts;
  std::vector<bool> is_slot;
  std::size_t literal_chars = 0;
  bool generic = true;  // no letter in its literal text ("{a}, {b}"): used only when a part translates
  std::string zh;
};

struct Table {
  std::vector<Phrase> rows;
  std::map<std::string, std::string, std::less<>> exact;
  std::vector<Pattern> patterns;  // most literal text first: the most specific pattern wins
};

Pattern parse_pattern(const Phrase& p) {
  Pattern out;
  out.zh = p.zh;
  std::size_t i = 0;
  std::string lit;
  while (i < p.en.size()) {
    auto close = p.en[i] == '{' ? p.en.find('}', i + 1) : std::string::npos;
    if (close != std::string::npos) {
      if (!lit.empty()) {
        out.literal_chars += lit.size();
        out.parts.push_back(lit);
        out.is_slot.push_back(false);
        lit.clear();
      }
      out.parts.push_back(p.en.substr(i + 1, close - i - 1));
      out.is_slot.push_back(true);
      i = close + 1;
      continue;
    }
    lit += p.en[i++];
  }
  if (!lit.empty()) {
    out.literal_chars += lit.size();
    out.parts.push_back(lit);
    out.is_slot.push_back(false);
  }
  for (std::size_t k = 0; k < out.parts.size(); ++k) {
    if (out.is_slot[k]) continue;
    for (char c : out.parts[k]) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) out.generic = false;
    }
  }
  return out;
}

bool has_slot(const std::string& en) {
  auto open = en.find('{');
  return open != std::string::npos && en.find('}', open) != std::string::npos;
}

// A part of a text is taken only when its brackets balance: "x) / n/a (y" is no reason.
bool balanced(std::string_view s) {
  int round = 0;
  int square = 0;
  for (char c : s) {
    round += c == '(' ? 1 : c == ')' ? -1 : 0;
    square += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (round < 0 || square < 0) return false;
  }
  return round == 0 && square == 0;
}

bool match_from(const Pattern& p, std::size_t part, std::string_view text, std::size_t pos,
                std::map<std::string, std::string>& slots) {
  if (part == p.parts.size()) return pos == text.size();
  const std::string& here = p.parts[part];
  if (!p.is_slot[part]) {
    if (text.substr(pos, here.size()) != here) return false;
    return match_from(p, part + 1, text, pos + here.size(), slots);
  }
  // A slot takes at least one character, shortest first.
  for (std::size_t end = pos + 1; end <= text.size(); ++end) {
    if (part + 1 < p.parts.size() && !p.is_slot[part + 1]) {
      const std::string& next = p.parts[part + 1];
      if (text.substr(end, next.size()) != next) continue;
    } else if (part + 1 == p.parts.size() && end != text.size()) {
      continue;
    }
    std::string_view value = text.substr(pos, end - pos);
    if (!balanced(value)) continue;
    slots[here] = std::string(value);
    if (match_from(p, part + 1, text, end, slots)) return true;
  }
  slots.erase(here);
  return false;
}

std::string localize_depth(const Table& t, std::string_view text, int depth) {
  auto it = t.exact.find(text);
  if (it != t.exact.end()) return it->second;
  if (depth > 4 || text.empty()) return std::string(text);
  // Clauses joined by "; " are looked up one by one (a reason, then a caveat): a pattern with a
  // raw part would otherwise swallow the clauses after it.
  if (auto semi = text.find("; "); semi != std::string_view::npos) {
    std::string head = localize_depth(t, text.substr(0, semi), depth + 1);
    std::string rest = localize_depth(t, text.substr(semi + 2), depth + 1);
    if (head != text.substr(0, semi) || rest != text.substr(semi + 2)) return head + "；" + rest;
  }
  for (const Pattern& p : t.patterns) {
    std::map<std::string, std::string> slots;
    if (!match_from(p, 0, text, 0, slots)) continue;
    bool changed = false;
    for (auto& [name, value] : slots) {
      if (name.rfind('=', 0) == 0) continue;
      std::string zh = localize_depth(t, value, depth + 1);
      changed = changed || zh != value;
      value = std::move(zh);
    }
    if (p.generic && !changed) continue;
    return fill(p.zh, slots);
  }
  return std::string(text);
}

void insert_phrases(Table& t, std::vector<Phrase>&& rows) {
  for (auto& r : rows) {
    if (has_slot(r.en)) {
      auto same = [&](const Phrase& q) { return q.en == r.en; };
      if (std::any_of(t.rows.begin(), t.rows.end(), same)) throw std::logic_error("duplicate phrase " + r.en);
      t.patterns.push_back(parse_pattern(r));
    } else if (!t.exact.emplace(r.en, r.zh).second) {
      throw std::logic_error("duplicate phrase " + r.en);
    }
    t.rows.push_back(std::move(r));
  }
  std::stable_sort(t.patterns.begin(), t.patterns.end(),
                   [](const Pattern& a, const Pattern& b) { return a.literal_chars > b.literal_chars; });
}

const Table& phrase_table() {
  static const Table t = [] {
    Table out;
    insert_phrases(out, std::vector<Phrase>(tables().phrases));
    return out;
  }();
  return t;
}

}  // namespace

const std::vector<Phrase>& phrases() { return phrase_table().rows; }

std::string localize(Lang lang, std::string_view text) {
  if (lang != Lang::zh) return std::string(text);
  return localize_depth(phrase_table(), text, 0);
}

std::string localize_with(std::vector<Phrase> rows, std::string_view text) {
  Table t;
  insert_phrases(t, std::move(rows));
  return localize_depth(t, text, 0);
}

}  // namespace plumb
