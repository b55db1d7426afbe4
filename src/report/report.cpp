// Renderer and environment-line registries, report ordering and tallies.
#include "report/report.h"

#include <algorithm>
#include <map>

#include "core/catalog.h"

namespace plumb {

namespace {
std::vector<RendererInfo>& renderer_table() {
  static std::vector<RendererInfo> t;
  return t;
}
std::multimap<int, EnvLinesFn>& env_table() {
  static std::multimap<int, EnvLinesFn> t;
  return t;
}
std::multimap<int, ReportBlock>& block_table() {
  static std::multimap<int, ReportBlock> t;
  return t;
}
}  // namespace

bool register_renderer(RendererInfo r) {
  renderer_table().push_back(std::move(r));
  return true;
}

const RendererInfo* find_renderer(const std::string& name) {
  for (const auto& r : renderer_table()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::vector<std::string> renderer_names() {
  std::vector<std::string> n;
  for (const auto& r : renderer_table()) n.push_back(r.name);
  std::sort(n.begin(), n.end());
  return n;
}

bool register_env_lines(int order, EnvLinesFn fn) {
  env_table().emplace(order, std::move(fn));
  return true;
}

std::vector<EnvLine> environment_lines(const Facts& facts) {
  std::vector<EnvLine> out;
  for (const auto& [order, fn] : env_table()) {
    for (auto& l : fn(facts)) out.push_back(std::move(l));
  }
  return out;
}

bool register_report_block(int order, ReportBlock b) {
  block_table().emplace(order, std::move(b));
  return true;
}

std::string report_blocks(const Report& r, Section s, const RenderOptions& o, const std::string& format) {
  std::string out;
  for (const auto& [order, b] : block_table()) {
    if (b.section == s) out += b.render(r, o, format);
  }
  return out;
}

Section section_of(const Finding& f) {
  const auto* e = find_entry(f.id);
  return e == nullptr ? Section::environment : e->section;
}

Layer layer_of(const Finding& f) {
  const auto* e = find_entry(f.id);
  return e == nullptr ? Layer::L3 : e->layer;
}

std::vector<const Finding*> ordered(const std::vector<Finding>& findings) {
  std::vector<const Finding*> v;
  for (const auto& f : findings) v.push_back(&f);
  std::stable_sort(v.begin(), v.end(), [](const Finding* a, const Finding* b) {
    auto ka = std::make_tuple(section_of(*a), a->status, a->id, a->subject);
    auto kb = std::make_tuple(section_of(*b), b->status, b->id, b->subject);
    return ka < kb;
  });
  return v;
}

Tally tally(const std::vector<Finding>& findings) {
  Tally t;
  for (const auto& f : findings) {
    switch (f.status) {
      case Status::fail: ++t.fail; break;
      case Status::warn: ++t.warn; break;
      case Status::skip: ++t.skip; break;
      case Status::info: ++t.info; break;
      case Status::pass: ++t.pass; break;
    }
  }
  return t;
}

}  // namespace plumb

namespace plumb {

Funnel build_funnel(const Report& r) {
  Funnel out;
  std::map<std::string, const Finding*> first;
  for (const auto& f : r.findings) {
    auto it = out.worst.find(f.id);
    if (it == out.worst.end() || f.status < it->second) out.worst[f.id] = f.status;
    first.emplace(f.id, &f);
  }
  auto bad = [&](const std::string& id) {
    auto it = out.worst.find(id);
    return it != out.worst.end() && (it->second == Status::fail || it->second == Status::warn);
  };
  for (const auto& entry : out.worst) {
    const std::string& id = entry.first;
    const CatalogEntry* e = find_entry(id);
    if (e == nullptr || !bad(id)) continue;
    if (e->layer == Layer::L2) out.l2_causes.push_back({id, l3_causes_of(id), true, first[id]});
  }
  for (const auto& entry : out.worst) {
    const std::string& id = entry.first;
    const CatalogEntry* e = find_entry(id);
    if (e == nullptr || e->layer != Layer::L3 || !bad(id) || e->explains.empty()) continue;
    FunnelLink l{id, e->explains, false, first[id]};
    for (const auto& l2 : e->explains) l.observed |= out.worst.count(l2) > 0;
    out.l3_explains.push_back(std::move(l));
  }
  return out;
}

}  // namespace plumb
