// Host facts: kernel log events: OOM kills, NVIDIA Xid lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One process killed by the kernel's OOM killer.
struct OomKill {
  std::string scope;                // "cgroup" (memory cgroup limit) | "global" (the whole machine) | "unknown"
  std::optional<std::int64_t> pid;  // victim pid
  std::string process;              // victim command name
  std::string memcg;                // oom_memcg= / task_memcg= of the oom-kill: summary line, when logged
  std::string time;                 // timestamp as the log wrote it ("[ 7063.247407]", ISO, ctime); may be empty
  std::string line;                 // the kernel message (bounded)
  bool operator==(const OomKill&) const = default;
};
PLUMB_JSON(OomKill, scope, pid, process, memcg, time, line)

// NVIDIA Xid events of one code on one GPU.
struct XidEvents {
  std::string pci;    // "0000:3b:00" (domain:bus:device, as NVRM prints it)
  int code = 0;
  std::uint64_t count = 0;
  bool fatal_word = false;  // Xid 144-150 print their own severity; true when a line said "Fatal"
  std::string first_time, last_time;
  std::string first_line;   // the first message (bounded)
  std::string process;      // name= of the first line that named one
  bool operator==(const XidEvents&) const = default;
};
PLUMB_JSON(XidEvents, pci, code, count, fatal_word, first_time, last_time, first_line, process)

struct KernelLogFacts {
  bool collected = false;  // set by the collector
  // Records (lines) read; missing with the reason when the log could not be read (EPERM on
  // /dev/kmsg without CAP_SYSLOG, a missing file). Rules skip on its reason.
  Fact<std::uint64_t> records;
  bool truncated = false;             // stopped at the size or time bound before the end
  std::uint64_t oom_kill_total = 0;   // every OOM kill seen (oom_kills keeps the first ones)
  std::vector<OomKill> oom_kills;
  std::vector<XidEvents> xids;        // grouped by (pci, code), in order of first appearance
  bool operator==(const KernelLogFacts&) const = default;
};
PLUMB_JSON(KernelLogFacts, collected, records, truncated, oom_kill_total, oom_kills, xids)

}  // namespace plumb
