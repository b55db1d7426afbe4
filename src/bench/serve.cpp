// `plumb bench serve URL`: open-loop (or labelled closed-loop) HTTP load with honest tails.
#include "bench/serve.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "bench/serve_codec.h"
#include "bench/stats.h"
#include "core/duration.h"
#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {

constexpr std::size_t kMaxBodyFile = 64ULL * 1024 * 1024;

const std::string* serve_option(const BenchOptions& o, const char* k) {
  auto it = o.serve.find(k);
  return it == o.serve.end() || it->second.empty() ? nullptr : &it->second;
}

Result<std::chrono::nanoseconds> duration_opt(const BenchOptions& o, const char* k, std::chrono::nanoseconds def) {
  const std::string* v = serve_option(o, k);
  if (v == nullptr) return def;
  auto d = watch::parse_duration(*v);
  if (!d) return make_error(ErrorKind::invalid, std::string("--") + k + " " + *v + ": " + d.error().message);
  return std::chrono::duration_cast<std::chrono::nanoseconds>(*d);
}

double ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }

BenchMetric single(const std::string& name, const std::string& unit, bool higher, double v) {
  return make_metric(name, unit, higher, {v});
}

std::string pct_name(double p) {
  if (p == 99.9) return "p999";
  return "p" + fmt_num(p, 0);
}

// A regular file only (a FIFO would block, a directory read as an empty body), at most 64 MiB.
Result<std::string> read_body_file(const std::string& path) {
  auto s = read_user_file(path, kMaxBodyFile);
  if (!s) return make_error(ErrorKind::invalid, "--body " + s.error().message);
  return s;
}

}  // namespace

