// The load generator against a small HTTP server in the test (a thread with a socket) that stalls
// on a schedule: an open-loop run must show the stalls in its tail from the intended send, while
// the tail from the actual send and a closed-loop run hide them (coordinated omission). Also the
// error classes and the probe of `bench serve`.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/serve.h"
#include "bench/serve_loop.h"

namespace plumb {
namespace {

using Clock = std::chrono::steady_clock;

// A one-thread HTTP/1.1 server on 127.0.0.1: answers each request (GET, no body) with `status`,
// except that no reply leaves during the first `stall` of every `period`; "close" mode hangs up
// instead of answering.
class StallServer {
 public:
  StallServer(std::chrono::milliseconds period, std::chrono::milliseconds stall, int status = 200, bool hang_up = false)
      : period_(period), stall_(stall), status_(status), hang_up_(hang_up) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 256), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    start_ = Clock::now();
    th_ = std::thread([this] { loop(); });
  }
  ~StallServer() {
    stop_ = true;
    th_.join();
    for (auto& c : conns_) ::close(c.fd);
    ::close(fd_);
  }
  StallServer(const StallServer&) = delete;
  StallServer& operator=(const StallServer&) = delete;
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

 private:
  struct C {
    int fd;
    std::string in;
    int owed = 0;  // requests read, not yet answered
  };
  bool stalled() const {
    auto t = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_) % period_;
    return t < stall_;
  }
  void loop() {
    std::string reply = "HTTP/1.1 " + std::to_string(status_) + " X\r\nContent-Length: 2\r\n\r\nok";
    while (!stop_) {
      std::vector<pollfd> p{{fd_, POLLIN, 0}};
      for (auto& c : conns_) p.push_back({c.fd, POLLIN, 0});
      ::poll(p.data(), p.size(), 2);
      if ((p[0].revents & POLLIN) != 0) {
        int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c >= 0) conns_.push_back({c, {}, 0});
      }
      for (std::size_t i = 0; i < conns_.size(); ++i) {
        C& c = conns_[i];
        char buf[4096];
        ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
        if (n == 0) {
          ::close(c.fd);
          c.fd = -1;
          continue;
        }
        if (n > 0) c.in.append(buf, static_cast<std::size_t>(n));
        for (auto pos = c.in.find("\r\n\r\n"); pos != std::string::npos; pos = c.in.find("\r\n\r\n")) {
          c.in.erase(0, pos + 4);
          ++c.owed;
        }
        if (c.owed > 0 && hang_up_) {
          ::close(c.fd);
          c.fd = -1;
          continue;
        }
        while (c.owed > 0 && !stalled()) {
          if (::send(c.fd, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) break;
          --c.owed;
        }
      }
      std::erase_if(conns_, [](const C& c) { return c.fd < 0; });
    }
  }
  std::chrono::milliseconds period_, stall_;
  int status_;
  bool hang_up_;
  int fd_ = -1;
  int port_ = 0;
  Clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::vector<C> conns_;
  std::thread th_;
};

LoadPlan plan_for(const std::string& url) {
  LoadPlan p;
  auto u = httpc::parse_url(url);
  EXPECT_TRUE(u);
  p.url = *u;
  p.request = httpc::build_request("GET", p.url, {}, "");
  p.threads = 1;
  p.warmup = std::chrono::nanoseconds(0);
  p.duration = std::chrono::seconds(2);
  p.request_timeout = std::chrono::seconds(5);
  return p;
}

double ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }

