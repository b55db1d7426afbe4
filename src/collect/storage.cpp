// Block devices from /sys/block, data-path mounts from the target's mountinfo, /dev/shm from the
// mount table (file sources, so a fixture tree stands in for a machine); free space and inodes
// through statvfs(3) on the running machine only.
#include "collect/storage.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <cstdlib>

#include "core/host_root.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

std::string unescape_mount_field(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto oct = [](char c) { return c >= '0' && c <= '7'; };
    if (s[i] == '\\' && i + 3 < s.size() && oct(s[i + 1]) && oct(s[i + 2]) && oct(s[i + 3])) {
      int v = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0');
      out += static_cast<char>(v & 0xff);
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> out;
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    // id parent maj:min root mount-point options [optional...] - type source super-options
    if (f.size() < 9) continue;
    std::size_t sep = 6;
    while (sep < f.size() && f[sep] != "-") ++sep;
    if (sep + 2 >= f.size()) continue;  // no "-" separator, or no type and source after it
    MountEntry m;
    m.major_minor = std::string(f[2]);
    m.root = unescape_mount_field(f[3]);
    m.mount_point = unescape_mount_field(f[4]);
    m.options = std::string(f[5]);
    m.fs_type = unescape_mount_field(f[sep + 1]);
    m.source = unescape_mount_field(f[sep + 2]);
    if (sep + 3 < f.size()) m.super_options = std::string(f[sep + 3]);
    if (m.mount_point.empty() || m.mount_point.front() != '/') continue;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<MountEntry> parse_mounts(std::string_view text) {
  std::vector<MountEntry> out;
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    if (f.size() < 4) continue;
    MountEntry m;
    m.source = unescape_mount_field(f[0]);
    m.mount_point = unescape_mount_field(f[1]);
    m.fs_type = unescape_mount_field(f[2]);
    m.options = std::string(f[3]);
    if (m.mount_point.empty() || m.mount_point.front() != '/') continue;
    out.push_back(std::move(m));
  }
  return out;
}

std::string normalize_path(std::string_view path) {
  std::vector<std::string_view> parts;
  for (auto comp : split(path, '/')) {
    if (comp.empty() || comp == ".") continue;
    if (comp == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(comp);
  }
  std::string out;
  for (auto p : parts) {
    out += '/';
    out.append(p);
  }
  return out.empty() ? "/" : out;
}

const MountEntry* find_mount_for(const std::vector<MountEntry>& mounts, std::string_view path) {
  std::string p = normalize_path(path);
  const MountEntry* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& m : mounts) {
    std::string mp = normalize_path(m.mount_point);
    bool under = mp == "/" || p == mp || (p.size() > mp.size() && p.compare(0, mp.size(), mp) == 0 && p[mp.size()] == '/');
    if (!under) continue;
    std::size_t len = mp == "/" ? 0 : mp.size();
    if (best == nullptr || len >= best_len) {  // ">=": a later mount on the same point hides the earlier
      best = &m;
      best_len = len;
    }
  }
  return best;
}

Result<SchedulerInfo> parse_scheduler(std::string_view text) {
  SchedulerInfo s;
  for (auto tok : split_ws(trim(text))) {
    if (tok.size() >= 3 && tok.front() == '[' && tok.back() == ']') {
      tok = tok.substr(1, tok.size() - 2);
      if (!s.active.empty()) return make_error(ErrorKind::invalid, "two active schedulers in brackets");
      s.active = std::string(tok);
    }
    bool name_ok = !tok.empty() && tok.size() <= 32;
    for (char c : tok) name_ok &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!name_ok) return make_error(ErrorKind::invalid, "not a scheduler list: '" + std::string(trim(text).substr(0, 60)) + "'");
    s.available.emplace_back(tok);
  }
  if (s.available.empty()) return make_error(ErrorKind::invalid, "empty scheduler list");
  // A device without a scheduler choice prints a bare "none".
  if (s.active.empty() && s.available.size() == 1) s.active = s.available.front();
  if (s.active.empty()) return make_error(ErrorKind::invalid, "no active scheduler in brackets: '" + std::string(trim(text).substr(0, 60)) + "'");
  return s;
}

