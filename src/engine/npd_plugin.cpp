// node-problem-detector custom plugin output: exit code and one status line from the findings.
#include "engine/npd_plugin.h"

#include <algorithm>
#include <array>
#include <utility>

#include "engine/node_health.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "report/report.h"
#include "core/tables.h"

namespace plumb {

namespace {


const std::array<std::pair<const char*, Section>, 5> kLayers{{
    {"host", Section::environment},
    {"gpu", Section::gpu},
    {"framework", Section::framework},
    {"data", Section::data},
    {"distributed", Section::distributed},
}};

std::string layer_label(std::optional<Section> layer, Lang lang) {
  return layer ? std::string(npd_layer_name(*layer)) : tr(lang, "npd.all_layers");
}

}  // namespace

std::optional<Section> parse_npd_layer(const std::string& name) {
  for (const auto& [n, s] : kLayers) {
    if (name == n) return s;
  }
  return std::nullopt;
}

const char* npd_layer_name(Section s) {
  for (const auto& [n, sec] : kLayers) {
    if (sec == s) return n;
  }
  return section_name(s);
}

const std::vector<std::string>& npd_layer_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    v.reserve(kLayers.size());
    for (const auto& l : kLayers) v.emplace_back(l.first);
    return v;
  }();
  return names;
}

std::vector<std::string> rule_ids_of_section(Section s) {
  std::vector<std::string> ids;
  for (const auto& r : rules()) {
    if (!r.judge || !r.source.empty()) continue;
    const auto* e = find_entry(r.id);
    if (e == nullptr || e->section != s) continue;
    if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(r.id);
  }
  return ids;
}

NpdVerdict npd_verdict(const std::vector<Finding>& findings, std::optional<Section> layer, Lang lang) {
  std::vector<Finding> mine;
  for (const auto& f : findings) {
    if (!layer || section_of(f) == *layer) mine.push_back(f);
  }
  Tally t = tally(mine);
  std::map<std::string, std::string> args{{"layer", layer_label(layer, lang)}};
  NpdVerdict v;
  // A check whose collector timed out could not look: the layer is unknown, not ok.
  auto late = std::find_if(mine.begin(), mine.end(), [](const Finding& f) { return f.args.count("timed_out") > 0; });
  if (t.fail == 0 && late != mine.end()) {
    args["reason"] = late->id + ": " + late->args.at("reason");
    v.exit_code = kNpdUnknown;
    v.line = cut_utf8(one_line(fill(tr(lang, "npd.unknown"), args)), kNpdMaxLine);
    return v;
  }
  if (t.fail > 0) {
    auto fails = failing(mine);
    args["count"] = std::to_string(t.fail);
    args["first"] = finding_summary(*fails.front());
    v.exit_code = kNpdProblem;
    v.line = fill(tr(lang, "npd.problem"), args);
  } else if (t.pass + t.warn + t.info > 0) {
    args["pass"] = std::to_string(t.pass);
    args["warn"] = std::to_string(t.warn);
    args["skip"] = std::to_string(t.skip);
    v.exit_code = kNpdOk;
    v.line = fill(tr(lang, "npd.ok"), args);
  } else {
    std::string reason = tr(lang, "npd.no_checks");
    for (const auto& f : mine) {
      auto it = f.args.find("reason");
      if (f.status == Status::skip && it != f.args.end() && !it->second.empty()) {
        reason = f.id + ": " + it->second;
        break;
      }
    }
    args["reason"] = reason;
    v.exit_code = kNpdUnknown;
    v.line = fill(tr(lang, "npd.unknown"), args);
  }
  v.line = cut_utf8(one_line(v.line), kNpdMaxLine);
  return v;
}

NpdVerdict npd_unknown(const std::string& reason, Lang lang) {
  NpdVerdict v;
  v.exit_code = kNpdUnknown;
  v.line = cut_utf8(one_line(fill(tr(lang, "npd.unknown"), {{"layer", "check"}, {"reason", reason}})), kNpdMaxLine);
  return v;
}

void engine_npd_plugin_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"npd.problem", {"plumb {layer}: {count} failed: {first}", "plumb {layer}：{count} 项失败：{first}"}},
    {"npd.ok", {"plumb {layer}: ok, {pass} passed, {warn} warnings, {skip} not checked",
                "plumb {layer}：正常，{pass} 项通过，{warn} 项警告，{skip} 项未检查"}},
    {"npd.unknown", {"plumb {layer}: not checked: {reason}", "plumb {layer}：未检查：{reason}"}},
    {"npd.no_checks", {"no check of this layer ran", "本层没有检查运行"}},
    {"npd.all_layers", {"all layers", "全部层"}},
};
});
}

}  // namespace plumb