TEST(ServeLoop, OpenLoopReportsTheStallThatClosedLoopHides) {
  StallServer server(std::chrono::milliseconds(500), std::chrono::milliseconds(150));
  LoadPlan open = plan_for(server.url());
  open.rate = 500;
  open.arrival = Arrival::constant;
  open.connections = 1;  // the stall holds the only connection; later requests wait to be sent
  auto o = run_load(open);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->errors(), 0U) << o->first_error;
  EXPECT_GE(o->from_intended.count(), 900U);
  double p99_intended = ms(o->from_intended.percentile(99));
  double p99_sent = ms(o->from_sent.percentile(99));
  EXPECT_GE(p99_intended, 50.0);
  EXPECT_LT(p99_sent * 5, p99_intended) << "from sent " << p99_sent << " ms, from intended " << p99_intended << " ms";
  EXPECT_GT(o->late, o->sent / 10);  // a quarter or more waited for the connection

  LoadPlan closed = plan_for(server.url());
  closed.closed_loop = true;
  closed.concurrency = 1;
  auto c = run_load(closed);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->errors(), 0U) << c->first_error;
  EXPECT_GT(c->ok, 100U);
  double p99_closed = ms(c->from_intended.percentile(99));
  EXPECT_LT(p99_closed * 5, p99_intended) << "closed loop P99 " << p99_closed << " ms";
  // The closed loop stopped sending during each stall: its maximum shows the stall, its tail not.
  EXPECT_GE(ms(c->from_sent.max()), 50.0);
  // The figures docs/serving.md quotes.
  std::printf("open loop (500 req/s, 1 connection): P50/P99/max from intended %.2f/%.1f/%.1f ms, from sent %.3f/%.3f/%.1f ms, late %.1f %%\n",
              ms(o->from_intended.percentile(50)), p99_intended, ms(o->from_intended.max()), ms(o->from_sent.percentile(50)), p99_sent,
              ms(o->from_sent.max()), 100.0 * static_cast<double>(o->late) / static_cast<double>(o->sent));
  std::printf("closed loop (1 connection): %llu replies, P50/P99/max %.3f/%.3f/%.1f ms\n", static_cast<unsigned long long>(c->ok),
              ms(c->from_intended.percentile(50)), p99_closed, ms(c->from_intended.max()));
}

TEST(ServeLoop, ErrorsAreCountedByClass) {
  {
    StallServer s503(std::chrono::milliseconds(1000), std::chrono::milliseconds(0), 503);
    LoadPlan p = plan_for(s503.url());
    p.rate = 200;
    p.duration = std::chrono::milliseconds(300);
    auto r = run_load(p);
    ASSERT_TRUE(r);
    EXPECT_GT(r->err_5xx, 30U);
    EXPECT_EQ(r->ok, 0U);
    EXPECT_NE(r->first_error.find("503"), std::string::npos);
  }
  {
    StallServer hang(std::chrono::milliseconds(1000), std::chrono::milliseconds(0), 200, true);
    LoadPlan p = plan_for(hang.url());
    p.rate = 100;
    p.duration = std::chrono::milliseconds(300);
    auto r = run_load(p);
    ASSERT_TRUE(r);
    EXPECT_GT(r->err_protocol, 10U);
    EXPECT_EQ(r->ok, 0U);
  }
  {
    // Nothing listens: connect errors, and no request waits past its deadline.
    std::string url;
    {
      StallServer gone(std::chrono::milliseconds(1000), std::chrono::milliseconds(0));
      url = gone.url();
    }
    LoadPlan p = plan_for(url);
    p.rate = 100;
    p.duration = std::chrono::milliseconds(300);
    auto t0 = Clock::now();
    auto r = run_load(p);
    ASSERT_TRUE(r);
    EXPECT_GT(r->err_connect, 0U);
    EXPECT_EQ(r->ok, 0U);
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(8));
  }
  {
    // Every reply held past the request deadline: timeouts.
    StallServer slow(std::chrono::milliseconds(100000), std::chrono::milliseconds(99000));
    LoadPlan p = plan_for(slow.url());
    p.rate = 50;
    p.duration = std::chrono::milliseconds(200);
    p.request_timeout = std::chrono::milliseconds(300);
    auto r = run_load(p);
    ASSERT_TRUE(r);
    EXPECT_GT(r->err_timeout, 3U);
    EXPECT_EQ(r->ok, 0U);
  }
}

TEST(ServeBench, ProbeRefusesA404AndSettingsAreChecked) {
  StallServer s404(std::chrono::milliseconds(1000), std::chrono::milliseconds(0), 404);
  BenchOptions o;
  o.target = s404.url();
  o.serve["rate"] = "10";
  o.serve["duration"] = "200ms";
  auto r = run_serve(Context{}, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("HTTP 404"), std::string::npos) << r.error().message;

  BenchOptions bad;
  bad.target = s404.url();
  EXPECT_FALSE(serve_settings(bad));  // neither --rate nor --concurrency nor --p99
  bad.serve["rate"] = "10";
  bad.serve["concurrency"] = "2";
  EXPECT_FALSE(serve_settings(bad));
  bad.serve.erase("concurrency");
  bad.serve["duration"] = "10 parsecs";  // not a duration
  EXPECT_FALSE(serve_settings(bad));
  bad.serve["duration"] = "1s";
  bad.serve["api"] = "oip";  // needs --model
  EXPECT_FALSE(serve_settings(bad));
  bad.serve["model"] = "resnet";
  auto ok = serve_settings(bad);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->plan.url.target, "/v2/models/resnet/infer");
  EXPECT_NE(ok->plan.request.find("\"datatype\":\"FP32\""), std::string::npos);
}