std::string block_kind(std::string_view n) {
  struct Prefix {
    std::string_view prefix, kind;
  };
  static constexpr Prefix kKinds[] = {{"nvme", "nvme"}, {"sd", "sd"},     {"vd", "virtio"}, {"xvd", "xen"},
                                      {"mmcblk", "mmc"}, {"md", "md"},    {"dm-", "dm"},    {"loop", "loop"},
                                      {"zram", "zram"}, {"ram", "ram"},   {"nbd", "nbd"},   {"rbd", "rbd"},
                                      {"sr", "optical"}, {"hd", "ide"}};
  for (const auto& k : kKinds) {
    if (starts_with(n, k.prefix)) return std::string(k.kind);
  }
  return "other";
}

bool is_network_fs(std::string_view t) {
  static constexpr std::string_view kNet[] = {"nfs",   "nfs4",   "cifs",  "smb3",     "smbfs", "ceph",  "glusterfs",
                                               "lustre", "gpfs", "beegfs", "9p",      "afs",   "ocfs2", "gfs2",
                                               "orangefs", "pvfs2", "davfs", "fuse.sshfs"};
  for (auto n : kNet) {
    if (t == n) return true;
  }
  return starts_with(t, "fuse.") || t == "fuse" || t == "fuseblk";
}

ShmFacts shm_from_mounts(const std::vector<MountEntry>& mounts, const std::string& source) {
  ShmFacts s;
  const MountEntry* m = nullptr;
  for (const auto& e : mounts) {
    if (normalize_path(e.mount_point) == "/dev/shm") m = &e;  // the last mount on the point is the visible one
  }
  if (m == nullptr) {
    std::string why = "/dev/shm is not a mount point in " + source;
    s.fs_type = Fact<std::string>::none(why, source);
    s.options = Fact<std::string>::none(why, source);
    s.size_bytes = Fact<std::uint64_t>::none(why, source);
    s.size_percent_of_ram = Fact<double>::none(why, source);
    return s;
  }
  s.fs_type = Fact<std::string>::of(m->fs_type, source);
  std::string opts = m->options;
  if (!m->super_options.empty()) opts += "," + m->super_options;
  s.options = Fact<std::string>::of(opts, source);
  std::optional<std::string> size_opt;
  std::optional<std::string> blocks_opt;
  for (auto o : split(opts, ',')) {
    if (starts_with(o, "size=")) size_opt = std::string(o.substr(5));
    if (starts_with(o, "nr_blocks=")) blocks_opt = std::string(o.substr(10));
  }
  if (size_opt && !size_opt->empty() && size_opt->back() == '%') {
    auto pct = parse_double(std::string_view(*size_opt).substr(0, size_opt->size() - 1));
    s.size_percent_of_ram = pct ? Fact<double>::of(*pct, source) : Fact<double>::none("bad size= option '" + *size_opt + "'", source);
    s.size_bytes = Fact<std::uint64_t>::none("size=" + *size_opt + " is a share of RAM", source);
  } else if (size_opt) {
    auto b = parse_size(*size_opt);
    s.size_bytes = b ? Fact<std::uint64_t>::of(*b, source) : Fact<std::uint64_t>::none("bad size= option '" + *size_opt + "'", source);
    s.size_percent_of_ram = Fact<double>::none("size= is absolute", source);
  } else if (blocks_opt) {
    auto b = parse_size(*blocks_opt);
    // nr_blocks counts PAGE_SIZE pages; 4 KiB on x86-64 and most arm64 kernels.
    s.size_bytes = b && *b < (UINT64_MAX >> 12) ? Fact<std::uint64_t>::of(*b * 4096, source)
                                                 : Fact<std::uint64_t>::none("bad nr_blocks= option", source);
    s.size_percent_of_ram = Fact<double>::none("nr_blocks= is absolute", source);
  } else if (m->fs_type == "tmpfs") {
    s.size_is_default = true;  // tmpfs without size=: half of physical RAM (Documentation/filesystems/tmpfs.rst)
    s.size_percent_of_ram = Fact<double>::of(50, source);
    s.size_bytes = Fact<std::uint64_t>::none("no size= option: the tmpfs default, half of RAM", source);
  } else {
    std::string why = "/dev/shm is " + m->fs_type + ", not tmpfs: size unknown from the mount table";
    s.size_bytes = Fact<std::uint64_t>::none(why, source);
    s.size_percent_of_ram = Fact<double>::none(why, source);
  }
  return s;
}

