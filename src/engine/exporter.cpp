// The pipeline of `plumb exporter`: Prometheus /metrics and /healthz. Telemetry is sampled on its own
// interval and the full check runs on --check-interval; scrapes only copy the prepared text, so they
// are cheap and never trigger expensive work. Loopback by default.
#include <atomic>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/machine.h"
#include "engine/exporter.h"
#include "engine/output.h"
#include "core/registry.h"
#include "core/duration.h"
#include "serve/http.h"
#include "report/prom_report_metrics.h"
#include "report/prom_sample_metrics.h"
#include "engine/watch_session.h"
#include "engine/stop_signal.h"
#include "core/tables.h"

namespace plumb {

namespace {


// The pages a scrape copies; each part is swapped whole under the mutex.
struct Pages {
  std::mutex mu;
  std::shared_ptr<const std::string> telemetry = std::make_shared<const std::string>();
  std::shared_ptr<const std::string> check = std::make_shared<const std::string>();
  std::atomic<std::uint64_t> scrapes{0};
  std::atomic<std::uint64_t> checks{0};
};

std::string check_text(const Context& ctx, const Config& cfg, Lang lang) {
  Report r;
  r.facts.meta.tool_version = plumb_version();
  r.facts.meta.command = "exporter";
  r.facts.meta.started_at = now_iso8601();
  r.facts.meta.hostname = host_name(ctx.root);
  r.facts.meta.root = ctx.root.root();
  r.facts.meta.target_pid = ctx.pid;
  auto start = std::chrono::steady_clock::now();
  Selection sel;
  collect(ctx, sel, r.facts);
  r.facts.meta.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.findings = judge(r.facts, cfg.thresholds, sel);
  prom::Exposition out(lang);
  watch::add_report_metrics(out, r);
  return out.str();
}

}  // namespace

int run_exporter(const ExporterOptions& a) {
  auto listen = http::parse_listen(a.listen);
  if (!listen) throw UsageError("--listen " + listen.error().message);
  auto interval = watch::parse_duration(a.interval);
  if (!interval) throw UsageError("--interval " + interval.error().message);
  if (interval->count() < 100) throw UsageError("--interval must be at least 100ms");
  auto check_every = watch::parse_duration(a.check_interval);
  if (!check_every) throw UsageError("--check-interval " + check_every.error().message);
  if (check_every->count() < 1000) throw UsageError("--check-interval must be at least 1s");
  if (a.max_connections < 1 || a.max_connections > 4096) throw UsageError("--max-connections must be 1..4096");
  OutputOptions oo;
  oo.lang = a.lang;
  Lang lang = render_options(oo).lang;
  Config cfg = load_config_or_throw(a.machine.config);
  Context ctx = make_context(a.machine);

  std::unique_ptr<watch::GpuSampler> gpus;
  std::string gpu_why;
  if (!a.gpu_script.empty()) {
    auto text = read_user_file(a.gpu_script);
    if (!text) throw UsageError("--gpu-script " + text.error().message);
    auto script = watch::parse_gpu_script(*text, a.gpu_script);
    if (!script) throw UsageError(script.error().message);
    gpus = watch::make_scripted_sampler(std::move(script.value()), "script:" + a.gpu_script);
  } else if (auto s = watch::open_nvml_sampler(ctx.nvml_lib)) {
    gpus = std::move(s.value());
  } else {
    gpu_why = s.error().message;
  }
  bool have_gpu = gpus != nullptr;

  // Handlers first: a SIGTERM from the moment the address is announced ends the exporter cleanly.
  watch::StopSignal stop;
  http::Limits limits;
  limits.max_connections = a.max_connections;
  auto server = http::Server::listen(listen->first, listen->second, limits);
  if (!server) throw UsageError(server.error().message);
  std::string shown = (listen->first.find(':') != std::string::npos ? "[" + listen->first + "]" : listen->first) + ":" +
                      std::to_string((*server)->port());
  std::cout << fill(tr(lang, "exporter.listening"), {{"address", shown}}) << std::endl;
  if (!http::is_loopback(listen->first)) std::cerr << fill(tr(lang, "exporter.not_loopback"), {{"address", shown}}) << "\n";

  Pages pages;
  watch::SessionConfig sc;
  sc.root = ctx.root;
  sc.pid = ctx.pid;
  sc.interval = *interval;
  sc.keep = 10;
  sc.started_at = now_iso8601();
  watch::Session session(sc, std::move(gpus), gpu_why);

  // The sampler and checker are loops that run until stopped, not data-parallel work (core/parallel.h).
  std::thread sampler([&] {
    while (!stop.stopped()) {
      auto t0 = std::chrono::steady_clock::now();
      const WatchSample& s = session.tick(t0);
      WatchFacts header = session.header();
      prom::Exposition out(lang);
      watch::add_sample_metrics(out, header, s);
      double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out.gauge("plumb_exporter_sample_duration_seconds", "prom.help.plumb_exporter_sample_duration_seconds", {}, took);
      out.gauge("plumb_exporter_sample_timestamp_seconds", "prom.help.plumb_exporter_sample_timestamp_seconds", {},
                std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
      out.gauge("plumb_exporter_gpu_available", "prom.help.plumb_exporter_gpu_available", {}, have_gpu ? 1 : 0);
      auto text = std::make_shared<const std::string>(out.str());
      {
        std::lock_guard<std::mutex> lock(pages.mu);
        pages.telemetry = std::move(text);
      }
      auto next = t0 + *interval;
      auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - std::chrono::steady_clock::now()).count();
      if (stop.wait(static_cast<int>(std::max<long long>(wait, 0)))) break;
    }
  });
  std::thread checker([&] {
    if (a.no_check) return;
    while (!stop.stopped()) {
      auto t0 = std::chrono::steady_clock::now();
      std::string text;
      try {
        text = check_text(ctx, cfg, lang);
      } catch (const std::exception& e) {
        text = "# plumb check failed: " + std::string(e.what()) + "\n";
      }
      ++pages.checks;
      {
        std::lock_guard<std::mutex> lock(pages.mu);
        pages.check = std::make_shared<const std::string>(std::move(text));
      }
      auto wait = std::chrono::ceil<std::chrono::milliseconds>(t0 + *check_every - std::chrono::steady_clock::now()).count();
      if (stop.wait(static_cast<int>(std::max<long long>(wait, 0)))) break;
    }
  });

  std::string index = tr(lang, "exporter.index") + "\n";
  (*server)->run(stop.fd(), [&](const http::Request& req) -> http::Response {
    if (req.path == "/metrics") {
      std::shared_ptr<const std::string> t, c;
      {
        std::lock_guard<std::mutex> lock(pages.mu);
        t = pages.telemetry;
        c = pages.check;
      }
      std::uint64_t n = ++pages.scrapes;
      prom::Exposition self(lang);
      self.counter("plumb_exporter_scrapes_total", "prom.help.plumb_exporter_scrapes_total", {}, static_cast<double>(n));
      self.counter("plumb_exporter_checks_total", "prom.help.plumb_exporter_checks_total", {}, static_cast<double>(pages.checks.load()));
      http::Response r;
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      r.body.reserve(t->size() + c->size() + 512);
      r.body = *t + *c + self.str();
      return r;
    }
    if (req.path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n", {}};
    if (req.path == "/") return {200, "text/plain; charset=utf-8", index, {}};
    return {404, "text/plain; charset=utf-8", "not found\n", {}};
  });
  // Stopped by SIGINT/SIGTERM: the workers see the same flag; a running check ends within its
  // collectors' deadlines.
  sampler.join();
  checker.join();
  std::cerr << tr(lang, "exporter.stopped") << "\n";
  return 0;
}


void engine_exporter_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"exporter.listening", {"plumb exporter listening on http://{address}/metrics", "plumb exporter 正在监听 http://{address}/metrics"}},
    {"exporter.not_loopback", {"warning: {address} is reachable from other machines and /metrics has no authentication",
                               "警告：{address} 可被其他机器访问，而 /metrics 没有认证"}},
    {"exporter.index", {"plumb exporter: /metrics (Prometheus), /healthz (liveness)", "plumb exporter：/metrics（Prometheus）、/healthz（存活检查）"}},
    {"exporter.stopped", {"plumb exporter stopped", "plumb exporter 已停止"}},
};
});
}

}  // namespace plumb
