// GPU collector: NVML through the function table, every value a Fact with the call as its source.
#include "collect/gpu_nvml.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "collect/process.h"
#include "core/registry.h"
#include "core/text.h"
#include "vendor/nvml_devices.h"
#include "vendor/nvml_loader.h"
#include "vendor/nvml_processes.h"
#include "core/tables.h"

namespace plumb {

std::string topology_level_name(int level) {
  switch (level) {
    case 0: return "internal";
    case 10: return "PIX";
    case 20: return "PXB";
    case 30: return "PHB";
    case 40: return "NODE";
    case 50: return "SYS";
    default: return "level " + std::to_string(level);
  }
}

namespace {

// What the worker shares with the waiting collector: the call in flight and the devices done so far.
struct Progress {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::string current;  // "nvmlDeviceGetPowerUsage(gpu 0000:3b:00.0)"
  GpuFacts facts;
};

class Reader {
 public:
  Reader(const NvmlLibrary& lib, Progress& p) : lib_(lib), a_(lib.api()), p_(p) {}

  void run();

 private:
  // Records the call in flight, then makes it.
  template <class F, class... Args>
  nvml::Return call(const char* name, F fn, Args... args) {
    {
      std::lock_guard<std::mutex> lock(p_.mu);
      p_.current = std::string(name) + (subject_.empty() ? "" : "(gpu " + subject_ + ")");
    }
    return fn(args...);
  }
  [[nodiscard]] std::string src(const char* name) const {
    return std::string(name) + (subject_.empty() ? "" : "(gpu " + subject_ + ")");
  }
  template <class T>
  Fact<T> fact(nvml::Return rc, T v, const char* name) {
    if (rc == nvml::kSuccess) return Fact<T>::of(std::move(v), src(name));
    if (rc == nvml::kErrorGpuIsLost) lost_rc_ = rc;
    return Fact<T>::none(lib_.describe(rc), src(name));
  }
  template <class T>
  Fact<T> absent(const char* name) const {
    return Fact<T>::none("not supported by this driver (" + std::string(name) + " is not exported by " + lib_.path() + ")",
                         src(name));
  }
  // One unsigned value from a (Device, unsigned*) call.
  Fact<int> uint_fact(nvml::fn::DevUint fn, const char* name, nvml::Device d) {
    if (fn == nullptr) return absent<int>(name);
    unsigned int v = 0;
    auto rc = call(name, fn, d, &v);
    return fact(rc, static_cast<int>(v), name);
  }
  Fact<bool> enable_fact(nvml::fn::DevEnable fn, const char* name, nvml::Device d) {
    if (fn == nullptr) return absent<bool>(name);
    int v = 0;
    auto rc = call(name, fn, d, &v);
    return fact(rc, v == nvml::kFeatureEnabled, name);
  }

  void read_system(GpuFacts& g);
  void read_device(nvml::Device d, GpuDevice& dev);
  void read_memory(nvml::Device d, GpuDevice& dev);
  void read_ecc(nvml::Device d, GpuDevice& dev);
  void read_processes(nvml::Device d, GpuDevice& dev);
  void read_nvlink(nvml::Device d, GpuDevice& dev);
  void read_nvlink_peers(nvml::Device d, const std::vector<bool>& links, GpuDevice& dev);

