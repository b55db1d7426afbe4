// The way out of a process that left a thread running past its deadline (core/deadline.h).
#include "core/deadline.h"
#include "core/subprocess.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace plumb {

namespace {
std::atomic<bool> abandoned{false};
}  // namespace

void note_abandoned_thread() { abandoned.store(true); }
bool threads_abandoned() { return abandoned.load(); }

void exit_past_deadline(int rc) {
  kill_live_children();  // a probe still running under the abandoned thread
  std::fflush(nullptr);  // iostreams write through stdio (sync_with_stdio): this flushes them too
  ::_exit(rc);
}

}  // namespace plumb
