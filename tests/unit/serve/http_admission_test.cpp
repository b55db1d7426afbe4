// The exporter's listener under a slowloris flood: clients that send one header byte at a time on
// four times as many connections as the listener has slots, reconnecting whenever they are closed,
// must not keep health probes or a keep-alive scraper from being answered.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "serve/http.h"

namespace plumb {
namespace {

using Clock = std::chrono::steady_clock;

int connect_to(int port, bool nonblocking) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  if (rc != 0 && !(nonblocking && errno == EINPROGRESS)) {
    ::close(fd);
    return -1;
  }
  if (!nonblocking) {
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  return fd;
}

// One request on a connection; the response's status line, or "" on failure.
std::string exchange(int fd, const std::string& request, bool until_close) {
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) return "";
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
    if (!until_close && got.find("\r\n\r\n") != std::string::npos && got.find("ok\n") != std::string::npos) break;
  }
  return got.substr(0, got.find("\r\n"));
}

struct Flood {
  int port;
  std::size_t sockets;
  std::atomic<bool> stop{false};
  std::atomic<long> reconnects{0};
  void run() {
    std::vector<int> fds(sockets, -1);
    const std::string drip = "GET /healthz HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    std::size_t pos = 0;
    while (!stop.load()) {
      for (auto& fd : fds) {
        if (fd < 0) {
          fd = connect_to(port, true);
          reconnects.fetch_add(1);
          continue;
        }
        char c = drip[pos % drip.size()];
        ssize_t put = ::send(fd, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        char sink[512];
        ssize_t got = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
        if ((put < 0 && errno != EAGAIN && errno != ENOTCONN) || got == 0 || (got < 0 && errno != EAGAIN)) {
          ::close(fd);
          fd = -1;
        }
      }
      ++pos;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
};

TEST(HttpAdmission, SlowlorisDoesNotStarveProbesOrScraper) {
  http::Limits limits;
  limits.max_connections = 16;
  auto server = http::Server::listen("127.0.0.1", 0, limits);
  ASSERT_TRUE(server.ok()) << server.error().message;
  int port = (*server)->port();
  int stop_pipe[2];
  ASSERT_EQ(::pipe(stop_pipe), 0);
  std::thread serve([&] {
    (*server)->run(stop_pipe[0], [](const http::Request&) {
      return http::Response{200, "text/plain; charset=utf-8", "ok\n", {}};
    });
  });

  // A keep-alive scraper that has completed one request before the flood starts.
  int scraper = connect_to(port, false);
  ASSERT_GE(scraper, 0);
  ASSERT_EQ(exchange(scraper, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", false), "HTTP/1.1 200 OK");

  Flood flood{port, 4 * limits.max_connections};
  std::thread attacker([&] { flood.run(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // every slot is taken by now

  const int probes = 200;
  int fast = 0;
  int answered = 0;
  std::vector<double> ms;
  for (int i = 0; i < probes; ++i) {
    auto t0 = Clock::now();
    int fd = connect_to(port, false);
    std::string status = fd >= 0 ? exchange(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true) : "";
    if (fd >= 0) ::close(fd);
    double took = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    ms.push_back(took);
    if (status == "HTTP/1.1 200 OK") {
      ++answered;
      if (took <= 100.0) ++fast;
    }
    if (i % 50 == 49) {
      // The scraper keeps its reserved slot through the flood.
      EXPECT_EQ(exchange(scraper, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", false), "HTTP/1.1 200 OK") << "probe " << i;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  flood.stop = true;
  attacker.join();
  ::close(scraper);
  ASSERT_EQ(::write(stop_pipe[1], "x", 1), 1);
  serve.join();
  ::close(stop_pipe[0]);
  ::close(stop_pipe[1]);

  std::sort(ms.begin(), ms.end());
  EXPECT_GT(flood.reconnects.load(), static_cast<long>(4 * limits.max_connections))
      << "the flood never had connections closed: it did not compete for slots";
  // The bar: at least 99 % of the probes answered within 100 ms. A probe whose request has not
  // arrived yet looks like a silent client and can be closed when it is the oldest of them (seen
  // once in 200 on a loaded machine); it is then one of the 1 %.
  EXPECT_GE(answered, probes * 99 / 100);
  EXPECT_GE(fast, probes * 99 / 100) << "median " << ms[ms.size() / 2] << " ms, max " << ms.back() << " ms";
}

TEST(HttpAdmission, HeadDeadlineClosesASlowClient) {
  http::Limits limits;
  limits.head_timeout_ms = 200;
  auto server = http::Server::listen("127.0.0.1", 0, limits);
  ASSERT_TRUE(server.ok());
  int stop_pipe[2];
  ASSERT_EQ(::pipe(stop_pipe), 0);
  std::thread serve([&] {
    (*server)->run(stop_pipe[0], [](const http::Request&) { return http::Response{}; });
  });
  int fd = connect_to((*server)->port(), false);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::send(fd, "GET / HTTP/1.1\r\n", 16, MSG_NOSIGNAL), 16);
  auto t0 = Clock::now();
  char c;
  ssize_t n = ::recv(fd, &c, 1, 0);  // the server closes without an answer
  double took = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_EQ(n, 0);
  EXPECT_LT(took, 1900.0);
  ::close(fd);
  ASSERT_EQ(::write(stop_pipe[1], "x", 1), 1);
  serve.join();
  ::close(stop_pipe[0]);
  ::close(stop_pipe[1]);
}

}  // namespace
}  // namespace plumb
