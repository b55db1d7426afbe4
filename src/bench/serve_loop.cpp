// The load generator's event loops: one epoll + timerfd loop per thread, non-blocking sockets,
// deadlines on connect and on every request, errors counted by class.
#include "bench/serve_loop.h"

#include <netdb.h>
#include <poll.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <thread>

#include "bench/serve_codec.h"
#include "core/host_root.h"

namespace plumb {

namespace {

std::int64_t mono_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool starts_with_head(const std::string& request) { return request.rfind("HEAD ", 0) == 0; }

struct Target {
  sockaddr_storage addr{};
  socklen_t len = 0;
  int family = AF_INET;
};

struct Conn {
  enum class St { closed, connecting, idle, writing, reading };
  std::uint64_t id = 0;  // 1 + index in the worker's table (0 is the timer); slots are reused, never erased
  int fd = -1;
  St st = St::closed;
  std::uint32_t interest = 0;  // the epoll mask registered now: changed only when it must be
  std::int64_t connect_deadline = 0;
  std::size_t written = 0;
  // The request in flight (absolute monotonic ns).
  std::int64_t intended = 0, sent = 0, deadline = 0, last_token = -1;
  bool measured = false;
  std::size_t window = 0;
  std::uint64_t tokens = 0;
  std::optional<std::int64_t> usage_tokens;
  bool stream_error = false;
  std::string stream_why;
  httpc::ResponseParser parser;
  httpc::SseParser sse;
  explicit Conn(const httpc::Limits& l) : parser(l) {}
};

class Worker {
 public:
  Worker(const LoadPlan& p, const Target& t, unsigned index, std::int64_t t0, unsigned conn_cap, unsigned closed_conns)
      : p_(p), t_(t), index_(index), t0_(t0), cap_(std::max(1U, conn_cap)), closed_conns_(closed_conns),
        warm_end_(t0 + p.warmup.count()), end_(t0 + p.warmup.count() + p.duration.count()),
        windows_(std::max(1U, p.windows)), win_hist_(windows_) {
    res.windows.resize(windows_);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() {
    for (auto& c : conns_) close_conn(*c);
    if (ep_ >= 0) ::close(ep_);
    if (tfd_ >= 0) ::close(tfd_);
  }

  void run();
  LoadResult res;
  std::vector<LatencyHistogram>& window_hist() { return win_hist_; }

 private:
  void note_error(const std::string& why) {
    if (res.first_error.empty()) res.first_error = why;
  }
  void open_conn(std::int64_t now);
  void connect_failed(Conn& c, int err, std::int64_t now);
  void close_conn(Conn& c);
  void set_interest(Conn& c, std::uint32_t ev);
  void start_request(Conn& c, std::int64_t intended, std::int64_t now);
  void write_more(Conn& c, std::int64_t now);
  void read_more(Conn& c);
  void finish(Conn& c, bool ok_reply);
  void fail_request(Conn& c, std::uint64_t LoadResult::*counter, const std::string& why);
  void on_event(Conn& c, std::uint32_t ev, std::int64_t now);
  void dispatch(std::int64_t now);
  void expire(std::int64_t now);
  std::int64_t next_wake(std::int64_t now) const;
  [[nodiscard]] std::size_t open_count() const;
  [[nodiscard]] std::size_t connecting_count() const;
  [[nodiscard]] bool in_flight() const;

  const LoadPlan& p_;
  const Target& t_;
  unsigned index_;
  std::int64_t t0_;
  unsigned cap_, closed_conns_;
  std::int64_t warm_end_, end_;
  unsigned windows_;
  std::vector<LatencyHistogram> win_hist_;
  int ep_ = -1, tfd_ = -1;
  std::int64_t armed_ = 0;  // when the timer fires next (absolute ns); 0: not armed
  std::vector<std::unique_ptr<Conn>> conns_;
  std::deque<std::int64_t> pending_;  // intended times of due requests waiting for a connection
  bool scheduling_ = true;
  std::int64_t next_due_ = 0;
  std::int64_t connect_backoff_until_ = 0;
  std::optional<ArrivalSchedule> sched_;
  std::vector<char> buf_ = std::vector<char>(std::size_t{64} * 1024);
};

std::size_t Worker::open_count() const {
  return static_cast<std::size_t>(std::count_if(conns_.begin(), conns_.end(), [](const auto& c) { return c->st != Conn::St::closed; }));
}
std::size_t Worker::connecting_count() const {
  return static_cast<std::size_t>(std::count_if(conns_.begin(), conns_.end(), [](const auto& c) { return c->st == Conn::St::connecting; }));
}
bool Worker::in_flight() const {
  return std::any_of(conns_.begin(), conns_.end(), [](const auto& c) { return c->st == Conn::St::writing || c->st == Conn::St::reading; });
}

void Worker::set_interest(Conn& c, std::uint32_t ev) {
  if (c.interest == ev) return;  // one epoll_ctl saved per request on a busy keep-alive connection
  c.interest = ev;
  epoll_event e{};
  e.events = ev;
  e.data.u64 = c.id;
  ::epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &e);
}

void Worker::close_conn(Conn& c) {
  if (c.fd >= 0) ::close(c.fd);  // closing removes it from the epoll set
  c.fd = -1;
  c.st = Conn::St::closed;
  c.interest = 0;
}

void Worker::open_conn(std::int64_t now) {
  Conn* slot = nullptr;
  std::size_t idx = 0;
  for (std::size_t i = 0; i < conns_.size(); ++i) {
    if (conns_[i]->st == Conn::St::closed) {
      slot = conns_[i].get();
      idx = i;
      break;
    }
  }
  if (slot == nullptr) {
    conns_.push_back(std::make_unique<Conn>(p_.limits));
    slot = conns_.back().get();
    idx = conns_.size() - 1;
    slot->id = idx + 1;
  }
  Conn& c = *slot;
  c.fd = ::socket(t_.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.fd < 0) {
    note_error(std::string("socket: ") + errno_text(errno));
    connect_backoff_until_ = now + 10000000;
    return;
  }
  int one = 1;
  ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ++res.connections_opened;
  int rc = ::connect(c.fd, reinterpret_cast<const sockaddr*>(&t_.addr), t_.len);
  c.st = Conn::St::connecting;
  c.connect_deadline = now + p_.connect_timeout.count();
  epoll_event e{};
  e.events = EPOLLOUT;
  e.data.u64 = idx + 1;
  if (rc != 0 && errno != EINPROGRESS) {
    connect_failed(c, errno, now);
    return;
  }
  ::epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &e);
  c.interest = EPOLLOUT;
  res.peak_connections = std::max<std::uint64_t>(res.peak_connections, open_count());
}

// A connection that could not be made costs the request that waited for it (open loop: the
// oldest due one; closed loop: the one it would have carried).
void Worker::connect_failed(Conn& c, int err, std::int64_t now) {
  close_conn(c);
  note_error("connect: " + errno_text(err));
  if (!pending_.empty()) {
    if (pending_.front() >= warm_end_) ++res.err_connect;
    pending_.pop_front();
  } else if (p_.closed_loop && now >= warm_end_ && now < end_) {
    ++res.err_connect;
    ++res.scheduled;
  }
  connect_backoff_until_ = now + 10000000;  // 10 ms: no busy loop against a refusing port
}

void Worker::start_request(Conn& c, std::int64_t intended, std::int64_t now) {
  c.intended = intended;
  c.sent = now;
  c.measured = intended >= warm_end_ && intended < end_;
  c.window = c.measured ? static_cast<std::size_t>(std::min<std::int64_t>(windows_ - 1, (intended - warm_end_) * windows_ / std::max<std::int64_t>(1, p_.duration.count()))) : 0;
  c.deadline = (p_.closed_loop ? now : intended) + p_.request_timeout.count();
  c.written = 0;
  c.last_token = -1;
  c.tokens = 0;
  c.usage_tokens.reset();
  c.stream_error = false;
  c.stream_why.clear();
  c.parser.reset(p_.head_request);
  if (p_.sse) {
    c.sse = httpc::SseParser(p_.limits.keep_body_bytes);
    Conn* cp = &c;
    c.sse.on_event = [this, cp](std::string_view data) {
      auto chunk = serving::parse_openai_chunk(data);
      if (!chunk) {
        cp->stream_error = true;
        cp->stream_why = chunk.error().message;
        return;
      }
      if (chunk->usage_completion_tokens) cp->usage_tokens = *chunk->usage_completion_tokens;
      if (chunk->text.empty()) return;
      std::int64_t t = mono_ns();
      if (cp->measured) {
        if (cp->last_token < 0) res.ttft.record(static_cast<std::uint64_t>(std::max<std::int64_t>(0, t - cp->sent)));
        else res.itl.record(static_cast<std::uint64_t>(std::max<std::int64_t>(0, t - cp->last_token)));
      }
      cp->last_token = t;
      ++cp->tokens;
    };
    c.parser.on_body = [cp](std::string_view piece) {
      if (cp->parser.status() >= 200 && cp->parser.status() < 300 && !cp->sse.feed(piece)) {
        cp->stream_error = true;
        cp->stream_why = cp->sse.error();
      }
    };
  }
  if (c.measured) {
    ++res.sent;
    if (p_.closed_loop) ++res.scheduled;
    std::int64_t lag = now - intended;
    if (lag > p_.late_after.count()) ++res.late;
    res.max_send_lag_ms = std::max(res.max_send_lag_ms, static_cast<double>(lag) / 1e6);
  } else {
    ++res.warmup_requests;
  }
  c.st = Conn::St::writing;
  write_more(c, now);
}

void Worker::write_more(Conn& c, std::int64_t /*now*/) {
  while (c.written < p_.request.size()) {
    ssize_t n = ::send(c.fd, p_.request.data() + c.written, p_.request.size() - c.written, MSG_NOSIGNAL);
    if (n > 0) {
      c.written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      set_interest(c, EPOLLOUT);
      return;
    }
    fail_request(c, &LoadResult::err_protocol, std::string("send: ") + errno_text(errno));
    return;
  }
  c.st = Conn::St::reading;
  set_interest(c, EPOLLIN | EPOLLRDHUP);
}

void Worker::fail_request(Conn& c, std::uint64_t LoadResult::*counter, const std::string& why) {
  if (c.measured) {
    res.*counter += 1;
    note_error(why);
  }
  close_conn(c);
}

void Worker::finish(Conn& c, bool ok_reply) {
  std::int64_t now = mono_ns();
  int status = c.parser.status();
  if (c.measured) {
    if (!ok_reply) {
      ++res.err_protocol;
      note_error(c.stream_why.empty() ? "protocol: " + c.parser.error() : "stream: " + c.stream_why);
    } else if (status >= 500) {
      ++res.err_5xx;
      note_error("HTTP " + std::to_string(status));
    } else if (status >= 400) {
      ++res.err_4xx;
      note_error("HTTP " + std::to_string(status));
    } else {
      ++res.ok;
      auto from_intended = static_cast<std::uint64_t>(std::max<std::int64_t>(0, now - c.intended));
      res.from_intended.record(from_intended);
      res.from_sent.record(static_cast<std::uint64_t>(std::max<std::int64_t>(0, now - c.sent)));
      win_hist_[c.window].record(from_intended);
      ++res.windows[c.window].ok;
      if (p_.sse) res.output_tokens += c.usage_tokens ? static_cast<std::uint64_t>(std::max<std::int64_t>(0, *c.usage_tokens)) : c.tokens;
    }
  }
  if (ok_reply && c.parser.keep_alive()) {
    c.st = Conn::St::idle;
    set_interest(c, EPOLLIN | EPOLLRDHUP);  // an idle connection the server closes is noticed
  } else {
    close_conn(c);
  }
}

void Worker::read_more(Conn& c) {
  for (;;) {
    ssize_t n = ::recv(c.fd, buf_.data(), buf_.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      if (c.st != Conn::St::reading) {  // idle keep-alive connection closed by the server
        close_conn(c);
        return;
      }
      if (n == 0) c.parser.on_eof();
      if (c.parser.done()) {
        finish(c, !c.stream_error);
        if (c.st != Conn::St::closed) close_conn(c);
      } else {
        fail_request(c, &LoadResult::err_protocol, n == 0 ? "protocol: " + c.parser.error() : std::string("recv: ") + errno_text(errno));
      }
      return;
    }
    if (c.st != Conn::St::reading) {  // bytes nobody asked for
      close_conn(c);
      return;
    }
    std::string_view data(buf_.data(), static_cast<std::size_t>(n));
    std::size_t used = c.parser.feed(data);
    if (c.parser.state() == httpc::ResponseParser::State::error) {
      fail_request(c, &LoadResult::err_protocol, "protocol: " + c.parser.error());
      return;
    }
    if (c.parser.done()) {
      bool extra = used < data.size();
      finish(c, !c.stream_error);
      if (extra && c.st != Conn::St::closed) close_conn(c);  // no pipelining: trailing bytes are garbage
      return;
    }
  }
}

void Worker::on_event(Conn& c, std::uint32_t ev, std::int64_t now) {
  if (c.st == Conn::St::connecting) {
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0 || (ev & (EPOLLERR | EPOLLHUP)) != 0) {
      connect_failed(c, err != 0 ? err : ECONNREFUSED, now);
      return;
    }
    c.st = Conn::St::idle;
    set_interest(c, EPOLLIN | EPOLLRDHUP);
    return;
  }
  if (c.st == Conn::St::writing && (ev & EPOLLOUT) != 0) {
    write_more(c, now);
    return;
  }
  if ((ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) read_more(c);
}

void Worker::dispatch(std::int64_t now) {
  if (p_.closed_loop) {
    if (now >= end_ || (p_.stop != nullptr && p_.stop->load())) return;
    for (auto& c : conns_) {
      if (c->st == Conn::St::idle) start_request(*c, now, now);
    }
    while (open_count() < closed_conns_ && now >= connect_backoff_until_) {
      std::size_t before = res.connections_opened;
      open_conn(now);
      if (res.connections_opened == before || now < connect_backoff_until_) break;
    }
    return;
  }
  for (auto& c : conns_) {
    if (pending_.empty()) break;
    if (c->st == Conn::St::idle) {
      std::int64_t due = pending_.front();
      pending_.pop_front();
      start_request(*c, due, now);
    }
  }
  while (!pending_.empty() && connecting_count() < pending_.size() && open_count() < cap_ && now >= connect_backoff_until_) {
    std::size_t before = res.connections_opened;
    open_conn(now);
    if (res.connections_opened == before) break;
  }
  if (!pending_.empty() && open_count() >= cap_ && pending_.front() >= warm_end_) res.hit_connection_cap = true;
}

void Worker::expire(std::int64_t now) {
  for (auto& cp : conns_) {
    Conn& c = *cp;
    if (c.st == Conn::St::connecting && now >= c.connect_deadline) {
      close_conn(c);
      note_error("connect: no answer within the connect deadline");
      if (!pending_.empty()) {
        if (pending_.front() >= warm_end_) ++res.err_connect;
        pending_.pop_front();
      }
    } else if ((c.st == Conn::St::writing || c.st == Conn::St::reading) && now >= c.deadline) {
      fail_request(c, &LoadResult::err_timeout, "timeout: no complete reply within the request deadline");
    }
  }
  while (!pending_.empty() && pending_.front() + p_.request_timeout.count() <= now) {
    if (pending_.front() >= warm_end_) {
      ++res.err_timeout;
      ++res.unsent;
      note_error("timeout: no free connection before the request deadline (raise --connections)");
    }
    pending_.pop_front();
  }
}

std::int64_t Worker::next_wake(std::int64_t now) const {
  std::int64_t w = now + 1000000000;
  if (!p_.closed_loop && scheduling_) w = std::min(w, next_due_);
  if (!pending_.empty()) w = std::min(w, pending_.front() + p_.request_timeout.count());
  if (connect_backoff_until_ > now) w = std::min(w, connect_backoff_until_);
  if (p_.closed_loop) w = std::min(w, std::max(now, end_));
  for (const auto& c : conns_) {
    if (c->st == Conn::St::connecting) w = std::min(w, c->connect_deadline);
    if (c->st == Conn::St::writing || c->st == Conn::St::reading) w = std::min(w, c->deadline);
  }
  return w;
}

void Worker::run() {
  ep_ = ::epoll_create1(EPOLL_CLOEXEC);
  tfd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (ep_ < 0 || tfd_ < 0) {
    note_error(std::string("epoll/timerfd: ") + errno_text(errno));
    return;
  }
  epoll_event te{};
  te.events = EPOLLIN;
  te.data.u64 = 0;
  ::epoll_ctl(ep_, EPOLL_CTL_ADD, tfd_, &te);
  if (!p_.closed_loop) {
    sched_.emplace(p_.arrival, p_.rate, index_, std::max(1U, p_.threads), p_.seed);
    next_due_ = t0_ + static_cast<std::int64_t>(sched_->next());
    scheduling_ = next_due_ < end_;
  }
  // Nothing may outlive the run by more than the deadlines that bound it.
  std::int64_t hard_end = end_ + p_.request_timeout.count() + p_.connect_timeout.count() + 1000000000;
  std::vector<epoll_event> evs(128);
  for (;;) {
    std::int64_t now = mono_ns();
    bool stopping = p_.stop != nullptr && p_.stop->load();
    if (stopping || now >= hard_end) break;
    if (now < t0_) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(t0_ - now));
      continue;
    }
    while (!p_.closed_loop && scheduling_ && next_due_ <= now) {
      pending_.push_back(next_due_);
      if (next_due_ >= warm_end_) ++res.scheduled;
      next_due_ = t0_ + static_cast<std::int64_t>(sched_->next());
      if (next_due_ >= end_) scheduling_ = false;
    }
    expire(now);
    dispatch(now);
    bool sending_over = p_.closed_loop ? now >= end_ : !scheduling_;
    if (sending_over && pending_.empty() && !in_flight()) break;
    std::int64_t wake = next_wake(now);
    int timeout_ms = -1;
    if (wake <= now) {
      timeout_ms = 0;
    } else if (armed_ <= now || wake < armed_) {
      // Re-armed only when the next wake is earlier than the armed one (or that one passed): a
      // timer that fires early costs one idle loop, a syscall per request costs throughput.
      itimerspec its{};
      its.it_value.tv_sec = wake / 1000000000;
      its.it_value.tv_nsec = wake % 1000000000;
      ::timerfd_settime(tfd_, TFD_TIMER_ABSTIME, &its, nullptr);
      armed_ = wake;
    }
    int n = ::epoll_wait(ep_, evs.data(), static_cast<int>(evs.size()), timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      note_error(std::string("epoll_wait: ") + errno_text(errno));
      break;
    }
    now = mono_ns();
    for (int i = 0; i < n; ++i) {
      std::uint64_t id = evs[static_cast<std::size_t>(i)].data.u64;
      if (id == 0) {
        std::uint64_t ticks = 0;
        while (::read(tfd_, &ticks, sizeof ticks) > 0) {
        }
        continue;
      }
      if (id - 1 >= conns_.size()) continue;
      Conn& c = *conns_[id - 1];
      if (c.st == Conn::St::closed) continue;
      on_event(c, evs[static_cast<std::size_t>(i)].events, now);
    }
  }
  // Whatever is still due or in flight when the loop ends (stop, hard end) is a timeout.
  std::int64_t now = mono_ns();
  for (auto& c : conns_) {
    if ((c->st == Conn::St::writing || c->st == Conn::St::reading) && c->measured) {
      ++res.err_timeout;
      note_error("timeout: still in flight at the end of the run");
    }
    close_conn(*c);
  }
  for (std::int64_t due : pending_) {
    if (due >= warm_end_) {
      ++res.err_timeout;
      ++res.unsent;
    }
  }
  pending_.clear();
  (void)now;
}

