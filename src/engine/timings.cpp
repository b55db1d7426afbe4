// The --timings table and its JSON key.
#include "engine/timings.h"

#include <cstdio>

#include "analyze/trace/reader.h"
#include "core/json.h"
#include "report/table.h"
#include "core/tables.h"

namespace plumb {

namespace {


std::string status_word(const std::string& status, Lang lang) {
  std::string key = "timings.status." + (status == "timed out" ? std::string("timed_out") : status);
  return ui_strings().count(key) != 0 ? tr(lang, key) : status;
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string render_timings(const CollectionTimings& t, double command_ms, Lang lang) {
  TextTable table{{tr(lang, "timings.collector"), tr(lang, "timings.start"), tr(lang, "timings.duration"),
                   tr(lang, "timings.thread"), tr(lang, "timings.status")}};
  for (const auto& c : by_duration(t)) {
    table.push_back({c.id, ms(c.start_ms), ms(c.duration_ms), c.thread > 0 ? std::to_string(c.thread) : "-",
                     status_word(c.status, lang)});
  }
  std::string out = tr(lang, "timings.heading") + "\n" + render_table(table, "term", "  ");
  out += fill(tr(lang, "timings.total"), {{"n", std::to_string(t.collectors.size())}, {"ms", ms(t.total_ms)}}) + "\n";
  out += fill(tr(lang, "timings.command"), {{"ms", ms(command_ms)}}) + "\n";
  return out;
}

std::string render_trace_timings(const std::vector<trace::TraceFileTiming>& files, double command_ms, Lang lang) {
  TextTable table{{tr(lang, "timings.trace.file"), tr(lang, "timings.trace.step"), tr(lang, "timings.start"),
                   tr(lang, "timings.duration"), tr(lang, "timings.trace.cpu"), tr(lang, "timings.thread"),
                   tr(lang, "timings.trace.mb")}};
  auto mb = [](std::uint64_t bytes) { return ms(static_cast<double>(bytes) / 1e6); };
  for (const auto& f : files) {
    double at = f.start_ms;
    if (f.cut_ms >= 0) {
      table.push_back({f.file, fill(tr(lang, "timings.trace.cut"), {{"n", std::to_string(f.parts.size())}}), ms(at),
                       ms(f.cut_ms - at), "-", "-", "-"});
    }
    for (std::size_t k = 0; k < f.parts.size(); ++k) {
      const auto& p = f.parts[k];
      const std::string part = std::to_string(k + 1);
      std::string step = f.cut_ms >= 0 ? (f.inflater.empty() ? fill(tr(lang, "timings.trace.part"), {{"k", part}})
                                                             : fill(tr(lang, "timings.trace.part_gzip"),
                                                                    {{"k", part}, {"lib", f.inflater}}))
                         : f.inflater.empty() ? tr(lang, "timings.trace.read")
                                              : fill(tr(lang, "timings.trace.read_gzip"), {{"lib", f.inflater}});
      table.push_back({f.file, step, ms(p.start_ms), ms(p.end_ms - p.start_ms), ms(p.cpu_ms), std::to_string(p.thread),
                       mb(p.bytes)});
    }
    at = f.read_ms;
    if (f.merge_ms >= 0) {
      table.push_back({f.file, tr(lang, "timings.trace.merge"), ms(at), ms(f.merge_ms - at), "-", "-", "-"});
      at = f.merge_ms;
    }
    table.push_back({f.file, tr(lang, "timings.trace.analysis"), ms(at), ms(f.end_ms - at), "-", "-", "-"});
  }
  std::string out = tr(lang, "timings.trace.heading") + "\n" + render_table(table, "term", "  ");
  out += fill(tr(lang, "timings.trace.command"), {{"ms", ms(command_ms)}}) + "\n";
  return out;
}

std::string with_timings(const std::string& json_report, const CollectionTimings& t) {
  json doc = json::parse(json_report, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("facts") || !doc["facts"].contains("meta")) {
    return json_report;
  }
  doc["facts"]["meta"]["timings"] = timings_json(t);
  return dump_text(doc, 2) + "\n";
}

void engine_timings_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"timings.heading", {"Collector timings (wall clock, longest first)", "采集器耗时（墙钟时间，按耗时降序）"}},
    {"timings.collector", {"collector", "采集器"}},
    {"timings.status", {"status", "状态"}},
    {"timings.start", {"start ms", "开始 ms"}},
    {"timings.duration", {"duration ms", "耗时 ms"}},
    {"timings.thread", {"thread", "线程"}},
    {"timings.status.ok", {"ok", "正常"}},
    {"timings.status.error", {"error", "出错"}},
    {"timings.status.timed_out", {"timed out", "超时"}},
    {"timings.total", {"collectors run in parallel: {n}; collection wall time: {ms} ms",
                       "并行运行的采集器：{n} 个；采集墙钟时间：{ms} ms"}},
    {"timings.command", {"from the first collector to here (collection, rules, report, history): {ms} ms",
                         "从第一个采集器启动至此（采集、规则、报告、历史记录）：{ms} ms"}},
    {"timings.trace.heading", {"Trace timings (wall clock from the start of the command)", "追踪文件耗时（墙钟时间，自命令开始计）"}},
    {"timings.trace.file", {"file", "文件"}},
    {"timings.trace.step", {"step", "步骤"}},
    {"timings.trace.cpu", {"CPU ms", "CPU ms"}},
    {"timings.trace.mb", {"MB", "MB"}},
    {"timings.trace.cut", {"cut into {n} parts", "切分为 {n} 段"}},
    {"timings.trace.part", {"part {k}: read, records sorted", "第 {k} 段：读取并排序记录"}},
    {"timings.trace.part_gzip", {"part {k}: inflated by {lib}, read, records sorted", "第 {k} 段：{lib} 解压、读取并排序记录"}},
    {"timings.trace.read", {"read", "读取"}},
    {"timings.trace.read_gzip", {"read, inflated by {lib}", "读取（{lib} 解压）"}},
    {"timings.trace.merge", {"merge", "合并"}},
    {"timings.trace.analysis", {"analysis", "分析"}},
    {"timings.trace.command", {"from the start of the command to here (reading, analysis, rules, report): {ms} ms",
                               "从命令开始至此（读取、分析、规则、报告）：{ms} ms"}},
};
});
}

}  // namespace plumb