Result<ServeSettings> serve_settings(const BenchOptions& o) {
  ServeSettings s;
  s.url_text = o.target;
  auto url = httpc::parse_url(o.target);
  if (!url) return url.error();
  LoadPlan& p = s.plan;
  p.url = *url;
  for (const auto& kv : o.serve) {
    const std::string& k = kv.first;
    static const char* known[] = {"rate", "arrival", "concurrency", "connections", "p99", "api", "method", "body", "model",
                                  "shape", "datatype", "input-name", "prompt", "max-tokens", "no-stream", "triton-stats",
                                  "duration", "warmup", "timeout", "late-after", "seed"};
    if (std::none_of(std::begin(known), std::end(known), [&](const char* x) { return k == x; })) {
      return make_error(ErrorKind::invalid, "bench serve: unknown option --" + k);
    }
  }
  if (const auto* v = serve_option(o, "rate")) {
    auto r = parse_double(*v);
    if (!r || *r <= 0 || *r > 10000000) return make_error(ErrorKind::invalid, "--rate " + *v + ": expected requests per second above 0");
    p.rate = *r;
  }
  if (const auto* v = serve_option(o, "concurrency")) {
    auto c = parse_uint(*v);
    if (!c || *c == 0 || *c > 100000) return make_error(ErrorKind::invalid, "--concurrency " + *v + ": expected a number of connections from 1");
    p.concurrency = static_cast<unsigned>(*c);
    p.closed_loop = true;
  }
  if (const auto* v = serve_option(o, "p99")) {
    auto d = watch::parse_duration(*v);
    if (!d) return make_error(ErrorKind::invalid, "--p99 " + *v + ": " + d.error().message);
    s.p99_bound_ms = static_cast<double>(d->count());
  }
  if (p.closed_loop && p.rate > 0) return make_error(ErrorKind::invalid, "bench serve: --rate (open loop) and --concurrency (closed loop) exclude each other");
  if (p.closed_loop && s.p99_bound_ms) return make_error(ErrorKind::invalid, "bench serve: the --p99 sweep varies the open-loop rate; drop --concurrency");
  if (!p.closed_loop && p.rate <= 0 && !s.p99_bound_ms) return make_error(ErrorKind::invalid, "bench serve: give --rate R (open loop), --concurrency N (closed loop) or --p99 BOUND (rate sweep)");
  if (const auto* v = serve_option(o, "arrival")) {
    if (!parse_arrival(*v, p.arrival)) return make_error(ErrorKind::invalid, "--arrival " + *v + ": expected constant or poisson");
  }
  if (const auto* v = serve_option(o, "connections")) {
    auto c = parse_uint(*v);
    if (!c || *c == 0 || *c > 100000) return make_error(ErrorKind::invalid, "--connections " + *v + ": expected a number from 1");
    p.connections = static_cast<unsigned>(*c);
  }
  if (const auto* v = serve_option(o, "seed")) {
    auto c = parse_uint(*v);
    if (!c) return make_error(ErrorKind::invalid, "--seed " + *v + ": expected a number");
    p.seed = *c;
  }
  if (o.threads > 0) p.threads = static_cast<unsigned>(std::min(o.threads, 64));
  auto dur = duration_opt(o, "duration", std::chrono::seconds(10));
  if (!dur) return dur.error();
  p.duration = *dur;
  if (serve_option(o, "warmup") != nullptr && *serve_option(o, "warmup") == "0") {
    p.warmup = std::chrono::nanoseconds(0);
  } else {
    auto warm = duration_opt(o, "warmup", std::chrono::seconds(2));
    if (!warm) return warm.error();
    p.warmup = *warm;
  }
  auto to = duration_opt(o, "timeout", std::chrono::seconds(10));
  if (!to) return to.error();
  p.request_timeout = *to;
  auto late = duration_opt(o, "late-after", std::chrono::milliseconds(1));
  if (!late) return late.error();
  p.late_after = *late;
  p.threads = std::max(1U, p.threads);

  s.api = serve_option(o, "api") ? *serve_option(o, "api") : "raw";
  s.model = serve_option(o, "model") ? *serve_option(o, "model") : "";
  s.triton_stats = serve_option(o, "triton-stats") != nullptr;
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& h : o.headers) {
    auto kv = httpc::parse_header_arg(h);
    if (!kv) return kv.error();
    headers.push_back(*kv);
  }
  std::string method = serve_option(o, "method") ? *serve_option(o, "method") : "";
  for (char c : method) {
    if (c < 'A' || c > 'Z') return make_error(ErrorKind::invalid, "--method " + method + ": expected an upper-case token such as GET or POST");
  }
  std::string body;
  bool root = p.url.target == "/";
  auto json_header = [&] {
    bool has = std::any_of(headers.begin(), headers.end(), [](const auto& h) {
      std::string k = h.first;
      std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      return k == "content-type";
    });
    if (!has) headers.emplace_back("Content-Type", "application/json");
  };
  if (s.api == "raw") {
    if (const auto* f = serve_option(o, "body")) {
      auto b = read_body_file(*f);
      if (!b) return b.error();
      body = std::move(*b);
    }
    if (method.empty()) method = body.empty() ? "GET" : "POST";
  } else if (s.api == "oip") {
    if (s.model.empty()) return make_error(ErrorKind::invalid, "bench serve --api oip: name the model with --model M");
    serving::OipInput in;
    if (const auto* v = serve_option(o, "input-name")) in.name = *v;
    auto shape = serving::parse_shape(serve_option(o, "shape") ? *serve_option(o, "shape") : "1,4");
    if (!shape) return shape.error();
    in.shape = *shape;
    if (const auto* v = serve_option(o, "datatype")) in.datatype = *v;
    auto b = serving::oip_infer_body(in);
    if (!b) return b.error();
    body = std::move(*b);
    if (root) p.url.target = serving::oip_infer_path(s.model);
    if (method.empty()) method = "POST";
    json_header();
  } else if (s.api == "openai" || s.api == "openai-chat") {
    if (s.model.empty()) return make_error(ErrorKind::invalid, "bench serve --api " + s.api + ": name the model with --model M");
    serving::OpenAiRequest rq;
    rq.api = s.api == "openai" ? serving::OpenAiApi::completions : serving::OpenAiApi::chat;
    rq.model = s.model;
    if (const auto* v = serve_option(o, "prompt")) rq.prompt = *v;
    if (const auto* v = serve_option(o, "max-tokens")) {
      auto n = parse_uint(*v);
      if (!n || *n == 0 || *n > 1000000) return make_error(ErrorKind::invalid, "--max-tokens " + *v + ": expected a number from 1");
      rq.max_tokens = static_cast<int>(*n);
    }
    rq.stream = serve_option(o, "no-stream") == nullptr;
    body = serving::openai_body(rq);
    if (root) p.url.target = serving::openai_path(rq.api);
    if (method.empty()) method = "POST";
    json_header();
    p.sse = rq.stream;
  } else {
    return make_error(ErrorKind::invalid, "--api " + s.api + ": expected raw, oip, openai or openai-chat");
  }
  if (s.triton_stats && s.model.empty()) return make_error(ErrorKind::invalid, "bench serve --triton-stats: name the model with --model M");
  p.head_request = method == "HEAD";
  p.request = httpc::build_request(method, p.url, headers, body);
  return s;
}

