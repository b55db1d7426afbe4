// posix_spawn + poll: bounded time and bounded output for every child process.
#include "core/subprocess.h"
#include "core/host_root.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace plumb {

namespace {
struct Pipe {
  int r = -1, w = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    r = fds[0];
    w = fds[1];
    return true;
  }
  void close_r() { if (r >= 0) ::close(r), r = -1; }
  void close_w() { if (w >= 0) ::close(w), w = -1; }
  ~Pipe() { close_r(); close_w(); }
};
// The children not yet reaped, for kill_live_children (a slot holds a pid, 0 when free).
std::array<std::atomic<pid_t>, 64> live_children{};

void remember_child(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pid)) return;
  }
}

void forget_child(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t p = pid;
    if (slot.compare_exchange_strong(p, 0)) return;
  }
}

extern "C" void kill_children_and_die(int sig) {
  kill_live_children();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Once, for the signals whose default action ends plumb and that a command has not taken over
// (`plumb watch` stops on SIGINT and SIGTERM itself and reaps its children).
void kill_children_on_fatal_signals() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = kill_children_and_die;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}
}  // namespace

void kill_live_children() {
  for (auto& slot : live_children) {
    pid_t p = slot.load();
    if (p > 0) ::kill(-p, SIGKILL);
  }
}

std::string first_line(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  auto e = s.find('\n', b);
  return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

Spawned::Spawned(Spawned&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)),
      out_(std::exchange(o.out_, -1)),
      err_(std::exchange(o.err_, -1)),
      pidfd_(std::exchange(o.pidfd_, -1)),
      name_(std::move(o.name_)),
      started_(o.started_) {}

Spawned& Spawned::operator=(Spawned&& o) noexcept {
  if (this != &o) {
    release();
    pid_ = std::exchange(o.pid_, -1);
    out_ = std::exchange(o.out_, -1);
    err_ = std::exchange(o.err_, -1);
    pidfd_ = std::exchange(o.pidfd_, -1);
    name_ = std::move(o.name_);
    started_ = o.started_;
  }
  return *this;
}

Spawned::~Spawned() { release(); }

void Spawned::release() {
  for (int* fd : {&out_, &err_, &pidfd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    forget_child(pid_);
  }
  pid_ = -1;
}

Result<Spawned> spawn_program(const std::vector<std::string>& argv, const RunOptions& opts) {
  if (argv.empty()) return make_error(ErrorKind::invalid, "empty command");
  Pipe in, out, err;
  if (!in.open() || !out.open() || !err.open()) return make_error(ErrorKind::io, "pipe: " + errno_text(errno));

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.r, 0);
  posix_spawn_file_actions_adddup2(&fa, out.w, 1);
  posix_spawn_file_actions_adddup2(&fa, err.w, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);  // own process group: a timeout kills its children too
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &def);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));  // NOLINT
  args.push_back(nullptr);

  std::vector<std::string> env_store;
  if (opts.env) {
    for (const auto& [k, v] : *opts.env) env_store.push_back(std::string(k).append("=").append(v));
  } else {
    for (char** e = environ; *e != nullptr; ++e) {
      std::string kv = *e;
      auto key = kv.substr(0, kv.find('='));
      if (!opts.extra_env.count(key)) env_store.push_back(std::move(kv));
    }
  }
  for (const auto& [k, v] : opts.extra_env) env_store.push_back(std::string(k).append("=").append(v));
  std::vector<char*> envp;
  envp.reserve(env_store.size() + 1);
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);

  Spawned child;
  child.name_ = argv[0];
  child.started_ = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return make_error(rc == ENOENT ? ErrorKind::absent : ErrorKind::io, argv[0] + ": " + errno_text(rc));
  }
  child.pid_ = pid;
  kill_children_on_fatal_signals();
  remember_child(pid);
  // The exit is waited for on a pidfd (Linux 5.3+), in one poll; without one it is polled.
  child.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (child.pidfd_ >= 0) ::fcntl(child.pidfd_, F_SETFD, FD_CLOEXEC);
  in.close_r();
  out.close_w();
  err.close_w();

  // Feed stdin (small payloads; the child reads it before writing much).
  if (!opts.stdin_data.empty()) {
    ::fcntl(in.w, F_SETFL, O_NONBLOCK);
    const char* p = opts.stdin_data.data();
    std::size_t left = opts.stdin_data.size();
    while (left > 0) {
      ssize_t n = ::write(in.w, p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  in.close_w();
  child.out_ = std::exchange(out.r, -1);
  child.err_ = std::exchange(err.r, -1);
  return child;
}

Result<RunOutput> finish_program(Spawned& child, const RunOptions& opts) {
  if (child.pid_ <= 0) return make_error(ErrorKind::invalid, "no child to wait for");
  RunOutput res;
  const pid_t pid = child.pid_;
  auto deadline = child.started_ + opts.timeout;
  auto ms_left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  };
  pollfd fds[2] = {{child.out_, POLLIN, 0}, {child.err_, POLLIN, 0}};
  std::string* bufs[2] = {&res.out, &res.err};
  int open_count = 2;
  char buf[65536];
  while (open_count > 0) {
    auto left = ms_left();
    if (left <= 0) {
      res.timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left));
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        fds[i].fd = -1;
        --open_count;
        continue;
      }
      if (bufs[i]->size() + static_cast<std::size_t>(got) <= opts.max_output) {
        bufs[i]->append(buf, static_cast<std::size_t>(got));
      } else {
        res.truncated = true;
      }
    }
  }
  if (res.timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  // After EOF on both pipes the child is exiting; bound the wait anyway.
  for (;;) {
    pid_t w = ::waitpid(pid, &status, res.timed_out ? 0 : WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    auto left = ms_left();
    if (left <= 0) {
      res.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    if (child.pidfd_ >= 0) {
      pollfd exited{child.pidfd_, POLLIN, 0};  // readable once the child has exited
      ::poll(&exited, 1, static_cast<int>(left));
    } else {
      ::usleep(1000);
    }
  }
  forget_child(pid);
  child.pid_ = -1;  // reaped: nothing left for the destructor to kill
  child.release();
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  if (res.timed_out) {
    return make_error(ErrorKind::timed_out, child.name_ + " did not finish within " +
                                                std::to_string(opts.timeout.count()) + " ms");
  }
  return res;
}

Result<RunOutput> run_program(const std::vector<std::string>& argv, const RunOptions& opts) {
  auto child = spawn_program(argv, opts);
  if (!child) return make_error(child.error().kind, child.error().message);
  return finish_program(*child, opts);
}

}  // namespace plumb
