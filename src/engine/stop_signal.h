// SIGINT/SIGTERM as a readable file descriptor (the self-pipe trick), so loops wait in poll()
// with a timeout and stop promptly; nothing blocks forever and no work runs in the handler.
#pragma once

namespace plumb::watch {

class StopSignal {
 public:
  StopSignal();   // installs the handlers (one instance at a time)
  ~StopSignal();  // restores the previous handlers
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;
  [[nodiscard]] int fd() const;       // readable once a signal arrived
  [[nodiscard]] bool stopped() const;
  [[nodiscard]] int signal() const;   // the signal that arrived, 0 if none
  // Waits up to timeout_ms (or until a signal); true when a signal arrived.
  bool wait(int timeout_ms) const;
};

}  // namespace plumb::watch
