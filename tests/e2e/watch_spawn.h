// Test helpers for long-running plumb processes (watch, exporter): spawn with a pipe or a pty,
// read lines with a deadline, signal by PID, talk HTTP over loopback. Everything is bounded.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace plumb::test {

class Child {
 public:
  // Starts PLUMB_BINARY with args; stdout+stderr go to a pipe (or a pty when tty is true).
  Child(const std::vector<std::string>& args, bool tty = false, const std::string& program = PLUMB_BINARY) {
    std::vector<std::string> all{program};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out_w = -1;
    if (tty) {
      int slave = -1;
      if (::openpty(&fd_, &slave, nullptr, nullptr, nullptr) != 0) return;
      out_w = slave;
    } else {
      int p[2];
      if (::pipe2(p, O_CLOEXEC) != 0) return;
      fd_ = p[0];
      out_w = p[1];
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out_w, 1);
    posix_spawn_file_actions_adddup2(&fa, out_w, 2);
    std::vector<std::string> env_s;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string v = *e;
      if (v.rfind("LANG=", 0) == 0 || v.rfind("LC_ALL=", 0) == 0 || v.rfind("NO_COLOR=", 0) == 0) continue;
      env_s.push_back(v);
    }
    env_s.push_back("LANG=C");
    env_s.push_back("NO_COLOR=1");
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    if (::posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    ::close(out_w);
    ::fcntl(fd_, F_SETFL, O_NONBLOCK);
  }
  ~Child() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
    if (fd_ >= 0) ::close(fd_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  [[nodiscard]] bool started() const { return pid_ > 0; }
  // Reads until `needle` appears in the output (true) or the deadline passes (false).
  bool read_until(const std::string& needle, std::chrono::milliseconds deadline) {
    auto end = std::chrono::steady_clock::now() + deadline;
    while (output_.find(needle) == std::string::npos) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      if (left <= 0 || !pump(static_cast<int>(left))) return output_.find(needle) != std::string::npos;
    }
    return true;
  }
  // Reads until `needle` occurs at least n times in the output (true) or the deadline passes.
  bool read_until_count(const std::string& needle, std::size_t n, std::chrono::milliseconds deadline) {
    auto count = [&] {
      std::size_t k = 0;
      for (auto p = output_.find(needle); p != std::string::npos; p = output_.find(needle, p + needle.size())) ++k;
      return k;
    };
    auto end = std::chrono::steady_clock::now() + deadline;
    while (count() < n) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      if (left <= 0 || !pump(static_cast<int>(left))) return count() >= n;
    }
    return true;
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Waits for exit (draining output); the exit status, or nullopt at the deadline.
  std::optional<int> wait(std::chrono::milliseconds deadline) {
    auto end = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      int st = 0;
      pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        while (pump(50)) {
        }
        if (WIFEXITED(st)) return WEXITSTATUS(st);
        return 128 + WTERMSIG(st);
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      if (left <= 0) return std::nullopt;
      pump(static_cast<int>(std::min<long long>(left, 50)));
    }
  }
  [[nodiscard]] const std::string& output() const { return output_; }

 private:
  // One poll + read; false on EOF/error or timeout with nothing read.
  bool pump(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char buf[4096];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) return false;
    output_.append(buf, static_cast<std::size_t>(n));
    return true;
  }
  pid_t pid_ = -1;
  int fd_ = -1;
  bool exited_ = false;
  std::string output_;
};

// A loopback TCP connection with bounded waits.
class Conn {
 public:
  explicit Conn(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~Conn() {
    if (fd_ >= 0) ::close(fd_);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  [[nodiscard]] bool ok() const { return fd_ >= 0; }
  bool send(const std::string& s) { return fd_ >= 0 && ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()); }
  // Reads until the peer closes or a full response (by Content-Length) arrived, within the deadline.
  std::string receive(std::chrono::milliseconds deadline) {
    std::string got;
    auto end = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      auto head_end = got.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        auto cl = got.find("Content-Length: ");
        if (cl != std::string::npos && cl < head_end) {
          std::size_t len = std::stoul(got.substr(cl + 16));
          if (got.size() >= head_end + 4 + len) return got;
        }
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      if (left <= 0) return got;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) return got;
      char buf[8192];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return got;
      got.append(buf, static_cast<std::size_t>(n));
    }
  }
  void close_now() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

inline std::string http_get(int port, const std::string& path, std::chrono::milliseconds deadline = std::chrono::milliseconds(5000)) {
  Conn c(port);
  if (!c.ok() || !c.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) return {};
  return c.receive(deadline);
}

inline std::string body_of(const std::string& response) {
  auto p = response.find("\r\n\r\n");
  return p == std::string::npos ? std::string() : response.substr(p + 4);
}

// promtool from Debian's prometheus package, when installed.
inline std::string promtool() {
  for (const char* p : {"/usr/bin/promtool", "/usr/local/bin/promtool"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return {};
}

}  // namespace plumb::test
