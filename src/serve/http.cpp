// The exporter's HTTP server: a pure request-head parser and a single-threaded poll() loop.
#include "serve/http.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb::http {

namespace {

bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

Parsed fail(int status, std::string reason) {
  Parsed p;
  p.kind = Parsed::Kind::error;
  p.status = status;
  p.reason = std::move(reason);
  return p;
}

bool header_has_token(std::string_view value, std::string_view token) {
  for (auto part : split(value, ',')) {
    if (to_lower(trim(part)) == token) return true;
  }
  return false;
}

}  // namespace

Parsed parse_request_head(std::string_view buf, const Limits& limits) {
  auto end = buf.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (buf.size() > limits.max_head_bytes) return fail(431, "request head larger than " + std::to_string(limits.max_head_bytes) + " bytes");
    // A request line that is already malformed need not wait for the rest.
    auto first = buf.find("\r\n");
    if (first == std::string_view::npos && buf.size() > 0 && buf.find('\n') != std::string_view::npos) {
      return fail(400, "lines must end with CRLF");
    }
    return Parsed{};
  }
  if (end + 4 > limits.max_head_bytes) return fail(431, "request head larger than " + std::to_string(limits.max_head_bytes) + " bytes");
  std::string_view head = buf.substr(0, end);
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos <= head.size()) {
    auto nl = head.find("\r\n", pos);
    lines.push_back(head.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    if (nl == std::string_view::npos) break;
    pos = nl + 2;
  }
  // Request line: METHOD SP request-target SP HTTP-version (RFC 9112 section 3).
  std::string_view rl = lines[0];
  auto sp1 = rl.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? sp1 : rl.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || rl.find(' ', sp2 + 1) != std::string_view::npos) {
    return fail(400, "malformed request line");
  }
  Request r;
  std::string_view method = rl.substr(0, sp1), target = rl.substr(sp1 + 1, sp2 - sp1 - 1), version = rl.substr(sp2 + 1);
  if (method.empty() || !std::all_of(method.begin(), method.end(), is_token_char)) return fail(400, "malformed method");
  if (target.empty() || target.front() != '/' ||
      std::any_of(target.begin(), target.end(), [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; })) {
    return fail(400, "request target must be an absolute path");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return starts_with(version, "HTTP/") ? fail(505, "only HTTP/1.0 and HTTP/1.1") : fail(400, "malformed HTTP version");
  }
  r.method = std::string(method);
  r.target = std::string(target);
  r.path = std::string(target.substr(0, target.find('?')));
  r.version = std::string(version);
  r.keep_alive = version == "HTTP/1.1";
  if (lines.size() - 1 > limits.max_headers) return fail(431, "more than " + std::to_string(limits.max_headers) + " header fields");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (!l.empty() && (l.front() == ' ' || l.front() == '\t')) return fail(400, "obsolete header line folding");
    auto colon = l.find(':');
    if (colon == std::string_view::npos || colon == 0) return fail(400, "malformed header field");
    std::string_view name = l.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), is_token_char)) return fail(400, "malformed header name");
    std::string_view value = trim(l.substr(colon + 1));
    if (std::any_of(value.begin(), value.end(), [](char c) { return c == '\0' || c == '\r' || c == '\n'; })) {
      return fail(400, "control character in a header value");
    }
    r.headers.emplace_back(to_lower(name), std::string(value));
  }
  for (const auto& [k, v] : r.headers) {
    // The exporter takes no request bodies: refusing them avoids request smuggling questions.
    if (k == "transfer-encoding") return fail(400, "request bodies are not accepted");
    if (k == "content-length" && parse_uint(v).value_or(1) != 0) return fail(400, "request bodies are not accepted");
    if (k == "connection") {
      if (header_has_token(v, "close")) r.keep_alive = false;
      else if (header_has_token(v, "keep-alive")) r.keep_alive = true;
    }
  }
  if (r.method != "GET" && r.method != "HEAD") return fail(405, "only GET and HEAD");
  Parsed p;
  p.kind = Parsed::Kind::ok;
  p.request = std::move(r);
  p.consumed = end + 4;
  return p;
}

