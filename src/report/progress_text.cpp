#include "report/progress_text.h"

#include <cmath>

#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {


std::string whole_seconds(double s) { return std::to_string(static_cast<long long>(std::floor(std::max(0.0, s)))); }

}  // namespace

std::string progress_log_read(Lang lang, const std::string& path, std::uint64_t bytes) {
  return fill(tr(lang, "progress.log_read"), {{"file", path == "-" ? "stdin" : base_name(path)}, {"bytes", human_bytes(bytes)}});
}

std::string progress_traces(Lang lang, std::size_t done, std::size_t total, std::uint64_t bytes_done, std::uint64_t bytes_total,
                            const std::string& first, double seconds) {
  if (total == 1) {
    return fill(tr(lang, "progress.trace_one"),
                {{"file", base_name(first)}, {"all", human_bytes(bytes_total)}, {"s", whole_seconds(seconds)}});
  }
  return fill(tr(lang, "progress.traces"), {{"done", std::to_string(done)},
                                            {"total", std::to_string(total)},
                                            {"bytes", human_bytes(bytes_done)},
                                            {"all", human_bytes(bytes_total)}});
}

std::string progress_nodes(Lang lang, int answered, int total, double seconds) {
  return fill(tr(lang, "progress.nodes"),
              {{"done", std::to_string(answered)}, {"total", std::to_string(total)}, {"s", whole_seconds(seconds)}});
}

void report_progress_text_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"progress.log_read", {"{file}: {bytes} read", "{file}：已读取 {bytes}"}},
    {"progress.traces", {"{done} of {total} traces read ({bytes} of {all})", "已读取 {done}/{total} 个 trace（{bytes}/{all}）"}},
    {"progress.trace_one", {"reading {file} ({all}), {s} s", "正在读取 {file}（{all}），{s} 秒"}},
    {"progress.nodes", {"results from {done} of {total} nodes, {s} s", "已收到 {done}/{total} 个节点的结果，{s} 秒"}},
};
});
}

}  // namespace plumb