// A thread-per-connection HTTP/1.1 server whose replies come from `handler`: given the request
// line and body, the pieces to write, with a pause of `gap` between them (token streams).
class ScriptServer {
 public:
  using Handler = std::function<std::vector<std::string>(const std::string& line, const std::string& body)>;
  ScriptServer(Handler h, std::chrono::milliseconds gap) : h_(std::move(h)), gap_(gap) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 64), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    th_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) continue;
        int one = 1;  // as streaming servers do: each token leaves at once, not behind Nagle
        ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conns_.emplace_back([this, c] { serve(c); });
      }
    });
  }
  ~ScriptServer() {
    stop_ = true;
    th_.join();
    for (auto& t : conns_) t.join();
    ::close(fd_);
  }
  ScriptServer(const ScriptServer&) = delete;
  ScriptServer& operator=(const ScriptServer&) = delete;
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }
  std::atomic<int> requests{0};

 private:
  void serve(int c) {
    std::string in;
    char buf[8192];
    while (!stop_) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
      auto end = in.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      std::size_t len = 0;
      auto cl = in.find("Content-Length: ");
      if (cl != std::string::npos && cl < end) len = std::stoul(in.substr(cl + 16));
      if (in.size() < end + 4 + len) continue;
      std::string line = in.substr(0, in.find("\r\n"));
      std::string body = in.substr(end + 4, len);
      in.erase(0, end + 4 + len);
      ++requests;
      auto pieces = h_(line, body);
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (i > 0) std::this_thread::sleep_for(gap_);
        ::send(c, pieces[i].data(), pieces[i].size(), MSG_NOSIGNAL);
      }
    }
    ::close(c);
  }
  Handler h_;
  std::chrono::milliseconds gap_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread th_;
  std::vector<std::thread> conns_;
};

std::string chunk(const std::string& s) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "%zx", s.size());
  return std::string(hex) + "\r\n" + s + "\r\n";
}

