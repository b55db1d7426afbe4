// Kernel log: OOM-killer events and NVIDIA Xid lines, from /dev/kmsg (non-blocking) or a file
// given with --kmsg in any of the usual formats (raw /dev/kmsg records, dmesg, dmesg -T,
// dmesg --time-format iso with or without the facility prefix, pstore "<N>[...]", syslog).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/context.h"
#include "core/facts/host_kmsg.h"
#include "core/result.h"

namespace plumb {

// One log line with its prefix taken apart. Formats are detected per line.
struct KernelLogLine {
  std::string time;      // as written: "[  123.456789]" seconds since boot, ctime, ISO; empty when none
  std::string message;   // the kernel message itself
  int level = -1;        // syslog level 0..7 when the line carried one (<N>, prio field, "warn")
  bool continuation = false;  // a /dev/kmsg dictionary line (" SUBSYSTEM=pci"): no message
};
KernelLogLine parse_kernel_log_line(std::string_view line);

// "Out of memory: Killed process 15784 (python3) ..." and its variants; nullopt if not a kill.
std::optional<OomKill> parse_oom_kill(std::string_view message);

// "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., name=..., msg"; nullopt if not an Xid line.
struct XidLine {
  std::string pci;
  int code = 0;
  std::optional<std::int64_t> pid;
  std::string process;
  bool fatal_word = false;  // the line says "Fatal" (Xid 144-150 carry their own severity)
};
std::optional<XidLine> parse_xid(std::string_view message);

// Every OOM kill and Xid of a log text. Sets records; never fails on garbage.
KernelLogFacts parse_kernel_log(std::string_view text);

// Reads records from a /dev/kmsg-like path without blocking: until EAGAIN (end of the ring
// buffer), end of file, the deadline, or max_bytes (a regular file larger than that is read from
// its tail: the newest lines). Permission errors name CAP_SYSLOG.
Result<std::string> read_kmsg_source(const std::string& real_path, const std::string& shown,
                                     std::chrono::steady_clock::time_point deadline, std::size_t max_bytes,
                                     bool& truncated);

KernelLogFacts read_kernel_log(const Context& ctx);

}  // namespace plumb