const char* status_text(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

std::string serialize(const Response& r, bool keep_alive, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + status_text(r.status) + "\r\n";
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
  for (const auto& [k, v] : r.headers) out.append(k).append(": ").append(v).append("\r\n");
  out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  out += "\r\n";
  if (!head_only) out += r.body;
  return out;
}

Result<std::pair<std::string, int>> parse_listen(std::string_view text) {
  std::string_view s = trim(text);
  std::string host = "127.0.0.1";
  std::string_view port_text = s;
  if (!s.empty() && s.front() == '[') {
    auto close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':') {
      return make_error(ErrorKind::invalid, "'" + std::string(s) + "': expected [ADDRESS]:PORT");
    }
    host = std::string(s.substr(1, close - 1));
    port_text = s.substr(close + 2);
  } else if (auto colon = s.rfind(':'); colon != std::string_view::npos) {
    if (s.find(':') != colon) return make_error(ErrorKind::invalid, "'" + std::string(s) + "': write IPv6 addresses as [ADDRESS]:PORT");
    host = std::string(s.substr(0, colon));
    port_text = s.substr(colon + 1);
    if (host.empty()) host = "0.0.0.0";  // ":9464", as node_exporter's --web.listen-address reads it: every interface
  }
  auto port = parse_uint(port_text);
  if (!port || *port > 65535) return make_error(ErrorKind::invalid, "'" + std::string(s) + "': port must be 0..65535");
  in6_addr a6{};
  in_addr a4{};
  if (::inet_pton(AF_INET, host.c_str(), &a4) != 1 && ::inet_pton(AF_INET6, host.c_str(), &a6) != 1) {
    return make_error(ErrorKind::invalid, "'" + host + "' is not a numeric IP address");
  }
  return std::pair<std::string, int>{host, static_cast<int>(*port)};
}

bool is_loopback(const std::string& host) { return starts_with(host, "127.") || host == "::1"; }

Result<std::unique_ptr<Server>> Server::listen(const std::string& host, int port, Limits limits) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port_s = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res); rc != 0) {
    return make_error(ErrorKind::invalid, host + ": " + ::gai_strerror(rc));
  }
  int fd = ::socket(res->ai_family, res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    ::freeaddrinfo(res);
    return make_error(ErrorKind::io, std::string("socket: ") + errno_text(errno));
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, res->ai_addr, res->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
    int e = errno;
    ::freeaddrinfo(res);
    ::close(fd);
    return make_error(error_kind_from_errno(e), "cannot listen on " + host + ":" + port_s + " (" + errno_text(e) + ")");
  }
  ::freeaddrinfo(res);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  int actual = port;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    actual = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                      : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  }
  return std::unique_ptr<Server>(new Server(fd, actual, limits));
}

Server::~Server() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd = -1;
  std::string in;
  std::string out;
  std::size_t sent = 0;
  bool writing = false;
  bool close_after = false;
  std::size_t requests = 0;
  Clock::time_point since;     // accepted, or the end of its last response
  Clock::time_point deadline;
};

void close_conn(Conn& c) {
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
}

// The connection to close when a newcomer needs a slot: the oldest one that has not completed a
// request, or (only when `idle_too`) the longest-idle keep-alive one. Nullptr when none may go.
Conn* eviction_candidate(std::vector<Conn>& conns, bool idle_too) {
  Conn* fresh = nullptr;
  Conn* idle = nullptr;
  for (auto& c : conns) {
    if (c.fd < 0 || c.writing) continue;
    if (c.requests == 0) {
      if (fresh == nullptr || c.since < fresh->since) fresh = &c;
    } else if (c.in.empty()) {
      if (idle == nullptr || c.since < idle->since) idle = &c;
    }
  }
  if (fresh != nullptr) return fresh;
  return idle_too ? idle : nullptr;
}

void respond(Conn& c, const Response& r, bool keep_alive, bool head_only, const Limits& l) {
  c.out = serialize(r, keep_alive, head_only);
  c.sent = 0;
  c.writing = true;
  c.close_after = !keep_alive;
  c.deadline = Clock::now() + std::chrono::milliseconds(l.write_timeout_ms);
}

// Parses what has arrived; queues a response when a request is complete. False: close now.
bool advance(Conn& c, const Handler& handler, const Limits& l) {
  Parsed p = parse_request_head(c.in, l);
  if (p.kind == Parsed::Kind::incomplete) return true;
  if (p.kind == Parsed::Kind::error) {
    Response r;
    r.status = p.status;
    r.body = p.reason + "\n";
    if (p.status == 405) r.headers.emplace_back("Allow", "GET, HEAD");
    respond(c, r, false, false, l);
    c.in.clear();
    return true;
  }
  c.in.erase(0, p.consumed);
  ++c.requests;
  bool keep = p.request.keep_alive && c.requests < l.max_requests_per_connection;
  Response r;
  try {
    r = handler(p.request);
  } catch (const std::exception& e) {
    r = Response{500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n", {}};
  }
  respond(c, r, keep, p.request.method == "HEAD", l);
  return true;
}

}  // namespace