Result<Target> resolve_target(const httpc::Url& u) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
  addrinfo* res = nullptr;
  std::string port = std::to_string(u.port);
  int rc = ::getaddrinfo(u.host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0 || res == nullptr) {
    // AI_ADDRCONFIG hides ::1 and 127.0.0.1 on hosts whose only interface is loopback.
    hints.ai_flags = AI_NUMERICSERV;
    rc = ::getaddrinfo(u.host.c_str(), port.c_str(), &hints, &res);
  }
  // gai_strerror returns a constant string per code (glibc): no shared buffer.
  if (rc != 0 || res == nullptr) return make_error(ErrorKind::invalid, "host " + u.host + ": " + ::gai_strerror(rc));  // NOLINT(concurrency-mt-unsafe)
  Target t;
  std::memcpy(&t.addr, res->ai_addr, std::min<std::size_t>(res->ai_addrlen, sizeof t.addr));
  t.len = static_cast<socklen_t>(std::min<std::size_t>(res->ai_addrlen, sizeof t.addr));
  t.family = res->ai_family;
  ::freeaddrinfo(res);
  return t;
}

}  // namespace

Result<OnceReply> fetch_once(const httpc::Url& url, const std::string& request, std::chrono::milliseconds deadline,
                             const httpc::Limits& limits) {
  auto target = resolve_target(url);
  if (!target) return target.error();
  std::int64_t start = mono_ns();
  std::int64_t end = start + std::chrono::duration_cast<std::chrono::nanoseconds>(deadline).count();
  int fd = ::socket(target->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(ErrorKind::io, std::string("socket: ") + errno_text(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string where = url.host_header();
  // Waits for `events` on fd until the deadline: true when ready.
  auto wait = [&](short events) {
    for (;;) {
      std::int64_t left = end - mono_ns();
      if (left <= 0) return false;
      pollfd p{fd, events, 0};
      int rc = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left / 1000000 + 1, 60000)));
      if (rc > 0) return true;
      if (rc < 0 && errno != EINTR) return false;
    }
  };
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&target->addr), target->len) != 0) {
    if (errno != EINPROGRESS) return make_error(ErrorKind::io, "cannot connect to " + where + ": " + errno_text(errno));
    if (!wait(POLLOUT)) return make_error(ErrorKind::timed_out, "cannot connect to " + where + ": no answer within " + std::to_string(deadline.count()) + " ms");
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return make_error(ErrorKind::io, "cannot connect to " + where + ": " + errno_text(err));
  }
  std::size_t off = 0;
  while (off < request.size()) {
    ssize_t n = ::send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait(POLLOUT)) return make_error(ErrorKind::timed_out, where + ": request not accepted within the deadline");
    } else {
      return make_error(ErrorKind::io, where + ": send: " + errno_text(errno));
    }
  }
  httpc::ResponseParser parser(limits);
  parser.reset(starts_with_head(request));
  std::vector<char> buf(std::size_t{64} * 1024);
  while (!parser.done()) {
    if (!wait(POLLIN)) return make_error(ErrorKind::timed_out, where + ": no complete reply within " + std::to_string(deadline.count()) + " ms");
    ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return make_error(ErrorKind::io, where + ": recv: " + errno_text(errno));
    if (n == 0) parser.on_eof();
    else parser.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    if (parser.state() == httpc::ResponseParser::State::error) return make_error(ErrorKind::invalid, where + ": bad HTTP reply: " + parser.error());
    if (n == 0 && !parser.done()) return make_error(ErrorKind::invalid, where + ": connection closed before a complete reply");
  }
  OnceReply r;
  r.status = parser.status();
  r.body = parser.body();
  r.content_type = parser.content_type();
  r.ms = static_cast<double>(mono_ns() - start) / 1e6;
  return r;
}

