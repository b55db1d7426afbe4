// Host facts: block devices, IO schedulers, read-ahead, data-path file systems, /dev/shm.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One whole disk under /sys/block (partitions are not listed).
struct BlockDevice {
  std::string name;                     // nvme0n1, sda, vda
  std::string kind;                     // nvme | sd | virtio | xen | mmc | md | dm | loop | zram | ram | other
  Fact<bool> rotational;                // queue/rotational: true for spinning disks
  Fact<std::string> scheduler;          // the active one, in brackets in queue/scheduler
  std::vector<std::string> schedulers;  // every name queue/scheduler offers
  Fact<std::uint64_t> read_ahead_kb;    // queue/read_ahead_kb
  Fact<std::string> model;              // device/model
  bool operator==(const BlockDevice&) const = default;
};
PLUMB_JSON(BlockDevice, name, kind, rotational, scheduler, schedulers, read_ahead_kb, model)

// Where one --data PATH lives: the mount that holds it in the target's mount namespace.
struct DataPath {
  std::string path;
  Fact<std::string> mount_point;  // longest mount-point prefix in mountinfo
  Fact<std::string> fs_type;      // ext4, xfs, nfs4, fuse.s3fs, overlay
  Fact<std::string> source;       // /dev/nvme0n1p1, server:/export
  Fact<std::string> device;       // whole disk under /sys/block (nvme0n1), when it is a local block device
  bool network = false;           // network or FUSE file system (nfs, cifs, ceph, lustre, fuse.*)
  bool operator==(const DataPath&) const = default;
};
PLUMB_JSON(DataPath, path, mount_point, fs_type, source, device, network)

// /dev/shm as /proc/mounts shows it.
struct ShmFacts {
  Fact<std::string> fs_type;        // tmpfs normally; missing when /dev/shm is not a mount point
  Fact<std::string> options;        // mount options as written
  Fact<std::uint64_t> size_bytes;   // from size=; missing when the option is absent or a percentage
  Fact<double> size_percent_of_ram; // size=50% form; tmpfs without size= means 50 (half of RAM)
  bool size_is_default = false;     // no size= option: the tmpfs default, half of RAM
  bool operator==(const ShmFacts&) const = default;
};
PLUMB_JSON(ShmFacts, fs_type, options, size_bytes, size_percent_of_ram, size_is_default)

// Space and inodes left on a file system a job writes (statvfs(3): f_bavail, f_blocks, f_favail,
// f_files), with the paths that lie on it.
struct FreeSpace {
  std::vector<std::string> paths;  // "/tmp", "/dev/shm", "/proc/4242/cwd", a --data path
  std::uint64_t avail_bytes = 0;   // what an unprivileged writer may still use
  std::uint64_t total_bytes = 0;
  std::uint64_t avail_inodes = 0;
  std::uint64_t total_inodes = 0;  // 0 on file systems without a fixed inode table (btrfs)
  bool operator==(const FreeSpace&) const = default;
};
PLUMB_JSON(FreeSpace, paths, avail_bytes, total_bytes, avail_inodes, total_inodes)

struct StorageFacts {
  bool collected = false;  // set by the collector
  Fact<std::vector<BlockDevice>> block_devices;  // source /sys/block
  std::vector<DataPath> data_paths;              // one per --data PATH
  ShmFacts shm;
  // One entry per file system; missing (with why) when statvfs cannot see the machine (--root).
  Fact<std::vector<FreeSpace>> free_space;
  bool operator==(const StorageFacts&) const = default;
};
PLUMB_JSON(StorageFacts, collected, block_devices, data_paths, shm, free_space)

}  // namespace plumb
