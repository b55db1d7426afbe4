// Storage of the host: block devices (rotational, IO scheduler, read-ahead, model), the file
// system and device behind each --data PATH, and the size of /dev/shm.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/context.h"
#include "core/facts/host_storage.h"
#include "core/result.h"

namespace plumb {

// One mount, from /proc/<pid>/mountinfo (every field) or /proc/mounts (no ids, no root).
struct MountEntry {
  std::string major_minor;  // "259:1" (mountinfo only)
  std::string root;         // root of the mount within its file system ("/" unless a bind mount)
  std::string mount_point;
  std::string fs_type;
  std::string source;       // "/dev/nvme0n1p1", "server:/export", "tmpfs"
  std::string options;      // per-mount options (mountinfo field 6, /proc/mounts field 4)
  std::string super_options;  // per-superblock options (mountinfo only; holds tmpfs size=)
  bool operator==(const MountEntry&) const = default;
};
// proc(5) mountinfo: "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue".
std::vector<MountEntry> parse_mountinfo(std::string_view text);
// fstab-style /proc/mounts: "tmpfs /dev/shm tmpfs rw,nosuid,nodev,size=65536k 0 0".
std::vector<MountEntry> parse_mounts(std::string_view text);
// Octal escapes of mount fields ("\040" is a space) decoded.
std::string unescape_mount_field(std::string_view s);
// The mount holding `path`: longest mount-point prefix on a path-component boundary; of several
// mounts on the same point the last one (the top of the stack) wins. nullptr when none matches.
const MountEntry* find_mount_for(const std::vector<MountEntry>& mounts, std::string_view path);
// "/data//x/./y/../z/" -> "/data/x/z" (lexical only: symlinks are not followed).
std::string normalize_path(std::string_view path);

// queue/scheduler: "mq-deadline kyber [bfq] none" -> active "bfq", all four available.
struct SchedulerInfo {
  std::string active;
  std::vector<std::string> available;
};
Result<SchedulerInfo> parse_scheduler(std::string_view text);
// nvme0n1 -> "nvme", sda -> "sd", vda -> "virtio", xvda -> "xen", mmcblk0 -> "mmc", ...
std::string block_kind(std::string_view name);
// Network and FUSE file systems (nfs, cifs, ceph, lustre, fuse.s3fs ...): the data loader's reads
// go over the network or through a user-space daemon.
bool is_network_fs(std::string_view fs_type);
// /dev/shm as the mount table describes it (size= in bytes or % of RAM, the tmpfs default).
ShmFacts shm_from_mounts(const std::vector<MountEntry>& mounts, const std::string& source);

StorageFacts read_storage(const Context& ctx);

}  // namespace plumb