namespace {

constexpr std::size_t kMaxDevices = 512;

Fact<std::string> read_text(const HostRoot& root, const std::string& p) {
  auto r = root.read_value(p);
  if (!r) return Fact<std::string>::none(r.error().describe(), p);
  if (r->empty()) return Fact<std::string>::none(p + " is empty", p);
  return Fact<std::string>::of(*r, p);
}

BlockDevice read_block_device(const HostRoot& root, const std::string& name) {
  BlockDevice d;
  d.name = name;
  d.kind = block_kind(name);
  std::string q = "/sys/block/" + name + "/queue/";  // read through root
  if (auto r = root.read_value(q + "rotational"); !r) {
    d.rotational = Fact<bool>::none(r.error().describe(), q + "rotational");
  } else if (*r == "0" || *r == "1") {
    d.rotational = Fact<bool>::of(*r == "1", q + "rotational");
  } else {
    d.rotational = Fact<bool>::none(q + "rotational: not 0 or 1: '" + r->substr(0, 40) + "'", q + "rotational");
  }
  if (auto r = root.read_value(q + "scheduler"); !r) {
    d.scheduler = Fact<std::string>::none(r.error().describe(), q + "scheduler");
  } else if (auto s = parse_scheduler(*r); !s) {
    d.scheduler = Fact<std::string>::none(q + "scheduler: " + s.error().message, q + "scheduler");
  } else {
    d.scheduler = Fact<std::string>::of(s->active, q + "scheduler");
    d.schedulers = s->available;
  }
  if (auto r = root.read_value(q + "read_ahead_kb"); !r) {
    d.read_ahead_kb = Fact<std::uint64_t>::none(r.error().describe(), q + "read_ahead_kb");
  } else if (auto n = parse_uint(*r)) {
    d.read_ahead_kb = Fact<std::uint64_t>::of(*n, q + "read_ahead_kb");
  } else {
    d.read_ahead_kb = Fact<std::uint64_t>::none(q + "read_ahead_kb: not a number: '" + r->substr(0, 40) + "'", q + "read_ahead_kb");
  }
  d.model = read_text(root, "/sys/block/" + name + "/device/model");  // read through root
  return d;
}

// The whole disk under /sys/block behind a mount: by major:minor through /sys/dev/block, else by
// the source's device name (a disk, one of its partitions, or a device-mapper name).
std::optional<std::string> disk_of(const HostRoot& root, const MountEntry& m, const std::vector<std::string>& disks) {
  auto is_disk = [&](const std::string& n) { return std::find(disks.begin(), disks.end(), n) != disks.end(); };
  std::string name;
  if (!m.major_minor.empty() && m.major_minor.find('/') == std::string::npos) {
    if (auto link = root.read_link("/sys/dev/block/" + m.major_minor)) {  // read through root
      // "../../devices/pci0000:00/.../nvme0n1/nvme0n1p1": the disk is the last or the one before it.
      auto parts = split(*link, '/');
      if (!parts.empty() && is_disk(std::string(parts.back()))) return std::string(parts.back());
      if (parts.size() >= 2 && is_disk(std::string(parts[parts.size() - 2]))) return std::string(parts[parts.size() - 2]);
      if (!parts.empty()) name = std::string(parts.back());
    }
  }
  if (name.empty()) {
    if (!starts_with(m.source, "/dev/")) return std::nullopt;
    name = base_name(m.source);
  }
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  if (is_disk(name)) return name;
  for (const auto& d : disks) {
    if (root.exists(concat("/sys/block/", d, "/", name))) return d;  // a partition directory; read through root
  }
  // Device mapper (/dev/mapper/vg-data): dm-N whose dm/name matches; report the disk under it.
  for (const auto& d : disks) {
    if (!starts_with(d, "dm-")) continue;
    auto dm = root.read_value(concat("/sys/block/", d, "/dm/name"));  // read through root
    if (!dm || *dm != name) continue;
    if (auto slaves = root.list(concat("/sys/block/", d, "/slaves")); slaves && !slaves->empty()) {  // read through root
      const std::string& s = slaves->front();
      if (is_disk(s)) return s;
      for (const auto& p : disks) {
        if (root.exists(concat("/sys/block/", p, "/", s))) return p;  // read through root
      }
    }
    return d;
  }
  return std::nullopt;
}

DataPath read_data_path(const Context& ctx, const std::string& given, const Result<std::vector<MountEntry>>& mounts,
                        const std::string& mounts_src, const std::vector<std::string>& disks) {
  DataPath dp;
  dp.path = given;
  std::string path = given;
  if (ctx.root.is_live() && ctx.pid == 0) {
    // Our own mount namespace: resolve symlinks so /data -> /mnt/nvme/data maps to the right mount.
    char* real = ::realpath(given.c_str(), nullptr);
    if (real == nullptr) {
      int e = errno;
      std::string why = error_kind_name(error_kind_from_errno(e)) + std::string(": --data ") + given + " (" + errno_text(e) + ")";
      dp.mount_point = dp.fs_type = dp.source = dp.device = Fact<std::string>::none(why);
      return dp;
    }
    path = real;
    std::free(real);  // NOLINT(cppcoreguidelines-no-malloc): realpath's contract
  }
  if (path.empty() || path.front() != '/') {
    std::string why = "--data " + given + " is not an absolute path";
    dp.mount_point = dp.fs_type = dp.source = dp.device = Fact<std::string>::none(why);
    return dp;
  }
  if (!mounts) {
    std::string why = mounts.error().describe();
    dp.mount_point = dp.fs_type = dp.source = dp.device = Fact<std::string>::none(why, mounts_src);
    return dp;
  }
  const MountEntry* m = find_mount_for(*mounts, path);
  if (m == nullptr) {
    std::string why = "no mount in " + mounts_src + " holds " + path;
    dp.mount_point = dp.fs_type = dp.source = dp.device = Fact<std::string>::none(why, mounts_src);
    return dp;
  }
  dp.mount_point = Fact<std::string>::of(m->mount_point, mounts_src);
  dp.fs_type = Fact<std::string>::of(m->fs_type, mounts_src);
  dp.source = Fact<std::string>::of(m->source, mounts_src);
  dp.network = is_network_fs(m->fs_type);
  if (dp.network) {
    dp.device = Fact<std::string>::none(m->fs_type + " is a network or FUSE file system", mounts_src);
  } else if (auto disk = disk_of(ctx.root, *m, disks)) {
    dp.device = Fact<std::string>::of(*disk, "/sys/block/" + *disk);  // shown path, read through root
  } else {
    dp.device = Fact<std::string>::none("no block device under /sys/block for " + m->source, mounts_src);  // root-relative
  }
  return dp;
}

}  // namespace

