// End-to-end: `plumb bench serve` against a real nginx (Debian's /usr/sbin/nginx, started here with
// a private configuration on a loopback port, stopped afterwards) in closed and open loop, with
// sane counts and the report's serving findings; bad URLs fail with one line and exit 2.
// Throughput against wrk is compared in bench/serve-vs-wrk, not here: tests assert no timing ratios.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "core/json.h"
#include "../net_util.h"
#include "../test_util.h"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace plumb {
namespace {

namespace fs = std::filesystem;
using test::free_loopback_port;

bool port_open(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

class ServeE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/sbin/nginx")) GTEST_SKIP() << "nginx not installed (apt-get install nginx-light)";
    dir_ = ::testing::TempDir() + "/plumb-serve-e2e-" + std::to_string(::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    port_ = free_loopback_port();
    std::ofstream(dir_ + "/nginx.conf") << "worker_processes 1;\nerror_log " << dir_ << "/error.log;\npid " << dir_
                                        << "/nginx.pid;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n"
                                        << "  client_body_temp_path " << dir_ << "/body;\n  proxy_temp_path " << dir_ << "/proxy;\n"
                                        << "  fastcgi_temp_path " << dir_ << "/fastcgi;\n  uwsgi_temp_path " << dir_ << "/uwsgi;\n"
                                        << "  scgi_temp_path " << dir_ << "/scgi;\n  keepalive_requests 1000000;\n"
                                        << "  server { listen 127.0.0.1:" << port_ << "; location / { return 200 \"ok\\n\"; }"
                                        << " location /missing { return 404; } }\n}\n";
    std::vector<std::string> args = {"/usr/sbin/nginx", "-p", dir_, "-c", dir_ + "/nginx.conf", "-g", "daemon off;"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(::posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    for (int i = 0; i < 100 && !port_open(port_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(port_open(port_)) << "nginx did not start; see " << dir_ << "/error.log";
    url_ = "http://127.0.0.1:" + std::to_string(port_) + "/";
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGQUIT);  // graceful stop of master and workers
      int st = 0;
      for (int i = 0; i < 100 && ::waitpid(pid_, &st, WNOHANG) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (::waitpid(pid_, &st, WNOHANG) == 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &st, 0);
      }
    }
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  static json result_of(const RunOutput& r) {
    json j = json::parse(r.out, nullptr, false);
    if (j.is_discarded()) return json::object();
    return j["facts"]["bench"]["results"][0];
  }
  static const json* finding(const json& report, const std::string& id) {
    for (const auto& f : report["findings"]) {
      if (f["id"] == id) return &f;
    }
    return nullptr;
  }
  std::string dir_, url_;
  int port_ = 0;
  pid_t pid_ = 0;
};

TEST_F(ServeE2e, ClosedLoopAgainstNginxCompletesWithSaneCounts) {
  auto r = test::run_plumb({"bench", "serve", url_, "--concurrency", "4", "--duration", "1s", "--warmup", "200ms", "--format", "json", "--no-history"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 2000);
  json res = result_of(r);
  EXPECT_EQ(res["bench"], "serve");
  EXPECT_EQ(res["params"]["mode"], "closed-loop");
  EXPECT_GT(res["derived"]["ok"].get<double>(), 100);
  EXPECT_EQ(res["derived"]["errors"].get<double>(), 0);
  EXPECT_EQ(res["derived"]["ok"].get<double>(), res["derived"]["sent"].get<double>() - res["derived"]["errors"].get<double>());
  bool has_throughput = false;
  for (const auto& m : res["metrics"]) has_throughput |= m["name"] == "serve.throughput" && m["median"].get<double>() > 100;
  EXPECT_TRUE(has_throughput);
  EXPECT_NE(res["notes"]["mode"].get<std::string>().find("closed-loop"), std::string::npos);
  json report = json::parse(r.out);
  EXPECT_NE(finding(report, "l2.serving.tail_latency"), nullptr);
  const json* late = finding(report, "l2.serving.late_sends");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ((*late)["status"], "skip");  // no intended times in a closed loop
}

TEST_F(ServeE2e, OpenLoopSendsTheScheduleAndReportsPercentiles) {
  auto r = test::run_plumb({"bench", "serve", url_, "--rate", "800", "--duration", "1s", "--warmup", "200ms", "--arrival", "constant",
                            "--format", "json", "--no-history"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 2000);
  json res = result_of(r);
  EXPECT_EQ(res["params"]["mode"], "open-loop");
  // Constant arrivals at 800/s for 1 s: 800 due in the measured second.
  EXPECT_NEAR(res["derived"]["scheduled"].get<double>(), 800, 2);
  EXPECT_NEAR(res["derived"]["ok"].get<double>(), 800, 2);
  std::set<std::string> names;
  for (const auto& m : res["metrics"]) names.insert(m["name"].get<std::string>());
  for (const char* n : {"serve.latency.p50", "serve.latency.p90", "serve.latency.p99", "serve.latency.max", "serve.throughput", "serve.late_share"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  // 800 replies are below MLPerf's 6636 for P99.9: no metric, and the note says why.
  EXPECT_FALSE(names.count("serve.latency.p999"));
  EXPECT_NE(res["notes"]["serve.latency.p999"].get<std::string>().find("not enough samples"), std::string::npos);

  auto md = test::run_plumb({"bench", "serve", url_, "--rate", "200", "--duration", "500ms", "--warmup", "0", "--format", "md", "--no-history"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("open-loop"), std::string::npos);
}

TEST_F(ServeE2e, BadTargetsFailWithOneLine) {
  auto r404 = test::run_plumb({"bench", "serve", url_ + "missing", "--rate", "10", "--duration", "200ms", "--no-history"});
  EXPECT_EQ(r404.exit_code, 2);
  EXPECT_NE(r404.err.find("HTTP 404"), std::string::npos) << r404.err;
  auto tls = test::run_plumb({"bench", "serve", "https://127.0.0.1/", "--rate", "10", "--no-history"});
  EXPECT_EQ(tls.exit_code, 2);
  EXPECT_NE(tls.err.find("https is not supported"), std::string::npos) << tls.err;
  auto both = test::run_plumb({"bench", "serve", url_, "--rate", "10", "--concurrency", "2", "--no-history"});
  EXPECT_EQ(both.exit_code, 2);
  auto wrong = test::run_plumb({"bench", "membw", "--rate", "10", "--no-history"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("bench serve only"), std::string::npos) << wrong.err;
}

}  // namespace
}  // namespace plumb
