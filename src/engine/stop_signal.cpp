// Self-pipe signal handling for watch and exporter.
#include "engine/stop_signal.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <algorithm>
#include <csignal>

namespace plumb::watch {

namespace {
int g_pipe[2] = {-1, -1};
std::atomic<int> g_signal{0};
struct sigaction g_old_int {}, g_old_term {};

extern "C" void on_stop_signal(int sig) {
  int saved = errno;
  g_signal.store(sig);
  if (g_pipe[1] >= 0) {
    char b = 1;
    (void)!::write(g_pipe[1], &b, 1);  // non-blocking; a full pipe already says "stop"
  }
  errno = saved;
}
}  // namespace

StopSignal::StopSignal() {
  g_signal.store(0);
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignal::~StopSignal() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  for (int& fd : g_pipe) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

int StopSignal::fd() const { return g_pipe[0]; }
bool StopSignal::stopped() const { return g_signal.load() != 0; }
int StopSignal::signal() const { return g_signal.load(); }

bool StopSignal::wait(int timeout_ms) const {
  if (stopped()) return true;
  if (g_pipe[0] < 0) {
    // No pipe (fd exhaustion): fall back to a bounded sleep in small steps.
    ::usleep(static_cast<useconds_t>(std::min(timeout_ms, 50)) * 1000);
    return stopped();
  }
  pollfd p{g_pipe[0], POLLIN, 0};
  int r = ::poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
  (void)r;
  return stopped();
}

}  // namespace plumb::watch
