// End-to-end: `plumb exporter` on loopback: /metrics and /healthz, promtool validation, bad and
// hostile clients (malformed, oversized, idle, disconnecting), the connection cap, SIGTERM.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <regex>

#include "../net_util.h"
#include "../test_util.h"
#include "watch_spawn.h"

namespace plumb::test {
namespace {

using namespace std::chrono_literals;

class Exporter {
 public:
  explicit Exporter(std::vector<std::string> extra = {})
      : child_([&] {
          std::vector<std::string> a{"exporter", "--listen", "127.0.0.1:0", "--interval", "100ms", "--check-interval", "1h",
                                     "--root", fixture("watch/procfs-host"), "--gpu-script",
                                     fixture("watch/gpu-scripts/healthy.json")};
          a.insert(a.end(), extra.begin(), extra.end());
          return a;
        }()) {
    if (!child_.read_until("/metrics", 20s)) return;
    std::smatch m;
    std::string out = child_.output();
    if (std::regex_search(out, m, std::regex("http://127\\.0\\.0\\.1:([0-9]+)/metrics"))) port_ = std::stoi(m[1]);
  }
  [[nodiscard]] int port() const { return port_; }
  Child& child() { return child_; }
  // Scrapes until `needle` shows up (the first check runs in the background), bounded.
  std::string scrape_until(const std::string& needle) {
    std::string body;
    for (int i = 0; i < 200; ++i) {
      body = body_of(http_get(port_, "/metrics"));
      if (body.find(needle) != std::string::npos) return body;
      child_.read_until("\x01never", 50ms);  // a bounded wait that also drains the child's output
    }
    return body;
  }