Stability judge_stability(const std::vector<LoadWindow>& w, double window_s) {
  Stability s;
  if (w.size() < 3) {
    s.why = "fewer than 3 windows";
    return s;
  }
  std::vector<LoadWindow> last(w.end() - 3, w.end());
  for (const auto& x : last) {
    if (x.ok < 20) {
      s.why = "not enough replies per window (" + std::to_string(x.ok) + " < 20) to judge";
      return s;
    }
  }
  s.judged = true;
  double mean_ok = 0, mean_p50 = 0;
  for (const auto& x : last) {
    mean_ok += static_cast<double>(x.ok) / 3;
    mean_p50 += x.p50_ms / 3;
  }
  for (const auto& x : last) {
    double ok = static_cast<double>(x.ok);
    if (std::fabs(ok - mean_ok) > 0.10 * mean_ok) {
      s.why = "replies per second of the last windows vary beyond ±10 % (" + fmt_num(ok / window_s, 1) + " vs mean " + fmt_num(mean_ok / window_s, 1) + ")";
      return s;
    }
    if (std::fabs(x.p50_ms - mean_p50) > std::max(0.10 * mean_p50, 1.0)) {
      s.why = "median latency of the last windows varies beyond ±10 % (" + fmt_num(x.p50_ms, 2) + " ms vs mean " + fmt_num(mean_p50, 2) + " ms)";
      return s;
    }
  }
  s.stable = true;
  s.why = "last 3 windows within ±10 % in replies/s and median latency";
  return s;
}

BenchRow sweep_row(double rate, const LoadResult& lr) {
  BenchRow row;
  row.setting["rate"] = fmt_num(rate, rate >= 100 ? 0 : 1);
  row.values["p50_ms"] = ms(lr.from_intended.percentile(50));
  row.values["p99_ms"] = ms(lr.from_intended.percentile(99));
  row.values["ok_per_s"] = lr.measured_s > 0 ? static_cast<double>(lr.ok) / lr.measured_s : 0;
  row.values["late_pct"] = lr.sent ? 100.0 * static_cast<double>(lr.late) / static_cast<double>(lr.sent) : 0;
  row.values["errors"] = static_cast<double>(lr.errors());
  row.values["samples"] = static_cast<double>(lr.from_intended.count());
  return row;
}