void Server::run(int stop_fd, const Handler& handler) {
  std::vector<Conn> conns;
  std::vector<pollfd> pfds;
  char buf[4096];
  for (;;) {
    auto now = Clock::now();
    // Deadlines first: a client that is too slow to send its head or read its answer is dropped.
    for (auto& c : conns) {
      if (c.fd >= 0 && now >= c.deadline) {
        ::close(c.fd);
        c.fd = -1;
      }
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(), [](const Conn& c) { return c.fd < 0; }), conns.end());
    pfds.clear();
    pfds.push_back({stop_fd, POLLIN, 0});
    pfds.push_back({fd_, POLLIN, 0});
    int timeout = -1;
    for (const auto& c : conns) {
      pfds.push_back({c.fd, static_cast<short>(c.writing ? POLLOUT : POLLIN), 0});
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(c.deadline - now).count();
      timeout = timeout < 0 ? static_cast<int>(ms) : std::min(timeout, static_cast<int>(ms));
    }
    int n = ::poll(pfds.data(), pfds.size(), timeout);
    if (n < 0 && errno != EINTR) break;
    if (stop_fd >= 0 && (pfds[0].revents & POLLIN) != 0) break;
    std::size_t polled = conns.size();  // connections accepted below are not in pfds yet
    if ((pfds[1].revents & POLLIN) != 0) {
      // Drain the whole backlog: a probe queued behind a flood of connects must not wait for the
      // kernel to retransmit its SYN.
      for (int k = 0; k < 4096; ++k) {
        int cfd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0) break;
        std::size_t live = 0;
        std::size_t fresh = 0;
        for (const auto& c : conns) {
          if (c.fd < 0) continue;
          ++live;
          if (c.requests == 0 && !c.writing) ++fresh;
        }
        std::size_t fresh_cap = limits_.max_connections > limits_.reserved_connections
                                    ? limits_.max_connections - limits_.reserved_connections
                                    : 1;
        if (fresh >= fresh_cap || live >= limits_.max_connections) {
          Conn* victim = eviction_candidate(conns, live >= limits_.max_connections);
          if (victim != nullptr) {
            close_conn(*victim);
          } else if (live >= limits_.max_connections) {
            // Every slot is answering: a short answer without reading anything, then close.
            std::string busy = serialize({503, "text/plain; charset=utf-8", "too many connections\n", {}}, false, false);
            (void)!::send(cfd, busy.data(), busy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            ::close(cfd);
            continue;
          }
        }
        int one = 1;
        ::setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        Conn c;
        c.fd = cfd;
        c.since = Clock::now();
        c.deadline = c.since + std::chrono::milliseconds(limits_.head_timeout_ms);
        // The request is often already here: answer it now rather than after another poll round.
        ssize_t got = ::recv(cfd, buf, sizeof buf, 0);
        if (got > 0) {
          c.in.append(buf, static_cast<std::size_t>(got));
          advance(c, handler, limits_);
        } else if (got == 0) {
          ::close(cfd);
          continue;
        }
        conns.push_back(std::move(c));
      }
    }
    for (std::size_t i = 2; i < pfds.size() && i - 2 < polled; ++i) {
      Conn& c = conns[i - 2];
      short ev = pfds[i].revents;
      if (ev == 0 || c.fd < 0) continue;
      if (!c.writing && (ev & (POLLIN | POLLHUP | POLLERR)) != 0) {
        ssize_t got = ::recv(c.fd, buf, sizeof buf, 0);
        if (got <= 0) {
          if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
          ::close(c.fd);
          c.fd = -1;
          continue;
        }
        if (c.in.empty() && c.requests > 0) {
          // The first byte of the next request on a keep-alive connection: the head deadline starts.
          c.deadline = std::min(c.deadline, Clock::now() + std::chrono::milliseconds(limits_.head_timeout_ms));
        }
        c.in.append(buf, static_cast<std::size_t>(got));
        advance(c, handler, limits_);
      } else if (c.writing && (ev & (POLLOUT | POLLHUP | POLLERR)) != 0) {
        ssize_t put = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
        if (put < 0) {
          if (errno == EAGAIN || errno == EINTR) continue;
          ::close(c.fd);  // the client went away mid-response
          c.fd = -1;
          continue;
        }
        c.sent += static_cast<std::size_t>(put);
        if (c.sent < c.out.size()) continue;
        if (c.close_after) {
          ::shutdown(c.fd, SHUT_WR);
          ::close(c.fd);
          c.fd = -1;
          continue;
        }
        // Keep-alive: wait for the next request (it may already be buffered: pipelining).
        c.writing = false;
        c.out.clear();
        c.since = Clock::now();
        c.deadline = c.since + std::chrono::milliseconds(limits_.read_timeout_ms);
        if (!c.in.empty()) advance(c, handler, limits_);
      }
    }
  }
  for (auto& c : conns) {
    if (c.fd >= 0) ::close(c.fd);
  }
}

}  // namespace plumb::http