// The file systems a job writes: its working directory, /tmp, /var/tmp, /dev/shm, / and the
// --data paths, in the target's mount namespace (/proc/PID/root) when --pid is given. statvfs
// reads the running kernel, so a --root tree has no free space to show.
Fact<std::vector<FreeSpace>> read_free_space(const Context& ctx, const std::vector<DataPath>& data) {
  const std::string src = "statvfs(3)";
  if (!ctx.root.is_live()) return Fact<std::vector<FreeSpace>>::none("statvfs reads the running machine, not a --root tree", src);
  const std::string ns = ctx.pid > 0 ? "/proc/" + std::to_string(ctx.pid) + "/root" : "";
  std::vector<std::string> places;  // as statvfs is given them, so that `df` can be pasted
  if (ctx.pid > 0) places.push_back("/proc/" + std::to_string(ctx.pid) + "/cwd");
  for (const char* p : {"/tmp", "/var/tmp", "/dev/shm", "/"}) places.push_back(ns + p);
  // A network file system is left out: statvfs on a hung NFS server does not return.
  for (const auto& d : data) {
    if (!d.network && !d.path.empty() && d.path.front() == '/') places.push_back(ns + d.path);
  }
  std::vector<FreeSpace> out;
  std::vector<dev_t> devs;
  for (const auto& path : places) {
    struct stat st {};
    struct statvfs v {};
    if (::stat(path.c_str(), &st) != 0 || ::statvfs(path.c_str(), &v) != 0) continue;
    auto at = std::find(devs.begin(), devs.end(), st.st_dev);
    if (at != devs.end()) {
      out[static_cast<std::size_t>(at - devs.begin())].paths.push_back(path);
      continue;
    }
    if (out.size() >= 16) break;
    devs.push_back(st.st_dev);
    FreeSpace fsp;
    fsp.paths.push_back(path);
    const std::uint64_t unit = v.f_frsize != 0 ? v.f_frsize : v.f_bsize;
    fsp.avail_bytes = static_cast<std::uint64_t>(v.f_bavail) * unit;
    fsp.total_bytes = static_cast<std::uint64_t>(v.f_blocks) * unit;
    fsp.avail_inodes = v.f_favail;
    fsp.total_inodes = v.f_files;
    out.push_back(std::move(fsp));
  }
  if (out.empty()) return Fact<std::vector<FreeSpace>>::none("statvfs failed on every path", src);
  return Fact<std::vector<FreeSpace>>::of(std::move(out), src);
}