Result<LoadResult> run_load(const LoadPlan& plan_in) {
  LoadPlan plan = plan_in;
  if (plan.closed_loop ? plan.concurrency == 0 : !(plan.rate > 0)) {
    return make_error(ErrorKind::invalid, "bench serve: give --rate R (open loop) or --concurrency N (closed loop)");
  }
  if (plan.duration.count() <= 0) return make_error(ErrorKind::invalid, "bench serve: --duration must be positive");
  auto target = resolve_target(plan.url);
  if (!target) return target.error();
  // Stay inside the file-descriptor limit with room for everything else plumb has open.
  rlimit rl{};
  std::uint64_t fd_room = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) fd_room = rl.rlim_cur > 64 ? rl.rlim_cur - 64 : 1;
  plan.threads = std::clamp(plan.threads, 1U, 64U);
  if (plan.closed_loop) {
    if (plan.concurrency > fd_room) return make_error(ErrorKind::invalid, "bench serve: --concurrency " + std::to_string(plan.concurrency) + " is above the open-file limit (ulimit -n)");
    plan.threads = std::min(plan.threads, plan.concurrency);
  } else {
    plan.connections = static_cast<unsigned>(std::min<std::uint64_t>(std::max(1U, plan.connections), fd_room));
    plan.threads = std::min(plan.threads, plan.connections);
  }
  std::int64_t t0 = mono_ns() + 20000000;  // 20 ms for the threads to start
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned i = 0; i < plan.threads; ++i) {
    unsigned share_c = plan.concurrency / plan.threads + (i < plan.concurrency % plan.threads ? 1 : 0);
    unsigned share_cap = plan.connections / plan.threads + (i < plan.connections % plan.threads ? 1 : 0);
    workers.push_back(std::make_unique<Worker>(plan, *target, i, t0, share_cap, share_c));
  }
  {
    // Measured concurrency: one thread per load worker, not a task group (core/parallel.h).
    std::vector<std::jthread> ts;
    ts.reserve(workers.size());
    for (auto& w : workers) ts.emplace_back([&w] { w->run(); });
  }
  LoadResult out;
  out.windows.resize(std::max(1U, plan.windows));
  std::vector<LatencyHistogram> win(out.windows.size());
  for (auto& w : workers) {
    LoadResult& r = w->res;
    out.from_intended.merge(r.from_intended);
    out.from_sent.merge(r.from_sent);
    out.ttft.merge(r.ttft);
    out.itl.merge(r.itl);
    out.scheduled += r.scheduled;
    out.sent += r.sent;
    out.ok += r.ok;
    out.late += r.late;
    out.err_connect += r.err_connect;
    out.err_timeout += r.err_timeout;
    out.err_4xx += r.err_4xx;
    out.err_5xx += r.err_5xx;
    out.err_protocol += r.err_protocol;
    out.unsent += r.unsent;
    out.output_tokens += r.output_tokens;
    out.connections_opened += r.connections_opened;
    out.peak_connections += r.peak_connections;
    out.hit_connection_cap |= r.hit_connection_cap;
    out.warmup_requests += r.warmup_requests;
    out.max_send_lag_ms = std::max(out.max_send_lag_ms, r.max_send_lag_ms);
    if (out.first_error.empty()) out.first_error = r.first_error;
    for (std::size_t i = 0; i < out.windows.size(); ++i) {
      out.windows[i].ok += r.windows[i].ok;
      win[i].merge(w->window_hist()[i]);
    }
  }
  for (std::size_t i = 0; i < out.windows.size(); ++i) {
    out.windows[i].p50_ms = static_cast<double>(win[i].percentile(50)) / 1e6;
    out.windows[i].p99_ms = static_cast<double>(win[i].percentile(99)) / 1e6;
  }
  out.measured_s = static_cast<double>(plan.duration.count()) / 1e9;
  return out;
}

}  // namespace plumb