void fill_serve_result(BenchResult& r, const LoadResult& lr, const LoadPlan& plan) {
  const LatencyHistogram& lat = lr.from_intended;
  std::uint64_t n = lat.count();
  // Percentiles below MLPerf LoadGen's minimum count are not reported as metrics (a baseline
  // would otherwise compare noise); the note says why and gives the count needed.
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    std::uint64_t need = p >= 99 ? mlperf_min_queries(p) : 1;
    std::string name = "serve.latency." + pct_name(p);
    if (n == 0) continue;
    if (n < need) {
      r.notes[name] = "not enough samples: " + std::to_string(n) + " < " + std::to_string(need) + " (MLPerf LoadGen's minimum for this percentile)";
      continue;
    }
    r.metrics.push_back(single(name, "ms", false, ms(lat.percentile(p))));
    r.metrics.push_back(single("serve.latency_sent." + pct_name(p), "ms", false, ms(lr.from_sent.percentile(p))));
  }
  if (n > 0) {
    r.metrics.push_back(single("serve.latency.max", "ms", false, ms(lat.max())));
    r.metrics.push_back(single("serve.latency_sent.max", "ms", false, ms(lr.from_sent.max())));
  }
  double thr = lr.measured_s > 0 ? static_cast<double>(lr.ok) / lr.measured_s : 0;
  r.metrics.push_back(single("serve.throughput", "req/s", true, thr));
  double late = lr.sent ? static_cast<double>(lr.late) / static_cast<double>(lr.sent) : 0;
  if (!plan.closed_loop) r.metrics.push_back(single("serve.late_share", "%", false, 100.0 * late));
  if (plan.sse) {
    if (lr.ttft.count() > 0) {
      r.metrics.push_back(single("serve.ttft.p50", "ms", false, ms(lr.ttft.percentile(50))));
      if (lr.ttft.count() >= mlperf_min_queries(99)) r.metrics.push_back(single("serve.ttft.p99", "ms", false, ms(lr.ttft.percentile(99))));
    }
    if (lr.itl.count() > 0) {
      r.metrics.push_back(single("serve.itl.p50", "ms", false, ms(lr.itl.percentile(50))));
      if (lr.itl.count() >= mlperf_min_queries(99)) r.metrics.push_back(single("serve.itl.p99", "ms", false, ms(lr.itl.percentile(99))));
    }
    r.metrics.push_back(single("serve.output_tokens_per_s", "tokens/s", true, lr.measured_s > 0 ? static_cast<double>(lr.output_tokens) / lr.measured_s : 0));
  }
  // Every percentile, also the unreliable ones, for the report's tables and the rules.
  auto put = [&](const std::string& k, double v) { r.derived[k] = v; };
  put("samples", static_cast<double>(n));
  put("p50_ms", ms(lat.percentile(50)));
  put("p90_ms", ms(lat.percentile(90)));
  put("p99_ms", ms(lat.percentile(99)));
  put("p999_ms", ms(lat.percentile(99.9)));
  put("max_ms", ms(lat.max()));
  put("sent_p50_ms", ms(lr.from_sent.percentile(50)));
  put("sent_p99_ms", ms(lr.from_sent.percentile(99)));
  put("sent_p999_ms", ms(lr.from_sent.percentile(99.9)));
  put("p99_min_samples", static_cast<double>(mlperf_min_queries(99)));
  put("p999_min_samples", static_cast<double>(mlperf_min_queries(99.9)));
  put("throughput", thr);
  put("late_share", late);
  put("scheduled", static_cast<double>(lr.scheduled));
  put("sent", static_cast<double>(lr.sent));
  put("ok", static_cast<double>(lr.ok));
  put("late", static_cast<double>(lr.late));
  put("errors", static_cast<double>(lr.errors()));
  put("errors.connect", static_cast<double>(lr.err_connect));
  put("errors.timeout", static_cast<double>(lr.err_timeout));
  put("errors.http_4xx", static_cast<double>(lr.err_4xx));
  put("errors.http_5xx", static_cast<double>(lr.err_5xx));
  put("errors.protocol", static_cast<double>(lr.err_protocol));
  put("unsent", static_cast<double>(lr.unsent));
  put("connections_opened", static_cast<double>(lr.connections_opened));
  put("peak_connections", static_cast<double>(lr.peak_connections));
  put("hit_connection_cap", lr.hit_connection_cap ? 1 : 0);
  put("max_send_lag_ms", lr.max_send_lag_ms);
  put("warmup_requests", static_cast<double>(lr.warmup_requests));
  put("closed_loop", plan.closed_loop ? 1 : 0);
  if (plan.sse) {
    put("output_tokens", static_cast<double>(lr.output_tokens));
    put("ttft_samples", static_cast<double>(lr.ttft.count()));
  }
  double window_s = lr.measured_s / static_cast<double>(std::max<std::size_t>(1, lr.windows.size()));
  Stability st = judge_stability(lr.windows, window_s);
  put("stable", st.judged ? (st.stable ? 1 : 0) : -1);
  r.notes["stability"] = std::string(st.judged ? (st.stable ? "stable: " : "unstable: ") : "not judged: ") + st.why;
  for (std::size_t i = 0; i < lr.windows.size(); ++i) {
    BenchRow row;
    row.setting["window"] = std::to_string(i + 1);
    row.setting["from_s"] = fmt_num(static_cast<double>(i) * window_s, 2);
    row.values["ok_per_s"] = window_s > 0 ? static_cast<double>(lr.windows[i].ok) / window_s : 0;
    row.values["p50_ms"] = lr.windows[i].p50_ms;
    row.values["p99_ms"] = lr.windows[i].p99_ms;
    r.rows.push_back(std::move(row));
  }
  r.notes["mode"] = plan.closed_loop
                        ? "closed-loop: " + std::to_string(plan.concurrency) + " connections, each sends when its previous reply arrived; latency counts from the actual send only, so a stalled server also stalls the sender (coordinated omission) and its tail is understated"
                        : std::string("open-loop: ") + arrival_name(plan.arrival) + " arrivals at " + fmt_num(plan.rate, 1) + " req/s; latency counts from each request's intended send time (and, as serve.latency_sent.*, from the actual send)";
  r.notes["percentiles"] = "nearest rank: Pq is the smallest recorded latency with at least q % of replies at or below it, read from a log-linear histogram (1024 sub-buckets per power of two, value error < 0.1 %, reported as the bucket's upper edge); P99 needs " +
                           std::to_string(mlperf_min_queries(99)) + " and P99.9 " + std::to_string(mlperf_min_queries(99.9)) + " replies (MLPerf LoadGen's early-stopping minimums)";
  r.notes["late"] = "a request is late when it leaves more than " + fmt_num(static_cast<double>(plan.late_after.count()) / 1e6, 3) + " ms after its intended time (no free connection, or the client's CPU)";
  r.notes["client"] = "plumb's own HTTP/1.1 client: epoll, " + std::to_string(plan.threads) + " thread(s), keep-alive, one request in flight per connection, head <= " +
                      std::to_string(plan.limits.max_head_bytes) + " bytes, body <= " + std::to_string(plan.limits.max_body_bytes) + " bytes, deadlines on connect and on every request";
  if (!lr.first_error.empty()) r.notes["first_error"] = lr.first_error;
}

