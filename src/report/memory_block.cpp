// The caching-allocator block of the text reports (`plumb memory`, GPU layer): per file, one row
// per device with allocated, reserved and non-releasable memory, allocations, segments, OOMs and
// cudaMalloc retries; then the OOM messages found.
#include "analyze/memory_stats.h"
#include "report/report.h"
#include "report/table.h"
#include "core/tables.h"

namespace plumb {
namespace {

std::string bytes(const std::optional<std::uint64_t>& v) { return v ? memory_bytes_text(*v) : std::string("n/a"); }
std::string count(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : std::string("n/a"); }

std::string memory_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const AllocatorFacts& a = r.facts.allocator;
  if (!a.collected) return {};
  const Lang lang = o.lang;
  std::string out;
  for (const auto& file : a.files) {
    out += block_heading(fill(tr(lang, "memory.file"), {{"file", file.file},
                                                        {"format", file.format},
                                                        {"devices", std::to_string(file.devices.size())},
                                                        {"ooms", std::to_string(file.ooms.size())}}),
                         format);
    if (!file.devices.empty()) {
      TextTable t{{tr(lang, "memory.col.device"), tr(lang, "memory.col.allocated"), tr(lang, "memory.col.reserved"),
                   tr(lang, "memory.col.nonrel"), tr(lang, "memory.col.allocs"), tr(lang, "memory.col.segments"),
                   tr(lang, "memory.col.ooms"), tr(lang, "memory.col.retries")}};
      for (const auto& d : file.devices) {
        t.push_back({"cuda:" + d.device, bytes(d.allocated_bytes.current) + " / " + bytes(d.allocated_bytes.peak),
                     bytes(d.reserved_bytes.current) + " / " + bytes(d.reserved_bytes.peak),
                     bytes(d.inactive_split_bytes.current), count(d.allocations.current), count(d.segments.current),
                     count(d.num_ooms), count(d.num_alloc_retries)});
      }
      out += render_table(t, format, "    ") + (format == "md" ? "\n" : "");
    }
    for (const auto& m : file.ooms) out += block_line("cuda:" + m.device + ": " + m.text, format);
    if (format != "html") out += "\n";
  }
  return out;
}



}  // namespace
void report_memory_block_tables(Tables& t, ReportTables& r) {
  r.add_report_block(50, {Section::gpu, memory_block});
  t.add_ui([] {
  return std::vector<UiString>{
    {"memory.file", {"{file} ({format}, {devices} device(s), {ooms} OOM message(s))",
                     "{file}（{format}，{devices} 个设备，{ooms} 条 OOM 报错）"}},
    {"memory.col.device", {"device", "设备"}},
    {"memory.col.allocated", {"allocated (current / peak)", "已分配（当前 / 峰值）"}},
    {"memory.col.reserved", {"reserved (current / peak)", "已保留（当前 / 峰值）"}},
    {"memory.col.nonrel", {"non-releasable", "不可释放"}},
    {"memory.col.allocs", {"allocations", "分配数"}},
    {"memory.col.segments", {"segments", "段数"}},
    {"memory.col.ooms", {"OOMs", "OOM 次数"}},
    {"memory.col.retries", {"cudaMalloc retries", "cudaMalloc 重试"}},
};
});
}

}  // namespace plumb
