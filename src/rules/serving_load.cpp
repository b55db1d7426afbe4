// Rules judging `plumb bench serve` runs (L2, serving pillar): the tail from the intended send,
// the stability of the last windows, and requests the load generator could not send on time.
// Their fixes point down the funnel to the L3 checks that explain a bad tail on a CPU server:
// thread demand against the CPUs the container grants, oversubscribed thread pools, the memory
// limit of the cgroup.
#include <algorithm>
#include <cmath>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/thresholds.h"
#include "rules/bench_row.h"
#include "core/tables.h"

namespace plumb {

namespace {

const std::vector<std::string> kServingLoadNeeds = {"collect.bench_quick"};
constexpr const char* kTail = "l2.serving.tail_latency";
constexpr const char* kUnstable = "l2.serving.unstable";
constexpr const char* kLate = "l2.serving.late_sends";

double d(const BenchResult& r, const char* k, double def = 0) {
  auto it = r.derived.find(k);
  return it == r.derived.end() ? def : it->second;
}
std::string p(const BenchResult& r, const char* k) {
  auto it = r.params.find(k);
  return it == r.params.end() ? "" : it->second;
}
std::string note(const BenchResult& r, const char* k) {
  auto it = r.notes.find(k);
  return it == r.notes.end() ? "" : it->second;
}
std::string msf(double v) { return fmt_num(v, v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : 3); }
std::string serve_source(const BenchResult& r) { return "plumb bench serve " + p(r, "url"); }

std::string mode_of(const BenchResult& r) {
  return d(r, "closed_loop") > 0 ? "closed-loop, " + p(r, "concurrency") + " connections" : "open-loop, " + p(r, "rate") + " req/s " + p(r, "arrival");
}

template <class F>
std::vector<Finding> per_serve(const Facts& f, const char* id, F judge) {
  std::vector<Finding> out;
  for (const auto& r : f.bench.results) {
    if (r.bench != "serve") continue;
    if (r.status != "ok") {
      out.push_back(skipped(id, r.reason.empty() ? r.status : r.reason, p(r, "url")));
      continue;
    }
    Finding x = judge(r);
    x.subject = p(r, "url");
    x.arg("subject", p(r, "url"));
    out.push_back(std::move(x));
  }
  return out;
}

Finding tail(const BenchResult& r, const Thresholds& th) {
  Finding x;
  x.id = kTail;
  double n = d(r, "samples"), need = d(r, "p99_min_samples", 662);
  x.arg("mode", mode_of(r)).arg("samples", fmt_num(n, 0)).arg("need", fmt_num(need, 0));
  x.arg("p50", msf(d(r, "p50_ms"))).arg("p99", msf(d(r, "p99_ms"))).arg("max", msf(d(r, "max_ms")));
  x.arg("p999", d(r, "samples") >= d(r, "p999_min_samples", 6636) ? msf(d(r, "p999_ms")) : "n/a (not enough samples)");
  x.arg("sent_p99", msf(d(r, "sent_p99_ms"))).arg("throughput", fmt_num(d(r, "throughput"), 1));
  std::string lat = d(r, "closed_loop") > 0 ? "from the actual send (closed loop)" : "from the intended send";
  x.add("P50 / P90 / P99 / P99.9 / max " + lat,
        msf(d(r, "p50_ms")) + " / " + msf(d(r, "p90_ms")) + " / " + msf(d(r, "p99_ms")) + " / " + msf(d(r, "p999_ms")) + " / " + msf(d(r, "max_ms")) + " ms",
        serve_source(r));
  if (d(r, "closed_loop") <= 0) {
    x.add("P50 / P99 / P99.9 from the actual send", msf(d(r, "sent_p50_ms")) + " / " + msf(d(r, "sent_p99_ms")) + " / " + msf(d(r, "sent_p999_ms")) + " ms", serve_source(r));
  }
  x.add("replies", fmt_num(d(r, "ok"), 0) + " ok of " + fmt_num(d(r, "scheduled"), 0) + " (" + fmt_num(d(r, "throughput"), 1) + " req/s)", serve_source(r));
  double errors = d(r, "errors");
  x.add("errors", fmt_num(errors, 0) + " (connect " + fmt_num(d(r, "errors.connect"), 0) + ", timeout " + fmt_num(d(r, "errors.timeout"), 0) + ", HTTP 4xx " +
                      fmt_num(d(r, "errors.http_4xx"), 0) + ", HTTP 5xx " + fmt_num(d(r, "errors.http_5xx"), 0) + ", protocol " + fmt_num(d(r, "errors.protocol"), 0) + ")",
        serve_source(r));
  if (!note(r, "first_error").empty()) x.add("first error", note(r, "first_error"), serve_source(r));
  if (r.derived.count("triton.queue_ms")) {
    x.add("Triton queue / compute per request", msf(d(r, "triton.queue_ms")) + " / " + msf(d(r, "triton.compute_ms")) + " ms", "/v2/models/" + p(r, "model") + "/stats");
  }
  double scheduled = d(r, "scheduled");
  double err_share = scheduled > 0 ? 100.0 * errors / scheduled : 0;
  double err_warn = th.get("serving.error_share_warn_pct");
  x.arg("errors", fmt_num(errors, 0)).arg("error_pct", fmt_num(err_share, 2));
  if (err_share > err_warn) {
    x.status = Status::warn;
    x.variant = "errors";
    x.threshold = "errors <= " + fmt_num(err_warn, 1) + " % of requests";
    return x;
  }
  if (n < need) {
    Finding s = skipped(kTail, "not enough samples for P99: " + fmt_num(n, 0) + " replies < " + fmt_num(need, 0) +
                                   " (MLPerf LoadGen's minimum); run longer or at a higher rate");
    s.evidence = x.evidence;
    return s;
  }
  x.status = Status::info;
  if (r.derived.count("p99_bound_ms") && d(r, "p99_ms") > d(r, "p99_bound_ms")) {
    x.status = Status::fail;
    x.variant = "over_bound";
    x.arg("bound", msf(d(r, "p99_bound_ms")));
    x.threshold = "P99 <= " + msf(d(r, "p99_bound_ms")) + " ms";
    return x;
  }
  double ratio = th.get("serving.tail_ratio_warn");
  // Open loop: a tail that is there from the intended send but not from the actual send is time
  // spent waiting for a connection while the server was stalled (what closed-loop tools omit).
  // With connections to spare, the wait was the load generator's own (CPU): say so, not "server".
  if (d(r, "closed_loop") <= 0 && d(r, "p99_ms") > 2 * d(r, "sent_p99_ms") && d(r, "p99_ms") - d(r, "sent_p99_ms") > 1) {
    x.status = Status::warn;
    x.variant = d(r, "hit_connection_cap") > 0 ? "stalls" : "client_late";
    x.arg("late_pct", fmt_num(100.0 * d(r, "late_share"), 1));
    x.threshold = "P99 from the intended send <= 2 x P99 from the actual send";
    return x;
  }
  if (d(r, "p50_ms") > 0 && d(r, "p99_ms") > ratio * d(r, "p50_ms") && d(r, "p99_ms") > 1) {
    x.status = Status::warn;
    x.variant = "long_tail";
    x.arg("ratio", fmt_num(d(r, "p99_ms") / d(r, "p50_ms"), 1));
    x.threshold = "P99 <= " + fmt_num(ratio, 0) + " x P50";
  }
  return x;
}

Finding unstable(const BenchResult& r, const Thresholds&) {
  Finding x;
  x.id = kUnstable;
  x.arg("mode", mode_of(r)).arg("why", note(r, "stability"));
  for (const auto& serving_row : r.rows) {
    if (!serving_row.setting.count("window")) continue;
    x.add("window " + serving_row.setting.at("window"), fmt_num(serving_row.values.at("ok_per_s"), 1) + " req/s, P50 " + msf(serving_row.values.at("p50_ms")) + " ms, P99 " + msf(serving_row.values.at("p99_ms")) + " ms", serve_source(r));
  }
  double s = d(r, "stable", -1);
  if (s < 0) {
    Finding k = skipped(kUnstable, note(r, "stability"));
    k.evidence = x.evidence;
    return k;
  }
  x.threshold = "last 3 windows within ±10 %";
  x.status = s > 0 ? Status::pass : Status::warn;
  return x;
}

Finding late(const BenchResult& r, const Thresholds& th) {
  Finding x;
  x.id = kLate;
  if (d(r, "closed_loop") > 0) return skipped(kLate, "closed loop: requests have no intended send time");
  double share = 100.0 * d(r, "late_share");
  double warn = th.get("serving.late_share_warn_pct");
  x.arg("share", fmt_num(share, 2)).arg("late", fmt_num(d(r, "late"), 0)).arg("sent", fmt_num(d(r, "sent"), 0));
  x.arg("lag", msf(d(r, "max_send_lag_ms"))).arg("conns", fmt_num(d(r, "connections_opened"), 0)).arg("cap", p(r, "connections_max"));
  x.arg("unsent", fmt_num(d(r, "unsent"), 0));
  x.add("late sends", x.args["late"] + " of " + x.args["sent"] + " (" + x.args["share"] + " %), worst " + x.args["lag"] + " ms", serve_source(r));
  x.arg("peak", fmt_num(d(r, "peak_connections"), 0));
  x.add("connections opened / most open at once / cap", x.args["conns"] + " / " + x.args["peak"] + " / " + x.args["cap"], serve_source(r));
  x.add("never sent (deadline passed waiting)", x.args["unsent"], serve_source(r));
  x.threshold = "late share <= " + fmt_num(warn, 1) + " %";
  x.status = share > warn || d(r, "unsent") > 0 ? Status::warn : Status::pass;
  return x;
}


CatalogEntry serving_row(std::string id, Text title, std::map<std::string, Text> msgs, Text fix, std::string verify, Text gain = {}) {
  return bench_row(std::move(id), Pillar::serving, std::move(title), std::move(msgs), std::move(fix), std::move(verify),
                   std::move(gain));
}



}  // namespace
void rules_serving_load_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"serving.tail_ratio_warn", 10, "x", {"P99 above this multiple of P50 (from the intended send) warns", "P99 超过 P50 的该倍数（按计划发送时刻计）时告警"}},
    {"serving.late_share_warn_pct", 1, "%", {"share of open-loop requests sent late above which the load itself is suspect", "开环请求延迟发出的比例超过该值即说明压测本身不可信"}},
    {"serving.error_share_warn_pct", 1, "%", {"share of failed requests (connect, timeout, HTTP 4xx/5xx, protocol) above which latency figures are not comparable",
                                             "失败请求（连接、超时、HTTP 4xx/5xx、协议）比例超过该值时延迟数字不可比"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    serving_row(kTail, {"Serving tail latency under load", "负载下的推理服务尾延迟"},
        {{"info", {"P50 {p50} ms, P99 {p99} ms, P99.9 {p999}, max {max} ms at {throughput} req/s ({mode}; {samples} replies)",
                   "P50 {p50} ms，P99 {p99} ms，P99.9 {p999}，最大 {max} ms，吞吐 {throughput} req/s（{mode}；{samples} 个响应）"}},
         {"over_bound", {"P99 {p99} ms is over the bound of {bound} ms at {throughput} req/s ({mode})",
                         "P99 {p99} ms 超过上限 {bound} ms（{throughput} req/s，{mode}）"}},
         {"stalls", {"the server stalls: P99 from the intended send is {p99} ms but only {sent_p99} ms from the actual send; requests waited for a free connection, and a closed-loop tool would have reported the smaller figure ({mode})",
                     "服务端出现停顿：按计划发送时刻计 P99 为 {p99} ms，按实际发送时刻计仅 {sent_p99} ms；请求在等待空闲连接，闭环压测工具只会报告较小的数字（{mode}）"}},
         {"client_late", {"P99 from the intended send is {p99} ms but {sent_p99} ms from the actual send, with connections to spare: {late_pct} % of requests left late because the load generator itself fell behind (CPU); this tail is partly the client's ({mode})",
                          "按计划发送时刻计 P99 为 {p99} ms，按实际发送时刻计为 {sent_p99} ms，而连接并未用尽：{late_pct}% 的请求因压测端自身落后（CPU 不足）而延迟发出；这段尾延迟部分来自客户端（{mode}）"}},
         {"long_tail", {"long tail: P99 {p99} ms is {ratio}x the median {p50} ms ({mode})", "长尾：P99 {p99} ms 是中位数 {p50} ms 的 {ratio} 倍（{mode}）"}},
         {"errors", {"{errors} requests failed ({error_pct} %): latency percentiles count only the successful ones ({mode})",
                     "{errors} 个请求失败（{error_pct}%）：延迟分位数只统计了成功的请求（{mode}）"}}},
        {"client_late: give the load generator its own CPUs (taskset) or lower --rate first. Otherwise, on a CPU server, size the inference threads to the CPUs the container grants (ONNX Runtime intra_op_num_threads, torch.set_num_threads, OMP_NUM_THREADS) and run plumb check --only l3.serving.thread_demand,l3.compute.thread_oversubscription,l3.memory.cgroup_limit; then find the highest rate that meets the target with plumb bench serve URL --p99 BOUND",
         "client_late 时：先给压测端独立的 CPU（taskset）或降低 --rate。其他情况下，在 CPU 推理服务上按容器实际分配的 CPU 设置推理线程数（ONNX Runtime intra_op_num_threads、torch.set_num_threads、OMP_NUM_THREADS），并运行 plumb check --only l3.serving.thread_demand,l3.compute.thread_oversubscription,l3.memory.cgroup_limit；再用 plumb bench serve URL --p99 上限 找出满足目标的最高速率"},
        "plumb bench serve {subject} --rate R --duration 60s",
        {"P99 back near the median once the server no longer waits for CPU", "服务端不再等待 CPU 后，P99 回到中位数附近"}),
    serving_row(kUnstable, {"Serving load stability", "推理服务压测稳定性"},
        {{"pass", {"the last windows agree: {why} ({mode})", "最后几个窗口一致：{why}（{mode}）"}},
         {"warn", {"not in a steady state: {why} ({mode}); the percentiles mix a warm-up or a growing queue with the steady state",
                   "尚未进入稳态：{why}（{mode}）；分位数混入了预热阶段或不断增长的队列"}}},
        {"lengthen --warmup and --duration; if latency keeps growing at this rate the server cannot sustain it (lower --rate, or find the sustainable one with --p99); check CPU throttling with plumb check --only l3.serving.thread_demand,l3.compute.thread_oversubscription",
         "加长 --warmup 与 --duration；若在该速率下延迟持续增长，说明服务端无法承受（降低 --rate，或用 --p99 找出可持续速率）；用 plumb check --only l3.serving.thread_demand,l3.compute.thread_oversubscription 检查 CPU 限流"},
        "plumb bench serve {subject} --rate R --warmup 10s --duration 60s"),
    serving_row(kLate, {"Requests sent on schedule", "请求是否按计划发出"},
        {{"pass", {"{late} of {sent} requests left late ({share} %); the schedule held", "{sent} 个请求中 {late} 个延迟发出（{share}%）；发送计划得到遵守"}},
         {"warn", {"{late} of {sent} requests left late ({share} %, worst {lag} ms) and {unsent} never left: at most {peak} connections were open at once of {cap} allowed; the client ran out of connections or CPU, and the open-loop tail includes that wait",
                   "{sent} 个请求中 {late} 个延迟发出（{share}%，最长 {lag} ms），{unsent} 个未能发出：同时打开的连接最多 {peak} 个（上限 {cap}）；客户端连接或 CPU 不足，开环尾延迟包含了这段等待"}}},
        {"when the connections hit the cap the server is too slow for the rate (the latency is real: lower --rate or fix the server, see l3.serving.thread_demand); otherwise give the load generator more --connections, --threads or its own CPUs (taskset) away from the server",
         "若连接数达到上限，说明服务端跟不上该速率（延迟是真实的：降低 --rate 或修复服务端，见 l3.serving.thread_demand）；否则给压测端更多 --connections、--threads，或用 taskset 让它与服务端使用不同的 CPU"},
        "plumb bench serve {subject} --rate R --connections 1024"),
};
});
  t.add_rule({kTail, kServingLoadNeeds, [](const Facts& f, const Thresholds& th) { return per_serve(f, kTail, [&](const BenchResult& r) { return tail(r, th); }); }});
  t.add_rule({kUnstable, kServingLoadNeeds, [](const Facts& f, const Thresholds& th) { return per_serve(f, kUnstable, [&](const BenchResult& r) { return unstable(r, th); }); }});
  t.add_rule({kLate, kServingLoadNeeds, [](const Facts& f, const Thresholds& th) { return per_serve(f, kLate, [&](const BenchResult& r) { return late(r, th); }); }});
}

}  // namespace plumb