  const NvmlLibrary& lib_;
  const NvmlApi& a_;
  Progress& p_;
  std::string subject_;
  nvml::Return lost_rc_ = nvml::kSuccess;
};

void Reader::read_system(GpuFacts& g) {
  char buf[nvml::kDriverVersionBufferSize] = {};
  if (a_.driver_version != nullptr) {
    auto rc = call("nvmlSystemGetDriverVersion", a_.driver_version, buf, static_cast<unsigned>(sizeof buf));
    g.driver_version = fact(rc, std::string(buf), "nvmlSystemGetDriverVersion");
  } else {
    g.driver_version = absent<std::string>("nvmlSystemGetDriverVersion");
  }
  if (a_.nvml_version != nullptr) {
    char nv[nvml::kDriverVersionBufferSize] = {};
    auto rc = call("nvmlSystemGetNVMLVersion", a_.nvml_version, nv, static_cast<unsigned>(sizeof nv));
    g.nvml_version = fact(rc, std::string(nv), "nvmlSystemGetNVMLVersion");
  } else {
    g.nvml_version = absent<std::string>("nvmlSystemGetNVMLVersion");
  }
  if (a_.cuda_driver_version != nullptr) {
    int v = 0;
    auto rc = call("nvmlSystemGetCudaDriverVersion", a_.cuda_driver_version, &v);
    g.cuda_driver_version = fact(rc, v, "nvmlSystemGetCudaDriverVersion");
  } else {
    g.cuda_driver_version = absent<int>("nvmlSystemGetCudaDriverVersion");
  }
}

void Reader::read_memory(nvml::Device d, GpuDevice& dev) {
  const char* name = "nvmlDeviceGetMemoryInfo";
  if (a_.memory_v2 != nullptr) {
    nvml::MemoryV2 m{};
    m.version = nvml::kMemoryV2Version;
    auto rc = call(name, a_.memory_v2, d, &m);
    if (rc == nvml::kSuccess) {
      dev.memory_total = Fact<std::uint64_t>::of(m.total, src("nvmlDeviceGetMemoryInfo_v2"));
      dev.memory_used = Fact<std::uint64_t>::of(m.used, src("nvmlDeviceGetMemoryInfo_v2"));
      dev.memory_reserved = Fact<std::uint64_t>::of(m.reserved, src("nvmlDeviceGetMemoryInfo_v2"));
      return;
    }
    // Only a version problem falls back to v1; a real error (lost GPU) is the answer.
    if (rc != nvml::kErrorFunctionNotFound && rc != nvml::kErrorArgumentVersionMismatch) {
      dev.memory_total = dev.memory_used = dev.memory_reserved = fact(rc, std::uint64_t{0}, name);
      return;
    }
  }
  if (a_.memory_v1 == nullptr) {
    dev.memory_total = dev.memory_used = dev.memory_reserved = absent<std::uint64_t>(name);
    return;
  }
  nvml::MemoryV1 m{};
  auto rc = call(name, a_.memory_v1, d, &m);
  dev.memory_total = fact(rc, std::uint64_t{m.total}, name);
  dev.memory_used = fact(rc, std::uint64_t{m.used}, name);  // includes reserved on v1
  dev.memory_reserved = Fact<std::uint64_t>::none("only reported by nvmlDeviceGetMemoryInfo_v2", src(name));
}

void Reader::read_ecc(nvml::Device d, GpuDevice& dev) {
  const char* mode = "nvmlDeviceGetEccMode";
  if (a_.ecc_mode != nullptr) {
    int cur = 0, pend = 0;
    auto rc = call(mode, a_.ecc_mode, d, &cur, &pend);
    dev.ecc.enabled = fact(rc, cur == nvml::kFeatureEnabled, mode);
    dev.ecc.pending_enabled = fact(rc, pend == nvml::kFeatureEnabled, mode);
  } else {
    dev.ecc.enabled = dev.ecc.pending_enabled = absent<bool>(mode);
  }
  const char* tot = "nvmlDeviceGetTotalEccErrors";
  auto count = [&](int type, int counter) -> Fact<std::uint64_t> {
    if (a_.ecc_total == nullptr) return absent<std::uint64_t>(tot);
    if (dev.ecc.enabled.has() && !*dev.ecc.enabled) return Fact<std::uint64_t>::none("ECC is disabled", src(tot));
    unsigned long long n = 0;
    auto rc = call(tot, a_.ecc_total, d, type, counter, &n);
    return fact(rc, std::uint64_t{n}, tot);
  };
  dev.ecc.volatile_corrected = count(nvml::kMemoryErrorCorrected, nvml::kVolatileEcc);
  dev.ecc.volatile_uncorrected = count(nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc);
  dev.ecc.aggregate_corrected = count(nvml::kMemoryErrorCorrected, nvml::kAggregateEcc);
  dev.ecc.aggregate_uncorrected = count(nvml::kMemoryErrorUncorrected, nvml::kAggregateEcc);

  // Retired pages: the two-call pattern, with a bounded retry as the list can grow in between.
  const char* rp = "nvmlDeviceGetRetiredPages";
  auto pages = [&](int cause) -> Fact<int> {
    if (a_.retired_pages == nullptr) return absent<int>(rp);
    unsigned int n = 0;
    auto rc = call(rp, a_.retired_pages, d, cause, &n, static_cast<unsigned long long*>(nullptr));
    for (int tries = 0; rc == nvml::kErrorInsufficientSize && tries < 3; ++tries) {
      std::vector<unsigned long long> addrs(n + 8);
      n = static_cast<unsigned int>(addrs.size());
      rc = call(rp, a_.retired_pages, d, cause, &n, addrs.data());
    }
    return fact(rc, static_cast<int>(n), rp);
  };
  dev.mem_health.retired_single_bit = pages(nvml::kRetiredMultipleSingleBit);
  dev.mem_health.retired_double_bit = pages(nvml::kRetiredDoubleBit);
  dev.mem_health.retired_pending = enable_fact(a_.retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus", d);
  const char* rr = "nvmlDeviceGetRemappedRows";
  if (a_.remapped_rows != nullptr) {
    unsigned int corr = 0, unc = 0, pend = 0, fail = 0;
    auto rc = call(rr, a_.remapped_rows, d, &corr, &unc, &pend, &fail);
    dev.mem_health.remapped_correctable = fact(rc, static_cast<int>(corr), rr);
    dev.mem_health.remapped_uncorrectable = fact(rc, static_cast<int>(unc), rr);
    dev.mem_health.remap_pending = fact(rc, pend != 0, rr);
    dev.mem_health.remap_failure = fact(rc, fail != 0, rr);
  } else {
    dev.mem_health.remapped_correctable = dev.mem_health.remapped_uncorrectable = absent<int>(rr);
    dev.mem_health.remap_pending = dev.mem_health.remap_failure = absent<bool>(rr);
  }
}

void Reader::read_processes(nvml::Device d, GpuDevice& dev) {
  const char* name = "nvmlDeviceGetComputeRunningProcesses";
  if (a_.processes == nullptr) {
    dev.processes = absent<std::vector<GpuProcess>>(name);
    return;
  }
  std::vector<NvmlProcess> ps;
  auto rc = call(name, [&] { return nvml_read_compute_processes(a_, d, ps); });
  std::vector<GpuProcess> out;
  for (const NvmlProcess& x : ps) {
    GpuProcess p;
    p.pid = static_cast<int>(x.pid);
    p.used_memory_bytes = x.used_memory_bytes;
    out.push_back(std::move(p));
  }
  dev.processes = fact(rc, std::move(out), name);
}

void Reader::read_nvlink(nvml::Device d, GpuDevice& dev) {
  const char* name = "nvmlDeviceGetNvLinkState";
  if (a_.nvlink_state == nullptr) {
    dev.nvlink_active = absent<std::vector<bool>>(name);
    return;
  }
  std::vector<bool> links;
  // The link count changed across generations (12, 18, 36): scan until the driver says "no such link".
  for (unsigned int link = 0; link < nvml::kNvLinkScanCap; ++link) {
    int active = 0;
    auto rc = call(name, a_.nvlink_state, d, link, &active);
    if (rc == nvml::kErrorInvalidArgument || (rc == nvml::kErrorNotSupported && link > 0)) break;
    if (rc != nvml::kSuccess) {
      dev.nvlink_active = fact(rc, std::vector<bool>{}, name);
      return;
    }
    links.push_back(active == nvml::kFeatureEnabled);
  }
  read_nvlink_peers(d, links, dev);
  dev.nvlink_active = Fact<std::vector<bool>>::of(std::move(links), src(name));
}

// What each active link connects to: the topology counts GPU-GPU links per pair from this, and
// links to an NVSwitch as "every GPU on the switch fabric" (nvidia-smi's NV12 / NV18).
void Reader::read_nvlink_peers(nvml::Device d, const std::vector<bool>& links, GpuDevice& dev) {
  const char* name = "nvmlDeviceGetNvLinkRemotePciInfo_v2";
  if (a_.nvlink_remote_pci == nullptr && a_.nvlink_remote_type == nullptr) {
    dev.nvlink_peers = absent<std::vector<GpuNvLinkPeer>>(name);
    return;
  }
  std::vector<GpuNvLinkPeer> peers;
  nvml::Return first_error = nvml::kSuccess;
  for (unsigned int link = 0; link < links.size(); ++link) {
    if (!links[link]) continue;
    GpuNvLinkPeer p;
    p.link = link;
    p.remote_type = "unknown";
    int type = -1;
    if (a_.nvlink_remote_type != nullptr) {
      auto rc = call("nvmlDeviceGetNvLinkRemoteDeviceType", a_.nvlink_remote_type, d, link, &type);
      if (rc == nvml::kSuccess) {
        p.remote_type = type == nvml::kNvLinkDeviceGpu      ? "gpu"
                        : type == nvml::kNvLinkDeviceSwitch ? "switch"
                        : type == nvml::kNvLinkDeviceIbmNpu ? "ibmnpu"
                                                            : "unknown";
      } else if (first_error == nvml::kSuccess) {
        first_error = rc;
      }
    }
    if (a_.nvlink_remote_pci != nullptr) {
      nvml::PciInfo pci{};
      auto rc = call(name, a_.nvlink_remote_pci, d, link, &pci);
      if (rc == nvml::kSuccess) {
        pci.busId[sizeof pci.busId - 1] = '\0';
        p.remote_bus_id = normalise_bus_id(pci.busId).value_or("");
      } else if (first_error == nvml::kSuccess) {
        first_error = rc;
      }
    }
    peers.push_back(std::move(p));
  }
  bool any = false;
  for (const auto& p : peers) any |= p.remote_type != "unknown" || !p.remote_bus_id.empty();
  if (!any && !peers.empty()) {
    dev.nvlink_peers = fact(first_error == nvml::kSuccess ? nvml::kErrorNotSupported : first_error,
                            std::vector<GpuNvLinkPeer>{}, name);
    return;
  }
  dev.nvlink_peers = Fact<std::vector<GpuNvLinkPeer>>::of(std::move(peers), src(name));
}

// `dev` comes with the bus id (or why there is none) from the device list.
void Reader::read_device(nvml::Device d, GpuDevice& dev) {
  char buf[nvml::kNameBufferSize] = {};
  if (a_.uuid != nullptr && call("nvmlDeviceGetUUID", a_.uuid, d, buf, nvml::kUuidBufferSize) == nvml::kSuccess) {
    dev.uuid = buf;
  }
  buf[0] = '\0';
  if (a_.name != nullptr && call("nvmlDeviceGetName", a_.name, d, buf, nvml::kNameBufferSize) == nvml::kSuccess) {
    dev.name = buf;
  }
  subject_ = dev.bus_id.empty() ? dev.uuid : dev.bus_id;
  if (!dev.lost.empty()) return;
  dev.minor_number = uint_fact(a_.minor_number, "nvmlDeviceGetMinorNumber", d);
  if (a_.vbios != nullptr) {
    char vb[nvml::kVbiosBufferSize] = {};
    auto rc = call("nvmlDeviceGetVbiosVersion", a_.vbios, d, vb, nvml::kVbiosBufferSize);
    dev.vbios = fact(rc, std::string(vb), "nvmlDeviceGetVbiosVersion");
  } else {
    dev.vbios = absent<std::string>("nvmlDeviceGetVbiosVersion");
  }
  read_memory(d, dev);
  if (lost_rc_ != nvml::kSuccess) return;
  if (a_.utilization != nullptr) {
    nvml::Utilization u{};
    auto rc = call("nvmlDeviceGetUtilizationRates", a_.utilization, d, &u);
    dev.util_gpu = fact(rc, static_cast<int>(u.gpu), "nvmlDeviceGetUtilizationRates");
    dev.util_memory = fact(rc, static_cast<int>(u.memory), "nvmlDeviceGetUtilizationRates");
  } else {
    dev.util_gpu = dev.util_memory = absent<int>("nvmlDeviceGetUtilizationRates");
  }
  if (a_.temperature_v != nullptr) {
    nvml::TemperatureV1 t{};
    t.version = nvml::kTemperatureV1Version;
    t.sensorType = nvml::kTemperatureGpu;
    auto rc = call("nvmlDeviceGetTemperatureV", a_.temperature_v, d, &t);
    dev.temperature_c = fact(rc, t.temperature, "nvmlDeviceGetTemperatureV");
  } else if (a_.temperature_v1 != nullptr) {
    unsigned int t = 0;
    auto rc = call("nvmlDeviceGetTemperature", a_.temperature_v1, d, static_cast<int>(nvml::kTemperatureGpu), &t);
    dev.temperature_c = fact(rc, static_cast<int>(t), "nvmlDeviceGetTemperature");
  } else {
    dev.temperature_c = absent<int>("nvmlDeviceGetTemperature");
  }
  auto threshold = [&](int type) -> Fact<int> {
    const char* n = "nvmlDeviceGetTemperatureThreshold";
    if (a_.temperature_threshold == nullptr) return absent<int>(n);
    unsigned int v = 0;
    auto rc = call(n, a_.temperature_threshold, d, type, &v);
    return fact(rc, static_cast<int>(v), n);
  };
  dev.temp_slowdown_c = threshold(nvml::kThresholdSlowdown);
  dev.temp_shutdown_c = threshold(nvml::kThresholdShutdown);
  if (lost_rc_ != nvml::kSuccess) return;
  dev.power_mw = uint_fact(a_.power_usage, "nvmlDeviceGetPowerUsage", d);
  dev.power_limit_mw = uint_fact(a_.power_limit, "nvmlDeviceGetEnforcedPowerLimit", d);
  auto clock = [&](nvml::fn::DevClock fn, const char* n, int type) -> Fact<int> {
    if (fn == nullptr) return absent<int>(n);
    unsigned int v = 0;
    auto rc = call(n, fn, d, type, &v);
    return fact(rc, static_cast<int>(v), n);
  };
  dev.clock_sm_mhz = clock(a_.clock, "nvmlDeviceGetClockInfo", nvml::kClockSm);
  dev.clock_mem_mhz = clock(a_.clock, "nvmlDeviceGetClockInfo", nvml::kClockMem);
  dev.clock_sm_max_mhz = clock(a_.max_clock, "nvmlDeviceGetMaxClockInfo", nvml::kClockSm);
  auto reasons = [&](nvml::fn::DevUll fn, const char* n) -> Fact<std::uint64_t> {
    if (fn == nullptr) return absent<std::uint64_t>(n);
    unsigned long long v = 0;
    auto rc = call(n, fn, d, &v);
    return fact(rc, std::uint64_t{v}, n);
  };
  dev.clocks_event_reasons = reasons(a_.event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  dev.supported_event_reasons = reasons(a_.supported_event_reasons, "nvmlDeviceGetSupportedClocksEventReasons");
  if (lost_rc_ != nvml::kSuccess) return;
  dev.pcie.gen_current = uint_fact(a_.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", d);
  dev.pcie.gen_max = uint_fact(a_.pcie_max_gen, "nvmlDeviceGetMaxPcieLinkGeneration", d);
  dev.pcie.gen_gpu_max = uint_fact(a_.pcie_gpu_max_gen, "nvmlDeviceGetGpuMaxPcieLinkGeneration", d);
  dev.pcie.width_current = uint_fact(a_.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", d);
  dev.pcie.width_max = uint_fact(a_.pcie_max_width, "nvmlDeviceGetMaxPcieLinkWidth", d);
  if (lost_rc_ != nvml::kSuccess) return;
  read_ecc(d, dev);
  if (lost_rc_ != nvml::kSuccess) return;
  dev.persistence_mode = enable_fact(a_.persistence_mode, "nvmlDeviceGetPersistenceMode", d);
  if (a_.compute_mode != nullptr) {
    int m = 0;
    auto rc = call("nvmlDeviceGetComputeMode", a_.compute_mode, d, &m);
    dev.compute_mode = fact(rc, nvml::compute_mode_name(m), "nvmlDeviceGetComputeMode");
  } else {
    dev.compute_mode = absent<std::string>("nvmlDeviceGetComputeMode");
  }
  if (a_.mig_mode != nullptr) {
    unsigned int cur = 0, pend = 0;
    auto rc = call("nvmlDeviceGetMigMode", a_.mig_mode, d, &cur, &pend);
    dev.mig_enabled = fact(rc, cur == 1u, "nvmlDeviceGetMigMode");
    dev.mig_pending = fact(rc, pend == 1u, "nvmlDeviceGetMigMode");
  } else {
    dev.mig_enabled = dev.mig_pending = absent<bool>("nvmlDeviceGetMigMode");
  }
  read_nvlink(d, dev);
  read_processes(d, dev);
}

void Reader::run() {
  GpuFacts g;
  g.collected = true;
  g.nvml_library = lib_.path();
  g.nvml_symbols = lib_.resolved();
  auto list = nvml_devices(lib_, [this](const char* name) {
    std::lock_guard<std::mutex> lock(p_.mu);
    p_.current = name;
  });
  if (!list) {
    std::lock_guard<std::mutex> lock(p_.mu);
    p_.facts = g;
    p_.facts.unavailable = list.error().message;
    return;
  }
  read_system(g);
  g.device_count = list->count_error.empty()
                       ? Fact<int>::of(static_cast<int>(list->count), "nvmlDeviceGetCount")
                       : Fact<int>::none(list->count_error, "nvmlDeviceGetCount");
  {
    std::lock_guard<std::mutex> lock(p_.mu);
    p_.facts = g;
  }
  std::vector<std::pair<nvml::Device, std::size_t>> handles;  // handle, index into devices
  for (const NvmlDevice& nd : list->devices) {
    GpuDevice dev;
    dev.nvml_index = static_cast<int>(nd.index);
    dev.bus_id = nd.bus_id;
    dev.lost = nd.error;
    subject_.clear();
    lost_rc_ = nvml::kSuccess;
    if (nd.handle != nullptr) {
      read_device(nd.handle, dev);
      if (dev.lost.empty() && lost_rc_ != nvml::kSuccess) dev.lost = lib_.describe(lost_rc_);
      if (dev.lost.empty()) handles.emplace_back(nd.handle, nd.index);
    }
    std::lock_guard<std::mutex> lock(p_.mu);
    p_.facts.devices.push_back(std::move(dev));
  }
  subject_.clear();
  if (a_.topology != nullptr) {
    for (std::size_t x = 0; x < handles.size(); ++x) {
      for (std::size_t y = x + 1; y < handles.size(); ++y) {
        std::string ba, bb;
        {
          std::lock_guard<std::mutex> lock(p_.mu);
          ba = p_.facts.devices[handles[x].second].bus_id;
          bb = p_.facts.devices[handles[y].second].bus_id;
        }
        int level = 0;
        subject_ = concat(ba, ", ", bb);
        auto trc = call("nvmlDeviceGetTopologyCommonAncestor", a_.topology, handles[x].first, handles[y].first, &level);
        GpuPairTopology t{ba, bb, fact(trc, level, "nvmlDeviceGetTopologyCommonAncestor")};
        std::lock_guard<std::mutex> lock(p_.mu);
        p_.facts.topology.push_back(std::move(t));
      }
    }
  }
  subject_.clear();
  if (a_.shutdown != nullptr) call("nvmlShutdown", a_.shutdown);
}


}  // namespace

GpuFacts read_gpu_facts(const Context& ctx, std::chrono::milliseconds budget) {
  auto lib = NvmlLibrary::open(ctx.nvml_lib);
  if (!lib) {
    GpuFacts g;
    g.collected = true;
    g.nvml_library = ctx.nvml_lib.empty() ? kDefaultNvmlLibrary : ctx.nvml_lib;
    g.unavailable = lib.error().message;
    return g;
  }
  auto progress = std::make_shared<Progress>();
  std::shared_ptr<const NvmlLibrary> keep = *lib;
  // The worker owns shared pointers only, so abandoning it at the deadline is safe.
  // Detached, not a task group (core/parallel.h): a reader past its deadline is abandoned.
  std::thread([progress, keep]() {
    Reader(*keep, *progress).run();
    std::lock_guard<std::mutex> lock(progress->mu);
    progress->done = true;
    progress->cv.notify_all();
  }).detach();
  GpuFacts out;
  {
    std::unique_lock<std::mutex> lock(progress->mu);
    bool finished = progress->cv.wait_for(lock, budget, [&] { return progress->done; });
    out = progress->facts;
    if (!finished) {
      out.collected = true;
      out.stalled_call = progress->current + " did not return within " + std::to_string(budget.count()) + " ms";
      if (out.driver_version.missing.empty() && !out.driver_version.has() && out.devices.empty()) {
        out.unavailable = "NVML did not answer: " + out.stalled_call;
      }
    }
  }
  for (auto& dev : out.devices) {
    if (!dev.processes.has()) continue;
    auto procs = *dev.processes.value;
    for (auto& p : procs) {
      auto comm = ctx.root.read_value("/proc/" + std::to_string(p.pid) + "/comm");
      if (comm) p.name = *comm;
    }
    dev.processes.value = procs;
  }
  // nvidia-persistenced keeps the driver state alive with persistence mode off
  // (docs.nvidia.com/deploy/driver-persistence/persistence-mode-legacy.html).
  out.persistenced_running = process_running(ctx.root, "nvidia-persistenced");
  return out;
}

namespace {
// Leaves a fifth of the registry's deadline (at least 50 ms) to report which call stalled.
std::chrono::milliseconds nvml_budget(std::chrono::milliseconds deadline) {
  auto margin = std::max(deadline / 5, std::chrono::milliseconds(50));
  return deadline > margin * 2 ? deadline - margin : deadline / 2;
}


}  // namespace

void collect_gpu_nvml_tables(Tables& t) {
  t.add_collector({"collect.gpu", {"NVIDIA GPUs through NVML", "通过 NVML 读取 NVIDIA GPU 状态"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              GpuFacts g = read_gpu_facts(ctx, nvml_budget(ctx.deadline));
                                              return [g](Facts& f) {
                                                CudaStackFacts cuda = f.gpu.cuda;  // written by collect.cuda
                                                f.gpu = g;
                                                f.gpu.cuda = cuda;
                                              };
                                            }});
}

}  // namespace plumb