 private:
  Child child_;
  int port_ = 0;
};

TEST(ExporterE2E, ServesTelemetryAndCheckResultsThatPromtoolAccepts) {
  Exporter e;
  ASSERT_GT(e.port(), 0) << e.child().output();
  std::string body = e.scrape_until("plumb_check_exit_code");
  EXPECT_NE(body.find("plumb_gpu_busy_ratio{gpu=\"0000:3b:00.0\""), std::string::npos) << body;
  EXPECT_NE(body.find("plumb_gpu_temperature_celsius"), std::string::npos);
  EXPECT_NE(body.find("plumb_host_memory_total_bytes"), std::string::npos);
  EXPECT_NE(body.find("plumb_findings{status=\"fail\"}"), std::string::npos);
  EXPECT_NE(body.find("plumb_collector_success{collector=\"collect.os\"} 1"), std::string::npos);
  EXPECT_NE(body.find("# TYPE plumb_exporter_scrapes_total counter"), std::string::npos);
  auto health = http_get(e.port(), "/healthz");
  EXPECT_EQ(health.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << health;
  EXPECT_EQ(body_of(health), "ok\n");
  EXPECT_EQ(http_get(e.port(), "/nope").rfind("HTTP/1.1 404", 0), 0u);
  std::string tool = promtool();
  if (tool.empty()) GTEST_SKIP() << "promtool not installed (Debian package: prometheus)";
  RunOptions o;
  o.stdin_data = body;
  auto check = run_program({tool, "check", "metrics"}, o);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->exit_code, 0) << check->out << check->err;
  EXPECT_EQ(check->out + check->err, "") << "promtool lint findings";
}

TEST(ExporterE2E, RejectsWhatIsNotAPlainGet) {
  Exporter e({"--no-check"});
  ASSERT_GT(e.port(), 0) << e.child().output();
  auto ask = [&](const std::string& raw) {
    Conn c(e.port());
    c.send(raw);
    return c.receive(5s);
  };
  EXPECT_EQ(ask("POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 405", 0), 0u);
  EXPECT_EQ(ask("garbage\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(ask("GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n").rfind("HTTP/1.1 431", 0), 0u);
  std::string many = "GET /metrics HTTP/1.1\r\n";
  for (int i = 0; i < 100; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  EXPECT_EQ(ask(many + "\r\n").rfind("HTTP/1.1 431", 0), 0u);
  auto head = ask("HEAD /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(body_of(head), "");
  // Keep-alive: two requests on one connection.
  Conn c(e.port());
  ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(body_of(c.receive(5s)), "ok\n");
  ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(body_of(c.receive(5s)), "ok\n");
}

TEST(ExporterE2E, IdleAndVanishingClientsDoNotStallScrapes) {
  Exporter e({"--no-check", "--max-connections", "24"});
  ASSERT_GT(e.port(), 0) << e.child().output();
  std::vector<std::unique_ptr<Conn>> idle;
  for (int i = 0; i < 10; ++i) {
    idle.push_back(std::make_unique<Conn>(e.port()));
    idle.back()->send("GET /metr");  // half a request, then silence
  }
  for (int i = 0; i < 5; ++i) {
    Conn gone(e.port());
    gone.send("GET /metrics HTTP/1.1\r\n\r\n");
    gone.close_now();  // disconnect before (or while) the answer is written
  }
  auto r = http_get(e.port(), "/metrics", 5s);
  EXPECT_EQ(r.rfind("HTTP/1.1 200", 0), 0u) << r;
  // Past the cap, silent connections are closed oldest first to make room: the scrape is answered
  // at once instead of refused or stalled.
  for (int i = 0; i < 20; ++i) idle.push_back(std::make_unique<Conn>(e.port()));
  auto busy = http_get(e.port(), "/metrics", 5s);
  EXPECT_EQ(busy.rfind("HTTP/1.1 200", 0), 0u) << busy;
  idle.clear();
}

TEST(ExporterE2E, SigtermDuringScrapesExitsCleanly) {
  Exporter e({"--no-check"});
  ASSERT_GT(e.port(), 0) << e.child().output();
  Conn pending(e.port());
  pending.send("GET /metrics HTTP/1.1\r\n");  // a scrape in flight
  e.child().signal(SIGTERM);
  auto rc = e.child().wait(20s);
  ASSERT_TRUE(rc.has_value()) << "exporter did not stop on SIGTERM";
  EXPECT_EQ(*rc, 0) << e.child().output();
}

// A real Prometheus (Debian package prometheus) scrapes the exporter on loopback and a metric
// comes back through its query API. Both processes are stopped by PID.
TEST(ExporterE2E, RealPrometheusScrapesAndQueriesAMetric) {
  const char* prom_bin = "/usr/bin/prometheus";
  if (::access(prom_bin, X_OK) != 0) GTEST_SKIP() << "prometheus not installed (Debian package: prometheus)";
  Exporter e({"--no-check"});
  ASSERT_GT(e.port(), 0) << e.child().output();
  std::string dir = ::testing::TempDir() + "/plumb-prom-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  std::string cfg = dir + "/prometheus.yml";
  {
    std::FILE* f = std::fopen(cfg.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: plumb\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n", e.port());
    std::fclose(f);
  }
  int web = free_loopback_port();
  ASSERT_GT(web, 0);
  Child prom({"--config.file=" + cfg, "--storage.tsdb.path=" + dir + "/data", "--web.listen-address=127.0.0.1:" + std::to_string(web)},
             false, prom_bin);
  ASSERT_TRUE(prom.started());
  std::string answer;
  for (int i = 0; i < 300 && answer.find("\"plumb_gpu_busy_ratio\"") == std::string::npos; ++i) {
    answer = body_of(http_get(web, "/api/v1/query?query=plumb_gpu_busy_ratio", 2s));
    prom.read_until("\x01never", 100ms);  // bounded wait between polls, draining its log
  }
  EXPECT_NE(answer.find("\"gpu\":\"0000:3b:00.0\""), std::string::npos) << answer << prom.output();
  prom.signal(SIGTERM);
  EXPECT_TRUE(prom.wait(20s).has_value());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST(ExporterE2E, BadListenAddressIsAUsageError) {
  auto r = run_plumb({"exporter", "--listen", "localhost:9464"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a numeric IP address"), std::string::npos) << r.err;
  auto i = run_plumb({"exporter", "--check-interval", "10 min"});
  EXPECT_EQ(i.exit_code, 2);
  EXPECT_NE(i.err.find("unknown unit"), std::string::npos) << i.err;
}

}  // namespace
}  // namespace plumb::test
