// The catalogue table and the lookups that turn a Finding into words.
#include "core/catalog.h"

#include <algorithm>
#include <stdexcept>

#include "core/phrases.h"
#include "core/tables.h"

namespace plumb {

namespace {
using CatalogMap = std::map<std::string, CatalogEntry>;

// The rows, and the reverse funnel links kept as rows arrive: for each id an L3 row explains, the
// ids of the rows that explain it, sorted as the rows are (l3_causes_of).
struct Catalogue {
  CatalogMap rows;
  std::map<std::string, std::vector<std::string>, std::less<>> causes;
};

void insert_findings(Catalogue& t, std::vector<CatalogEntry>&& rows) {
  for (auto& r : rows) {
    std::string id = r.id;
    auto [it, added] = t.rows.emplace(id, std::move(r));
    if (!added) throw std::logic_error("duplicate finding id " + id);
    for (const auto& x : it->second.explains) {
      auto& ids = t.causes[x];
      ids.insert(std::upper_bound(ids.begin(), ids.end(), id), id);
    }
  }
}

const Catalogue& catalogue() {
  static const Catalogue c = [] {
    Catalogue out;
    insert_findings(out, std::vector<CatalogEntry>(tables().findings));
    return out;
  }();
  return c;
}

const CatalogMap& catalog_table() { return catalogue().rows; }

// The values of a finding's placeholders in the report's language: an English reason or phrase
// among them ("no nccl-tests log given") is translated, values and identifiers stay as they are.
std::map<std::string, std::string> args_in(const Finding& f, Lang lang) {
  if (lang == Lang::en) return f.args;
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : f.args) out[k] = localize(lang, v);
  return out;
}

const Text* message_for(const CatalogEntry& e, const Finding& f) {
  std::vector<std::string> tries;
  if (!f.variant.empty()) tries.push_back(f.variant);
  tries.emplace_back(status_name(f.status));
  if (f.status == Status::warn) tries.emplace_back("fail");
  if (f.status == Status::fail) tries.emplace_back("warn");
  if (f.status == Status::info) tries.emplace_back("pass");
  for (const auto& k : tries) {
    auto it = e.messages.find(k);
    if (it != e.messages.end()) return &it->second;
  }
  return nullptr;
}
}  // namespace

namespace {
// The aliases, checked once: a bad or duplicate one is a programming error.
const std::vector<IdAlias>& alias_table() {
  static const std::vector<IdAlias> t = [] {
    const auto& all = tables().aliases;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const IdAlias& a = all[i];
      if (a.from.empty() || a.to.empty() || a.from == a.to) throw std::logic_error("bad alias '" + a.from + "' -> '" + a.to + "'");
      for (std::size_t j = 0; j < i; ++j) {
        if (all[j].from == a.from) throw std::logic_error("duplicate alias " + a.from);
      }
    }
    return all;
  }();
  return t;
}
}  // namespace

const CatalogEntry* find_entry(const std::string& id) {
  auto it = catalog_table().find(id);
  if (it == catalog_table().end()) it = catalog_table().find(canonical_id(id));
  return it == catalog_table().end() ? nullptr : &it->second;
}

const std::vector<IdAlias>& aliases() { return alias_table(); }

std::string canonical_id(const std::string& id) {
  std::string cur = id;
  // Bounded: a cycle of aliases is a programming error the catalogue test reports.
  for (std::size_t hops = 0; hops <= alias_table().size(); ++hops) {
    auto it = std::find_if(alias_table().begin(), alias_table().end(), [&](const IdAlias& a) { return a.from == cur; });
    if (it == alias_table().end()) return cur;
    cur = it->to;
  }
  return cur;
}

const std::map<std::string, CatalogEntry>& catalog() { return catalog_table(); }

std::string finding_message(const Finding& f, Lang lang) {
  const auto* e = find_entry(f.id);
  if (e == nullptr) return f.id;
  if (f.status == Status::skip && f.variant.empty() && !e->messages.count("skip")) {
    // Every check can be skipped; the generic sentence names the reason.
    std::string reason = f.args.count("reason") ? localize(lang, f.args.at("reason")) : std::string("?");
    return fill(tr(lang, "finding.skipped"), {{"reason", reason}});
  }
  const Text* m = message_for(*e, f);
  if (m == nullptr) return e->title.in(lang);
  return fill(m->in(lang), args_in(f, lang));
}

namespace {
// A fix, verify command and gain speak to a finding that calls for action: a check that passed or
// could not run has none (its row's texts name values such a finding does not carry).
bool acts(const Finding& f) { return f.status != Status::pass && f.status != Status::skip; }
}  // namespace

std::string finding_fix(const Finding& f, Lang lang) {
  const auto* e = find_entry(f.id);
  return e == nullptr || !acts(f) ? std::string() : fill(e->fix.in(lang), args_in(f, lang));
}

std::string finding_verify(const Finding& f) {
  const auto* e = find_entry(f.id);
  return e == nullptr || !acts(f) ? std::string() : fill(e->verify, f.args);
}

std::string finding_gain(const Finding& f, Lang lang) {
  const auto* e = find_entry(f.id);
  return e == nullptr || !acts(f) ? std::string() : fill(e->gain.in(lang), args_in(f, lang));
}

std::vector<std::string> l3_causes_of(const std::string& l2_id) {
  const auto& causes = catalogue().causes;
  auto it = causes.find(canonical_id(l2_id));
  return it == causes.end() ? std::vector<std::string>() : it->second;
}

}  // namespace plumb
