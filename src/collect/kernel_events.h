// Kernel log lines as node events for `plumb agent`: each known signature (NVIDIA Xid and NVSwitch
// SXid, NVLink errors, PCIe AER, memory ECC, a GPU fallen off the bus, OOM kills, InfiniBand/RoCE
// link changes, hung tasks) becomes one event with its subject (GPU bus id, port, task); and the
// log read from where the last cycle stopped (a cursor: /dev/kmsg sequence number, or a file's
// inode and byte offset), so a line is read once per boot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_root.h"
#include "core/result.h"

namespace plumb {

struct KernelEvent {
  std::string kind;      // xid | sxid | nvlink | pcie_aer | ecc | gpu_lost | oom_kill | ib_link | hung_task
  std::string subject;   // "0000:3b:00" (Xid), "mlx5_0 ibp59s0", "python3:4242", "host"
  std::string code;      // "79", "down", "up", "corrected", "uncorrected", "CE", "UE"
  std::string evidence;  // the kernel message (bounded)
};

// The event a kernel message (prefix already removed: parse_kernel_log_line) records, if any.
std::optional<KernelEvent> parse_kernel_event(std::string_view message);

// Where the last read stopped, per boot and source.
struct KmsgCursor {
  std::uint64_t inode = 0;   // a file's inode (a new file starts again at 0)
  std::uint64_t offset = 0;  // bytes of the file consumed (whole lines only)
  std::uint64_t seq = 0;     // /dev/kmsg: the last sequence number read (0: none)
  bool operator==(const KmsgCursor&) const = default;
};

// One new line of the log: its position (byte offset in the file, or /dev/kmsg sequence number)
// identifies it within a boot.
struct KmsgLine {
  std::uint64_t pos = 0;
  std::string time;
  std::string message;
};

struct KmsgRead {
  std::vector<KmsgLine> lines;
  KmsgCursor next;
  bool truncated = false;  // more was there than one read takes (the rest comes next cycle)
  std::string source;      // as shown: "/dev/kmsg" or the file
};

// Reads what is new since `from`: `file` (a --kmsg file followed as it grows; a file that was
// replaced or shrank is read again from its start) or, when `file` is empty, /dev/kmsg under the
// root without blocking. At most `max_bytes` per call.
Result<KmsgRead> read_kmsg_since(const HostRoot& root, const std::string& file, const KmsgCursor& from,
                                 std::size_t max_bytes = 16u << 20);

// The raw /dev/kmsg text split into lines with their sequence numbers; records with a sequence
// number at or below `after_seq` are left out (pure; tests and fuzzing).
std::vector<KmsgLine> split_dev_kmsg(std::string_view text, std::uint64_t after_seq, std::uint64_t& last_seq);

// /proc/sys/kernel/random/boot_id under the root, trimmed; an error when it is missing or not a
// boot id (36 characters of hex digits and dashes).
Result<std::string> read_boot_id(const HostRoot& root);

}  // namespace plumb
