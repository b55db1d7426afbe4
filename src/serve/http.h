// A deliberately small HTTP/1.1 server for `plumb exporter`: GET/HEAD only, bounded request
// head and header count, read and write deadlines, a cap on connections, one poll() loop with
// non-blocking sockets so a slow or idle client can never stall a scrape. Handlers must be
// cheap: they serve pages prepared elsewhere.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace plumb::http {

// Admission (slow clients must not starve health checks and scrapes): a connection has
// head_timeout_ms from its first byte (or from accept) to deliver a whole request head; connections
// that have not completed a request yet may hold at most max_connections - reserved_connections
// slots, and when a new one arrives past that, the oldest of them is closed to make room (a
// slowloris client ages out first; a probe that sends its request at once is answered before it
// could be the oldest). The reserved slots stay for keep-alive clients that have completed a
// request (a Prometheus scraper). Only when every slot is busy writing does a newcomer get 503.
struct Limits {
  std::size_t max_head_bytes = 8192;   // request line + headers
  std::size_t max_headers = 64;
  int head_timeout_ms = 2000;          // for a whole request head
  int read_timeout_ms = 5000;          // idle keep-alive time between requests
  int write_timeout_ms = 5000;         // for a whole response
  std::size_t max_connections = 64;
  std::size_t reserved_connections = 4;  // of max_connections, kept for clients that completed a request
  std::size_t max_requests_per_connection = 10000;
};

struct Request {
  std::string method;   // GET | HEAD
  std::string target;   // "/metrics?x=1"
  std::string path;     // "/metrics"
  std::string version;  // HTTP/1.1
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  bool keep_alive = true;
};

// Result of parsing the bytes received so far.
struct Parsed {
  enum class Kind { incomplete, ok, error } kind = Kind::incomplete;
  int status = 0;            // for errors: 400, 405, 431, 505
  std::string reason;        // for errors: one line
  Request request;
  std::size_t consumed = 0;  // bytes of the head (ok only)
};
// Pure and total: any bytes give incomplete, ok or an error status.
Parsed parse_request_head(std::string_view buf, const Limits& limits);

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};
std::string serialize(const Response& r, bool keep_alive, bool head_only);
const char* status_text(int status);

// "127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464", ":9464" (every IPv4 interface), or a bare port (loopback).
Result<std::pair<std::string, int>> parse_listen(std::string_view text);
bool is_loopback(const std::string& host);

using Handler = std::function<Response(const Request&)>;

class Server {
 public:
  static Result<std::unique_ptr<Server>> listen(const std::string& host, int port, Limits limits);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  [[nodiscard]] int port() const { return port_; }
  // Serves until stop_fd becomes readable (or forever when -1). Closes every connection on return.
  void run(int stop_fd, const Handler& handler);

 private:
  Server(int fd, int port, Limits l) : fd_(fd), port_(port), limits_(l) {}
  int fd_;
  int port_;
  Limits limits_;
};

}  // namespace plumb::http