TEST(ServeBench, OpenAiStreamGivesTimeToFirstTokenAndInterTokenLatency) {
  // vLLM-style completions stream: four text chunks 5 ms apart, a usage chunk, [DONE].
  ScriptServer server(
      [](const std::string& line, const std::string& body) -> std::vector<std::string> {
        if (line.rfind("POST /v1/completions ", 0) != 0 || body.find("\"stream\":true") == std::string::npos) {
          return {"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"};
        }
        std::vector<std::string> out{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"};
        for (const char* t : {" a", " b", " c", " d"}) out.push_back(chunk(std::string("data: {\"choices\":[{\"index\":0,\"text\":\"") + t + "\"}]}\n\n"));
        out.push_back(chunk("data: {\"choices\":[],\"usage\":{\"completion_tokens\":4}}\n\ndata: [DONE]\n\n") + "0\r\n\r\n");
        return out;
      },
      std::chrono::milliseconds(5));
  BenchOptions o;
  o.target = server.url();
  o.serve = {{"api", "openai"}, {"model", "m"}, {"concurrency", "2"}, {"duration", "600ms"}, {"warmup", "0"}};
  auto r = run_serve(Context{}, o);
  ASSERT_TRUE(r) << r.error().message;
  std::map<std::string, double> m;
  for (const auto& x : r->metrics) m[x.name] = x.median;
  ASSERT_TRUE(m.count("serve.ttft.p50"));
  ASSERT_TRUE(m.count("serve.itl.p50"));
  EXPECT_GE(m["serve.itl.p50"], 4.0);   // the server's 5 ms gaps
  EXPECT_LT(m["serve.itl.p50"], 50.0);
  EXPECT_LT(m["serve.ttft.p50"], m["serve.latency.p50"]);
  EXPECT_GT(m["serve.output_tokens_per_s"], 0);
  EXPECT_DOUBLE_EQ(r->derived["output_tokens"], 4 * r->derived["ok"]);
  EXPECT_EQ(r->derived["errors"], 0);
}

TEST(ServeBench, OipInferWithTritonStatsSplitsQueueFromCompute) {
  std::atomic<int> infers{0};
  ScriptServer server(
      [&infers](const std::string& line, const std::string& body) -> std::vector<std::string> {
        auto reply = [](const std::string& b) { return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(b.size()) + "\r\n\r\n" + b; };
        if (line.rfind("GET /v2/models/m/stats ", 0) == 0) {
          int n = infers.load();
          return {reply("{\"model_stats\":[{\"name\":\"m\",\"version\":\"1\",\"inference_count\":" + std::to_string(n) + ",\"execution_count\":" + std::to_string(n) +
                        ",\"inference_stats\":{\"success\":{\"count\":" + std::to_string(n) + ",\"ns\":" + std::to_string(n * 3000000LL) +
                        "},\"queue\":{\"count\":" + std::to_string(n) + ",\"ns\":" + std::to_string(n * 1000000LL) + "},\"compute_input\":{\"count\":0,\"ns\":0},"
                        "\"compute_infer\":{\"count\":" + std::to_string(n) + ",\"ns\":" + std::to_string(n * 2000000LL) + "},\"compute_output\":{\"count\":0,\"ns\":0}}}]}")};
        }
        if (line.rfind("POST /v2/models/m/infer ", 0) != 0 || body.find("\"shape\":[1,3]") == std::string::npos) {
          return {"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"};
        }
        ++infers;
        return {reply(R"({"model_name":"m","outputs":[{"name":"y","shape":[1,2],"datatype":"FP32","data":[0.5,0.5]}]})")};
      },
      std::chrono::milliseconds(0));
  BenchOptions o;
  o.target = server.url();
  o.serve = {{"api", "oip"}, {"model", "m"}, {"shape", "1,3"}, {"rate", "100"}, {"duration", "500ms"}, {"warmup", "0"}, {"triton-stats", "1"}};
  auto r = run_serve(Context{}, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GT(r->derived["ok"], 20);
  EXPECT_NEAR(r->derived["triton.queue_ms"], 1.0, 1e-6);
  EXPECT_NEAR(r->derived["triton.compute_ms"], 2.0, 1e-6);
  EXPECT_NE(r->notes["triton_stats"].find("queue 1 ms"), std::string::npos) << r->notes["triton_stats"];
}

TEST(ServeBench, SweepFindsTheHighestRateWithinTheBound) {
  // The one-thread test server answers at once: 200 req/s passes, and the sweep doubles from there
  // until the loopback pair can no longer hold P99 within the bound, then bisects. The bound is
  // wide (250 ms) so that a sanitizer build on a loaded machine, where one request can wait
  // 50 ms for a CPU, still passes the first step.
  StallServer fast(std::chrono::milliseconds(100000), std::chrono::milliseconds(0));
  BenchOptions o;
  o.target = fast.url();
  o.serve = {{"p99", "250ms"}, {"rate", "200"}, {"duration", "300ms"}, {"warmup", "0"}};
  auto r = run_serve(Context{}, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_GE(r->rows.size(), 2U);
  EXPECT_EQ(r->rows.front().setting.at("rate"), "200");
  EXPECT_GE(r->derived["max_rate_at_p99"], 200);
  bool has = false;
  for (const auto& m : r->metrics) has |= m.name == "serve.max_rate_at_p99";
  EXPECT_TRUE(has);
}

TEST(ServeBench, StabilityVerdict) {
  std::vector<LoadWindow> steady(10, LoadWindow{100, 2.0, 5.0});
  EXPECT_TRUE(judge_stability(steady, 1.0).stable);
  auto growing = steady;
  growing[7].p50_ms = 10;
  growing[8].p50_ms = 20;
  growing[9].p50_ms = 40;  // a queue that keeps growing
  auto g = judge_stability(growing, 1.0);
  EXPECT_TRUE(g.judged);
  EXPECT_FALSE(g.stable);
  auto few = steady;
  few[9].ok = 3;
  EXPECT_FALSE(judge_stability(few, 1.0).judged);
}

}  // namespace
}  // namespace plumb