StorageFacts read_storage(const Context& ctx) {
  StorageFacts st;
  st.collected = true;
  const HostRoot& root = ctx.root;
  std::vector<std::string> disks;
  if (auto names = root.list("/sys/block"); !names) {  // read through root
    st.block_devices = Fact<std::vector<BlockDevice>>::none(names.error().describe(), "/sys/block");  // root-relative
  } else {
    std::vector<BlockDevice> devs;
    for (const auto& n : *names) {
      if (devs.size() >= kMaxDevices) break;
      disks.push_back(n);
      devs.push_back(read_block_device(root, n));
    }
    st.block_devices = Fact<std::vector<BlockDevice>>::of(std::move(devs), "/sys/block");  // root-relative
  }

  if (!ctx.data_paths.empty()) {
    std::string mi_src = ctx.proc_dir() + "/mountinfo";
    auto mi = root.read(mi_src);
    Result<std::vector<MountEntry>> mounts = mi ? Result<std::vector<MountEntry>>(parse_mountinfo(*mi))
                                                : Result<std::vector<MountEntry>>(mi.error());
    if (mounts && mounts->empty()) mounts = make_error(ErrorKind::invalid, mi_src + " has no parseable mount lines");
    for (const auto& p : ctx.data_paths) st.data_paths.push_back(read_data_path(ctx, p, mounts, mi_src, disks));
  }

  // The target's view of the mount table (a container has its own /dev/shm).
  std::string m_src = ctx.pid > 0 ? ctx.proc_dir() + "/mounts" : std::string("/proc/mounts");  // read through root
  if (auto text = root.read(m_src); !text) {
    std::string why = text.error().describe();
    st.shm.fs_type = st.shm.options = Fact<std::string>::none(why, m_src);
    st.shm.size_bytes = Fact<std::uint64_t>::none(why, m_src);
    st.shm.size_percent_of_ram = Fact<double>::none(why, m_src);
  } else {
    st.shm = shm_from_mounts(parse_mounts(*text), m_src);
  }
  st.free_space = read_free_space(ctx, st.data_paths);
  return st;
}

namespace {


}  // namespace

void collect_storage_tables(Tables& t) {
  t.add_collector({"collect.storage",
                                            {"block devices (IO scheduler, read-ahead), --data file systems, /dev/shm",
                                             "块设备（IO 调度器、预读）、--data 所在文件系统、/dev/shm"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              StorageFacts st = read_storage(ctx);
                                              return [st](Facts& f) { f.host.storage = st; };
                                            }});
}

}  // namespace plumb
