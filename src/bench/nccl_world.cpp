// NCCL all-reduce across processes: the probe, the unique id, one process's part of the sweep, and
// the line protocol between plumb-fleet's children and rank 0.
#include "bench/nccl_world.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "bench/gpu_plan.h"
#include "bench/stats.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "vendor/cuda_api.h"

namespace plumb {

namespace {

constexpr std::size_t kIdBytes = sizeof(cuda::UniqueId);
constexpr int kWorldWarmup = 5;
constexpr int kWorldGroups = 5;  // timed groups per size (nccl-tests times one loop; five give a spread)

std::string id_to_hex(const cuda::UniqueId& id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * kIdBytes);
  for (char c : id.internal) {
    auto b = static_cast<unsigned char>(c);
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<cuda::UniqueId> id_from_hex(std::string_view s) {
  cuda::UniqueId id{};
  if (s.size() != 2 * kIdBytes) return make_error(ErrorKind::invalid, "NCCL unique id: " + std::to_string(s.size()) + " hex digits, want 256");
  for (std::size_t i = 0; i < kIdBytes; ++i) {
    int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return make_error(ErrorKind::invalid, "NCCL unique id: not hexadecimal");
    id.internal[i] = static_cast<char>((hi << 4) | lo);
  }
  return id;
}

std::string nccl_error(const cuda::Nccl& n, int rc, const char* call) {
  const char* m = n.GetErrorString != nullptr ? n.GetErrorString(rc) : nullptr;
  return std::string(call) + " returned " + std::to_string(rc) + (m != nullptr ? std::string(" (") + m + ")" : std::string());
}

std::string nccl_version(const cuda::Nccl& n) {
  int v = 0;
  return n.GetVersion(&v) == 0 ? nccl_version_string(v) : std::string("?");
}

// Releases what a sweep allocated, whichever way it ends.
struct WorldBuffers {
  const cuda::Runtime* rt = nullptr;
  const cuda::Nccl* nc = nullptr;
  std::vector<void*> send, recv;
  std::vector<cuda::Stream> streams;
  std::vector<cuda::Comm> comms;
  WorldBuffers() = default;
  WorldBuffers(const WorldBuffers&) = delete;
  WorldBuffers& operator=(const WorldBuffers&) = delete;
  ~WorldBuffers() {
    for (std::size_t i = 0; i < comms.size(); ++i) {
      rt->SetDevice(static_cast<int>(i));
      if (send[i] != nullptr) rt->Free(send[i]);
      if (recv[i] != nullptr) rt->Free(recv[i]);
      if (streams[i] != nullptr) rt->StreamDestroy(streams[i]);
      if (comms[i] != nullptr) nc->CommDestroy(comms[i]);
    }
  }
};

}  // namespace

NcclWorldProbe probe_nccl_world() {
  NcclWorldProbe p;
  auto n = cuda::usable_devices();
  if (!n) {
    p.why = first_line(n.error().message);
    return p;
  }
  auto nc = cuda::nccl();
  if (!nc) {
    p.why = first_line(nc.error().message);
    return p;
  }
  p.devices = *n;
  p.nccl = nccl_version(**nc);
  return p;
}

std::string format_probe(const NcclWorldProbe& p) {
  if (p.devices > 0) return "devices " + std::to_string(p.devices) + " nccl " + (p.nccl.empty() ? std::string("?") : p.nccl);
  return "none " + (p.why.empty() ? std::string("no usable CUDA device") : first_line(p.why));
}

Result<NcclWorldProbe> parse_probe(std::string_view text) {
  std::string line = first_line(std::string(text));
  NcclWorldProbe p;
  if (starts_with(line, "none ")) {
    p.why = line.substr(5);
    return p;
  }
  auto f = split_ws(line);
  auto d = f.size() == 4 && f[0] == "devices" && f[2] == "nccl" ? parse_int(f[1]) : std::nullopt;
  if (!d || *d < 1 || *d > 4096) return make_error(ErrorKind::invalid, "unexpected NCCL probe answer: " + line.substr(0, 80));
  p.devices = static_cast<int>(*d);
  p.nccl = std::string(f[3]);
  return p;
}

Result<std::string> nccl_unique_id_hex() {
  auto nc = cuda::nccl();
  if (!nc) return nc.error();
  cuda::UniqueId id{};
  int rc = (*nc)->GetUniqueId(&id);
  if (rc != 0) return make_error(ErrorKind::io, nccl_error(**nc, rc, "ncclGetUniqueId"));
  return id_to_hex(id);
}

Result<std::string> run_nccl_world(const NcclWorldSpec& spec) {
  auto id = id_from_hex(spec.id_hex);
  if (!id) return id.error();
  if (spec.devices < 1 || spec.world < 2 || spec.first_rank < 0 || spec.first_rank + spec.devices > spec.world) {
    return make_error(ErrorKind::invalid, "NCCL world: ranks " + std::to_string(spec.first_rank) + "+" + std::to_string(spec.devices) +
                                              " do not fit a world of " + std::to_string(spec.world));
  }
  auto have = cuda::usable_devices();
  if (!have) return have.error();
  if (*have < spec.devices) {
    return make_error(ErrorKind::absent, std::to_string(spec.devices) + " GPUs promised, " + std::to_string(*have) + " usable now");
  }
  auto nc = cuda::nccl();
  if (!nc) return nc.error();
  const cuda::Runtime& rt = **cuda::runtime();
  const cuda::Nccl& n = **nc;
  auto count = static_cast<std::size_t>(spec.devices);
  WorldBuffers w;
  w.rt = &rt;
  w.nc = &n;
  w.send.assign(count, nullptr);
  w.recv.assign(count, nullptr);
  w.streams.assign(count, nullptr);
  std::vector<cuda::Comm> comms(count, nullptr);
  auto sizes = allreduce_sizes(spec.max_bytes);
  const std::uint64_t top = sizes.back();
  std::string out = "nccl " + nccl_version(n) + "\n";
  auto cuda_call = [&](cuda::Error e, const char* call) -> Result<bool> {
    if (e != 0) return make_error(ErrorKind::io, std::string(call) + ": " + rt.describe(e));
    return true;
  };
  for (std::size_t i = 0; i < count; ++i) {
    auto d = static_cast<int>(i);
    if (auto r = cuda_call(rt.SetDevice(d), "cudaSetDevice"); !r) return r.error();
    char bus[64] = {};
    if (rt.DeviceGetPCIBusId(bus, sizeof bus, d) == 0) out += "gpu " + std::to_string(d) + " " + to_lower(bus) + "\n";
    if (auto r = cuda_call(rt.Malloc(&w.send[i], top), "cudaMalloc"); !r) return r.error();
    if (auto r = cuda_call(rt.Malloc(&w.recv[i], top), "cudaMalloc"); !r) return r.error();
    if (auto r = cuda_call(rt.Memset(w.send[i], 0, top), "cudaMemset"); !r) return r.error();
    if (auto r = cuda_call(rt.StreamCreate(&w.streams[i]), "cudaStreamCreate"); !r) return r.error();
  }
  // Several devices of one process join from one thread: their inits are one group (NCCL docs,
  // "Creating a communicator with options" / group calls).
  int rc = n.GroupStart();
  for (std::size_t i = 0; rc == 0 && i < count; ++i) {
    rt.SetDevice(static_cast<int>(i));
    rc = n.CommInitRank(&comms[i], spec.world, *id, spec.first_rank + static_cast<int>(i));
  }
  int end = n.GroupEnd();
  if (rc == 0) rc = end;
  w.comms = comms;
  if (rc != 0) return make_error(ErrorKind::io, nccl_error(n, rc, "ncclCommInitRank"));
  auto launch = [&](std::uint64_t bytes) -> int {
    int g = n.GroupStart();
    for (std::size_t i = 0; g == 0 && i < count; ++i) {
      g = n.AllReduce(w.send[i], w.recv[i], bytes / 4, cuda::kNcclFloat32, cuda::kNcclSum, comms[i], w.streams[i]);
    }
    int e = n.GroupEnd();
    return g != 0 ? g : e;
  };
  auto sync = [&]() -> Result<bool> {
    for (std::size_t i = 0; i < count; ++i) {
      rt.SetDevice(static_cast<int>(i));
      if (auto r = cuda_call(rt.StreamSynchronize(w.streams[i]), "cudaStreamSynchronize"); !r) return r.error();
    }
    return true;
  };
  int per = std::max(1, spec.iterations / kWorldGroups);
  for (std::uint64_t bytes : sizes) {
    for (int k = 0; k < kWorldWarmup; ++k) {
      if (int e = launch(bytes); e != 0) return make_error(ErrorKind::io, nccl_error(n, e, "ncclAllReduce"));
    }
    if (auto r = sync(); !r) return r.error();
    out += "size " + std::to_string(bytes);
    for (int g = 0; g < kWorldGroups; ++g) {
      auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < per; ++k) {
        if (int e = launch(bytes); e != 0) return make_error(ErrorKind::io, nccl_error(n, e, "ncclAllReduce"));
      }
      if (auto r = sync(); !r) return r.error();
      double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / per;
      out += " " + fmt_num(sec, 9);
    }
    out += "\n";
  }
  return out;
}

Result<NcclWorldResult> parse_nccl_world(std::string_view text) {
  NcclWorldResult r;
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    if (f.empty()) continue;
    if (f[0] == "nccl" && f.size() == 2) {
      r.nccl = std::string(f[1]);
    } else if (f[0] == "gpu" && f.size() == 3) {
      r.gpus.push_back(std::string(f[1]) + " " + std::string(f[2]));
    } else if (f[0] == "size" && f.size() >= 3) {
      NcclWorldRow row;
      auto b = parse_int(f[1]);
      if (!b || *b <= 0) return make_error(ErrorKind::invalid, "NCCL sweep: bad size in '" + std::string(line.substr(0, 80)) + "'");
      row.bytes = static_cast<std::uint64_t>(*b);
      for (std::size_t i = 2; i < f.size(); ++i) {
        auto s = parse_double(f[i]);
        if (!s || !(*s > 0) || *s > 1e6) return make_error(ErrorKind::invalid, "NCCL sweep: bad time in '" + std::string(line.substr(0, 80)) + "'");
        row.seconds.push_back(*s);
      }
      r.rows.push_back(std::move(row));
    } else {
      return make_error(ErrorKind::invalid, "NCCL sweep: unexpected line '" + std::string(line.substr(0, 80)) + "'");
    }
  }
  if (r.rows.empty()) return make_error(ErrorKind::invalid, "NCCL sweep: no sizes measured");
  return r;
}

NcclTestsRun nccl_world_run(const NcclWorldResult& r, int world, int hosts, const std::string& origin) {
  NcclTestsRun run;
  run.origin = origin;
  run.collective = "all_reduce_perf";
  run.ranks = world;
  run.hosts = hosts;
  run.hosts_listed = hosts;
  run.header_seen = true;
  run.footer_seen = true;
  run.nccl_version = r.nccl;
  for (const auto& row : r.rows) {
    NcclTestsRow t;
    t.size = row.bytes;
    t.count = row.bytes / 4;
    t.type = "float";
    t.redop = "sum";
    double sec = median_of(row.seconds);
    if (sec > 0) {
      double algbw = algbw_bytes_per_s(static_cast<double>(row.bytes), sec) / 1e9;
      t.oop_time_us = sec * 1e6;
      t.oop_algbw = algbw;
      t.oop_busbw = allreduce_busbw(algbw, world);
      t.oop_wrong = 0;
    }
    run.rows.push_back(std::move(t));
  }
  return run;
}

}  // namespace plumb
