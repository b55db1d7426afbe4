// Distributed layer, L2: nccl-tests results judged against the bottleneck link's busbw ceiling
// (a healthy all-reduce reaches 80 % of the link's bandwidth), and data errors or unfinished runs.
#include <algorithm>

#include "analyze/nccl_tests.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

const char* kNoLog = "no nccl-tests log given (run `plumb nccl-tests LOG`)";

std::vector<Finding> judge_busbw(const Facts& f, const Thresholds& th) {
  const std::string id = "l2.comm.allreduce_slow";
  if (f.comm.nccl_tests.empty()) return {skipped(id, kNoLog)};
  double frac = th.get("comm.busbw_min_percent") / 100.0;
  std::vector<Finding> out;
  for (const auto& run : f.comm.nccl_tests) {
    BusbwSummary s = summarize(run);
    if (!run.ceiling.has()) {
      out.push_back(skipped(id, "no expected bandwidth: " + run.ceiling.why(), run.origin));
      continue;
    }
    if (!s.large_avg) {
      out.push_back(skipped(id, "largest message is " + human_bytes(s.max_size) + "; busbw is judged on sizes >= 1 GiB (run with -e 8G)",
                            run.origin));
      continue;
    }
    const BusbwCeiling& c = *run.ceiling;
    Finding x;
    x.id = id;
    x.subject = run.origin;
    // The ceiling is the link's nominal rate; NCCL reaches `expected` of it, and the run must reach
    // the threshold share of that.
    double expected = c.expected > 0 ? std::min(c.expected, c.gbps) : c.gbps;
    double need = expected * frac;
    // The share of what the verdict compares with: what NCCL reaches on the link, not its nominal rate.
    double pct = expected > 0 ? 100.0 * *s.large_avg / expected : 0;
    std::string path = c.path.empty() ? std::string("intra-node") : c.path;
    x.arg("busbw", fmt_num(*s.large_avg, 1)).arg("ceiling", fmt_num(c.gbps, 1)).arg("link", c.link)
        .arg("formula", c.formula).arg("pct", fmt_num(pct, 0)).arg("need", fmt_num(need, 1))
        .arg("expected", fmt_num(expected, 1)).arg("path", path).arg("source", c.source)
        .arg("coll", run.collective.empty() ? std::string("nccl-tests") : run.collective)
        .arg("peak", s.peak ? fmt_num(*s.peak, 1) : std::string("?"));
    x.add("busbw, mean of sizes >= 1 GiB", fmt_num(*s.large_avg, 2) + " GB/s (" + std::to_string(s.large_samples) + " values)", run.origin);
    if (s.peak) x.add("peak busbw", fmt_num(*s.peak, 2) + " GB/s at " + human_bytes(s.peak_size), run.origin);
    if (run.avg_busbw) x.add("nccl-tests 'Avg bus bandwidth' (every size, not a peak)", fmt_num(*run.avg_busbw, 3) + " GB/s", run.origin);
    x.add("ceiling (nominal, per direction)", fmt_num(c.gbps, 1) + " GB/s = " + c.formula + " (" + c.link + ")", c.source);
    x.add("NCCL reaches on this link", fmt_num(expected, 1) + " GB/s", c.source);
    x.add("path judged", path + (c.assumed ? ", assumed" : ""), c.source);
    x.threshold = ">= " + fmt_num(frac * 100, 0) + " % of " + fmt_num(expected, 1) + " GB/s = " + fmt_num(need, 1) +
                  " GB/s, and <= the ceiling " + fmt_num(c.gbps, 1) + " GB/s";
    if (*s.large_avg > c.gbps) {
      // Above the link's nominal rate: the ceiling does not describe this run.
      x.status = Status::warn;
      x.variant = "above";
    } else if (*s.large_avg >= need) {
      x.status = Status::pass;
      if (c.assumed) x.variant = "pass_assumed";
    } else if (c.assumed) {
      // A guessed link never fails a run: say what was assumed and how to give the real one.
      x.status = Status::warn;
      x.variant = "low_assumed";
    } else {
      x.status = Status::fail;
    }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> judge_errors(const Facts& f, const Thresholds&) {
  const std::string id = "l2.comm.nccl_tests_errors";
  if (f.comm.nccl_tests.empty()) return {skipped(id, kNoLog)};
  std::vector<Finding> out;
  for (const auto& run : f.comm.nccl_tests) {
    BusbwSummary s = summarize(run);
    Finding x;
    x.id = id;
    x.subject = run.origin;
    x.arg("wrong", fmt_num(s.wrong, 0)).arg("rows", std::to_string(s.wrong_rows))
        .arg("oob", run.out_of_bounds ? std::to_string(*run.out_of_bounds) : std::string("?"))
        .arg("count", std::to_string(run.rows.size()));
    x.add("#wrong (sum)", fmt_num(s.wrong, 0) + " in " + std::to_string(s.wrong_rows) + " rows", run.origin);
    x.add("Out of bounds values", run.out_of_bounds ? std::to_string(*run.out_of_bounds) : "not printed", run.origin);
    x.add("rows", std::to_string(run.rows.size()) + (run.footer_seen ? "" : ", no footer"), run.origin);
    x.threshold = "#wrong == 0, out of bounds == 0, footer present";
    if (s.wrong > 0 || run.out_of_bounds.value_or(0) > 0) {
      x.status = Status::fail;
    } else if (run.truncated) {
      x.status = Status::warn;
      x.variant = "truncated";
    } else {
      x.status = Status::pass;
    }
    out.push_back(std::move(x));
  }
  return out;
}




}  // namespace
void rules_comm_nccl_tests_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"comm.busbw_min_percent", 80, "%",
     {"nccl-tests busbw (sizes >= 1 GiB) must reach this share of what NCCL achieves on the bottleneck link",
      "nccl-tests 的 busbw（消息 >= 1 GiB）须达到 NCCL 在瓶颈链路上可达带宽的该比例"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l2.comm.allreduce_slow", Layer::L2, Pillar::comm, Section::distributed,
     {"Collective bus bandwidth against the link", "集合通信总线带宽与链路上限"},
     {{"pass", {"{coll}: busbw {busbw} GB/s is {pct} % of the {expected} GB/s NCCL reaches on {link} (nominal {ceiling} GB/s: {formula}; path: {path}); {need} GB/s or more passes",
                "{coll}：busbw {busbw} GB/s，为 NCCL 在 {link} 上可达的 {expected} GB/s 的 {pct} %（标称 {ceiling} GB/s：{formula}；路径：{path}）；不低于 {need} GB/s 即通过"}},
      {"pass_assumed", {"{coll}: busbw {busbw} GB/s is {pct} % of the {expected} GB/s NCCL reaches on the assumed {link} (nominal {ceiling} GB/s: {formula}; path: {path}; {source})",
                        "{coll}：busbw {busbw} GB/s，为 NCCL 在假定的 {link} 上可达的 {expected} GB/s 的 {pct} %（标称 {ceiling} GB/s：{formula}；路径：{path}；{source}）"}},
      {"fail", {"{coll}: busbw {busbw} GB/s is only {pct} % of the {expected} GB/s NCCL reaches on {link} (nominal {ceiling} GB/s: {formula}; path: {path}); at least {need} GB/s expected",
                "{coll}：busbw {busbw} GB/s 仅为 NCCL 在 {link} 上可达的 {expected} GB/s 的 {pct} %（标称 {ceiling} GB/s：{formula}；路径：{path}）；应不低于 {need} GB/s"}},
      {"low_assumed", {"{coll}: busbw {busbw} GB/s is {pct} % of the {expected} GB/s NCCL reaches on the assumed {link} (nominal {ceiling} GB/s: {formula}; path: {path}); below {need} GB/s, but the link is a guess ({source}), so this is no verdict",
                       "{coll}：busbw {busbw} GB/s，为 NCCL 在假定的 {link} 上可达的 {expected} GB/s 的 {pct} %（标称 {ceiling} GB/s：{formula}；路径：{path}）；低于 {need} GB/s，但链路系推测（{source}），不作判定"}},
      {"above", {"{coll}: busbw {busbw} GB/s is above the {link} ceiling {ceiling} GB/s ({formula}; path: {path}): the ceiling is unknown or wrong for this run (or NVLS / SHARP in-network reduction is at work); give the real link with --topo-text or --link",
                 "{coll}：busbw {busbw} GB/s 高于 {link} 上限 {ceiling} GB/s（{formula}；路径：{path}）：该上限未知或有误（或 NVLS / SHARP 网内归约在起作用）；请用 --topo-text 或 --link 给出实际链路"}}},
     {"Follow the L3 causes listed for this effect (transport disabled, IB down, GPUs across sockets, wrong topology file); rerun with NCCL_DEBUG=INFO to see the transports chosen",
      "按本现象对应的 L3 根因逐项排查（传输被禁用、IB 未激活、GPU 跨路、拓扑文件错误）；加 NCCL_DEBUG=INFO 重跑查看所选传输"},
     "all_reduce_perf -b 1G -e 8G -f 2 -g <gpus>",
     {},
     {}},
    {"l2.comm.nccl_tests_errors", Layer::L2, Pillar::comm, Section::distributed,
     {"nccl-tests data errors and completeness", "nccl-tests 数据错误与完整性"},
     {{"pass", {"{count} rows, no wrong values, out of bounds {oob}", "{count} 行结果，无错误值，越界 {oob}"}},
      {"fail", {"{wrong} wrong elements in {rows} rows, out-of-bounds values {oob}: the collective returned corrupted data (hardware, driver or a forced unsupported protocol)",
                "{rows} 行中共有 {wrong} 个错误元素，越界值 {oob}：集合通信返回了损坏的数据（硬件、驱动或强制了不支持的协议）"}},
      {"truncated", {"the log ends without the nccl-tests footer: the run stopped early (crash, timeout, or the log was cut)",
                     "日志缺少 nccl-tests 结尾：运行提前结束（崩溃、超时或日志被截断）"}}},
     {"Rerun with NCCL_DEBUG=WARN; check `dmesg` for Xid errors; remove NCCL_PROTO/NCCL_ALGO overrides",
      "加 NCCL_DEBUG=WARN 重跑；检查 `dmesg` 中的 Xid 错误；删除 NCCL_PROTO/NCCL_ALGO 覆盖项"},
     "all_reduce_perf -b 8 -e 8G -f 2 -c 1 -g <gpus>",
     {},
     {}},
};
});
  t.add_rule({"l2.comm.allreduce_slow", {}, judge_busbw});
  t.add_rule({"l2.comm.nccl_tests_errors", {}, judge_errors});
}

}  // namespace plumb