namespace {

Result<LoadResult> run_plan(const LoadPlan& plan, Progress& prog, const std::string& label) {
  prog.update(label);
  return run_load(plan);
}

bool step_passes(const LoadResult& lr, double bound_ms) {
  if (lr.scheduled == 0) return false;
  double err_share = static_cast<double>(lr.errors()) / static_cast<double>(lr.scheduled);
  return err_share <= 0.01 && lr.from_intended.count() > 0 && ms(lr.from_intended.percentile(99)) <= bound_ms;
}

}  // namespace

Result<BenchResult> run_serve(const Context& /*ctx*/, const BenchOptions& o) {
  auto settings = serve_settings(o);
  if (!settings) return settings.error();
  ServeSettings& s = *settings;
  LoadPlan plan = s.plan;
  plan.stop = o.interrupted;
  BenchResult r;
  r.params["url"] = s.url_text;
  r.params["target"] = plan.url.target;
  r.params["api"] = s.api;
  if (!s.model.empty()) r.params["model"] = s.model;
  r.params["mode"] = plan.closed_loop ? "closed-loop" : "open-loop";
  if (plan.closed_loop) r.params["concurrency"] = std::to_string(plan.concurrency);
  else {
    r.params["arrival"] = arrival_name(plan.arrival);
    r.params["connections_max"] = std::to_string(plan.connections);
    if (plan.rate > 0) r.params["rate"] = fmt_num(plan.rate, 1);
  }
  r.params["threads"] = std::to_string(plan.threads);
  r.params["duration_s"] = fmt_num(static_cast<double>(plan.duration.count()) / 1e9, 3);
  r.params["warmup_s"] = fmt_num(static_cast<double>(plan.warmup.count()) / 1e9, 3);
  r.params["timeout_s"] = fmt_num(static_cast<double>(plan.request_timeout.count()) / 1e9, 3);
  r.params["request_bytes"] = std::to_string(plan.request.size());
  if (s.p99_bound_ms) r.params["p99_bound_ms"] = fmt_num(*s.p99_bound_ms, 3);

  // One probe first: a wrong URL, model name or API fails here in a second, with the server's
  // answer, instead of after a full run of errors.
  auto probe = fetch_once(plan.url, plan.request, std::chrono::duration_cast<std::chrono::milliseconds>(plan.request_timeout), plan.limits);
  if (!probe) return make_error(probe.error().kind, "bench serve: probe request to " + s.url_text + " failed: " + probe.error().message);
  if (probe->status >= 400 && probe->status < 500) {
    std::string body = probe->body.substr(0, 200);
    for (char& c : body) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return make_error(ErrorKind::invalid, "bench serve: the probe request to " + plan.url.host_header() + plan.url.target + " was answered HTTP " +
                                              std::to_string(probe->status) + (body.empty() ? "" : " (" + body + ")") + "; nothing measured");
  }
  r.notes["probe"] = "HTTP " + std::to_string(probe->status) + " in " + fmt_num(probe->ms, 2) + " ms";
  if (s.api == "oip" && probe->status < 300) {
    auto ok = serving::check_oip_reply(probe->body);
    if (!ok) return make_error(ErrorKind::invalid, "bench serve --api oip: the probe reply is not an OIP v2 infer response: " + ok.error().message);
  }

  std::optional<serving::TritonStats> before;
  httpc::Url stats_url = plan.url;
  stats_url.target = serving::oip_stats_path(s.model);
  std::string stats_req = httpc::build_request("GET", stats_url, {}, "");
  auto read_stats = [&]() -> Result<serving::TritonStats> {
    auto rep = fetch_once(stats_url, stats_req, std::chrono::seconds(5), plan.limits);
    if (!rep) return rep.error();
    if (rep->status != 200) return make_error(ErrorKind::unsupported, "HTTP " + std::to_string(rep->status) + " from " + stats_url.target);
    return serving::parse_triton_stats(rep->body);
  };
  if (s.triton_stats) {
    auto b = read_stats();
    if (b) before = *b;
    else r.notes["triton_stats"] = "not read: " + b.error().message;
  }

  Progress prog(o.progress, "serve");
  LoadResult final_run;
  LoadPlan final_plan = plan;
  if (s.p99_bound_ms) {
    // Sweep: double the rate while P99 (from the intended send) meets the bound and errors stay
    // under 1 %, then bisect between the last passing and the first failing rate.
    double bound = *s.p99_bound_ms;
    double rate = plan.rate > 0 ? plan.rate : 10;
    double good = 0, bad = 0;
    std::optional<LoadResult> best, lowest;
    LoadPlan best_plan = plan;
    auto step = [&](double x) -> Result<bool> {
      LoadPlan sp = plan;
      sp.rate = x;
      auto lr = run_plan(sp, prog, "sweep at " + fmt_num(x, 1) + " req/s");
      if (!lr) return lr.error();
      r.rows.push_back(sweep_row(x, *lr));
      bool pass = step_passes(*lr, bound);
      r.rows.back().values["pass"] = pass ? 1 : 0;
      if (!lowest) lowest = *lr;
      if (pass && x > good) {
        good = x;
        best = std::move(*lr);
        best_plan = sp;
      }
      return pass;
    };
    for (int i = 0; i < 16 && !o.stop(); ++i) {
      auto p = step(rate);
      if (!p) return p.error();
      if (!*p) {
        bad = rate;
        break;
      }
      rate *= 2;
    }
    for (int i = 0; i < 5 && bad > 0 && good > 0 && !o.stop() && (bad - good) / good > 0.05; ++i) {
      double mid = (good + bad) / 2;
      auto p = step(mid);
      if (!p) return p.error();
      if (!*p) bad = mid;
    }
    std::vector<BenchRow> sweep_rows = std::move(r.rows);
    r.rows.clear();
    if (best) {
      final_run = std::move(*best);
      final_plan = best_plan;
    } else if (lowest) {
      final_run = std::move(*lowest);
      final_plan.rate = plan.rate > 0 ? plan.rate : 10;
    }
    fill_serve_result(r, final_run, final_plan);
    r.rows = std::move(sweep_rows);  // the sweep is the table of a sweep run
    r.metrics.push_back(single("serve.max_rate_at_p99", "req/s", true, good));
    r.derived["max_rate_at_p99"] = good;
    r.derived["p99_bound_ms"] = bound;
    r.notes["sweep"] = good > 0 ? "highest rate with P99 <= " + fmt_num(bound, 3) + " ms and < 1 % errors: " + fmt_num(good, 1) + " req/s" + (bad > 0 ? " (" + fmt_num(bad, 1) + " req/s failed)" : " (never failed up to the last step)")
                                : "no rate met P99 <= " + fmt_num(bound, 3) + " ms; the lowest tried was " + fmt_num(plan.rate > 0 ? plan.rate : 10, 1) + " req/s";
  } else {
    auto lr = run_plan(plan, prog, plan.closed_loop ? "closed loop, " + std::to_string(plan.concurrency) + " connections" : "open loop at " + fmt_num(plan.rate, 1) + " req/s");
    if (!lr) return lr.error();
    final_run = std::move(*lr);
    fill_serve_result(r, final_run, final_plan);
  }
  r.params["rate"] = final_plan.closed_loop ? "" : fmt_num(final_plan.rate, 1);
  if (final_plan.closed_loop) r.params.erase("rate");

  if (before) {
    auto after = read_stats();
    if (!after) {
      r.notes["triton_stats"] = "not read after the run: " + after.error().message;
    } else if (auto split = serving::triton_split(*before, *after)) {
      r.derived["triton.queue_ms"] = split->queue_ms;
      r.derived["triton.compute_ms"] = split->compute_ms;
      r.derived["triton.request_ms"] = split->total_ms;
      r.derived["triton.batch_mean"] = split->batch_mean;
      r.notes["triton_stats"] = "per request in the server, over " + std::to_string(split->requests) + " requests: queue " + fmt_num(split->queue_ms, 3) +
                                " ms, compute " + fmt_num(split->compute_ms, 3) + " ms (input + infer + output), total " + fmt_num(split->total_ms, 3) +
                                " ms; " + fmt_num(split->batch_mean, 2) + " requests per execution";
    } else {
      r.notes["triton_stats"] = "no successful request counted by the server between the two readings";
    }
  }
  if (final_run.sent == 0 && final_run.errors() == 0) return make_error(ErrorKind::invalid, "bench serve: no request was due in the measured span (raise --duration or --rate)");
  return r;
}

namespace {

}  // namespace

void bench_serve_tables(BenchTables& b) {
  b.add_bench({"serve",
                                    {"HTTP serving load: open-loop latency from the intended send, throughput, errors, stability; closed loop or a P99 rate sweep on request",
                                     "HTTP 推理服务压测：按计划发送时刻计的开环延迟、吞吐、错误与稳定性；可选闭环或按 P99 上限扫描速率"},
                                    {"URL (--rate R [--arrival poisson|constant] | --concurrency N | --p99 BOUND) [--duration 10s] [--warmup 2s] [--api raw|oip|openai|openai-chat] [--model M]",
                                     "URL（--rate R [--arrival poisson|constant] | --concurrency N | --p99 上限）[--duration 10s] [--warmup 2s] [--api raw|oip|openai|openai-chat] [--model M]"},
                                    false, true, false, run_serve});
}

}  // namespace plumb
