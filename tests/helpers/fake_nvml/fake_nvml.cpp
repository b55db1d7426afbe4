// A fake libnvidia-ml.so: the real NVML symbol names and ABI (layouts from src/gpu/nvml.h, pinned by
// static_assert), answering from the scenario JSON named by PLUMB_FAKE_NVML_SCENARIO. Values may be
// lists of samples (by call count or by elapsed time) so `plumb watch` can be driven through it.
// Scenario format: docs/gpu.md. Built twice; FAKE_NVML_LEGACY drops the newer versioned names.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "vendor/nvml.h"

using nlohmann::json;
using namespace plumb::nvml;  // NOLINT(google-build-using-namespace)

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct FakeDevice {
  json spec;  // device_defaults merged with the device's own object
};

struct State {
  std::mutex mu;
  bool loaded = false;
  int init_count = 0;
  std::string path;  // the scenario file loaded
  json scenario;
  std::vector<FakeDevice> devices;
  std::map<std::string, std::size_t> calls;  // "<device>/<field>" -> how many times read
  std::chrono::steady_clock::time_point start;
};

State& state() {
  static State s;
  return s;
}

void merge(json& base, const json& over) {
  if (!base.is_object() || !over.is_object()) {
    base = over;
    return;
  }
  for (auto it = over.begin(); it != over.end(); ++it) {
    if (base.contains(it.key()) && base[it.key()].is_object() && it.value().is_object() &&
        !it.value().contains("samples")) {
      merge(base[it.key()], it.value());
    } else {
      base[it.key()] = it.value();
    }
  }
}

// Loads the scenario once; an unreadable scenario makes init fail loudly, as a broken driver would.
Return load_locked(State& s) {
  const char* path = std::getenv("PLUMB_FAKE_NVML_SCENARIO");  // NOLINT(concurrency-mt-unsafe)
  // Reloaded when every init was shut down and the variable names another file (unit tests run
  // several scenarios in one process); otherwise the first scenario stays.
  if (s.loaded && (s.init_count > 0 || path == nullptr || s.path == path)) return kSuccess;
  s.loaded = false;
  s.devices.clear();
  s.calls.clear();
  if (path == nullptr) {
    std::fprintf(stderr, "fake-nvml: PLUMB_FAKE_NVML_SCENARIO is not set\n");
    return kErrorDriverNotLoaded;
  }
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "fake-nvml: cannot read scenario %s\n", path);
    return kErrorDriverNotLoaded;
  }
  try {
    std::stringstream ss;
    ss << in.rdbuf();
    s.scenario = json::parse(ss.str(), nullptr, true, true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake-nvml: bad scenario %s: %s\n", path, e.what());
    return kErrorUnknown;
  }
  json defaults = s.scenario.value("device_defaults", json::object());
  for (const auto& d : s.scenario.value("devices", json::array())) {
    json spec = defaults;
    merge(spec, d);
    s.devices.push_back({spec});
  }
  s.start = std::chrono::steady_clock::now();
  s.path = path;
  s.loaded = true;
  return kSuccess;
}

// A scenario value that names an error ("NOT_SUPPORTED", "GPU_IS_LOST") makes the call fail with it.
bool as_error(const json& v, Return& rc) {
  if (!v.is_string()) return false;
  Return r = return_from_name(v.get<std::string>().c_str());
  if (r < 0) return false;
  rc = r;
  return true;
}

// Picks the current sample: {"samples":[...], "every_ms": N} by elapsed time, a bare array (for a
// scalar field) or {"samples":[...]} by how many times this field was read.
json pick(State& s, const std::string& key, const json& v, bool scalar) {
  const json* samples = nullptr;
  long every_ms = 0;
  if (v.is_object() && v.contains("samples") && v["samples"].is_array()) {
    samples = &v["samples"];
    every_ms = v.value("every_ms", 0L);
  } else if (scalar && v.is_array()) {
    samples = &v;
  }
  if (samples == nullptr) return v;
  if (samples->empty()) return json();
  std::size_t i = 0;
  if (every_ms > 0) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - s.start).count();
    i = static_cast<std::size_t>(ms / every_ms);
  } else {
    i = s.calls[key]++;
  }
  if (i >= samples->size()) i = samples->size() - 1;
  return (*samples)[i];
}

void maybe_hang(const json& where, const char* fn) {
  if (!where.is_object() || !where.contains("hang")) return;
  const json& h = where["hang"];
  if (h.value("call", std::string()) != fn) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(h.value("ms", 3600000L)));
}

// Common prologue of every call: initialised, the scenario's forced errors and hangs.
Return enter(State& s, const json* dev, const char* fn) {
  if (!s.loaded || s.init_count <= 0) return kErrorUninitialized;
  for (const json* where : {static_cast<const json*>(&s.scenario), dev}) {
    if (where == nullptr) continue;
    if (where->contains("errors") && (*where)["errors"].contains(fn)) {
      Return rc = kErrorUnknown;
      if (as_error((*where)["errors"][fn], rc)) return rc;
    }
  }
  return kSuccess;
}

FakeDevice* device_of(Device d) { return reinterpret_cast<FakeDevice*>(d); }

// Reads "a/b" under the device; NOT_SUPPORTED when absent, the named error when it is one.
Return get(State& s, Device d, const char* fn, const std::string& path, json& out, bool scalar = true) {
  FakeDevice* fd = device_of(d);
  if (fd == nullptr) return kErrorInvalidArgument;
  Return rc = enter(s, &fd->spec, fn);
  if (rc != kSuccess) return rc;
  if (fd->spec.contains("lost") && fd->spec["lost"].is_string()) {
    Return lost = kErrorGpuIsLost;
    as_error(fd->spec["lost"], lost);
    return lost;
  }
  const json* v = &fd->spec;
  std::size_t b = 0;
  while (b <= path.size()) {
    auto e = path.find('/', b);
    std::string part = path.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (!v->is_object() || !v->contains(part)) return kErrorNotSupported;
    v = &(*v)[part];
    if (e == std::string::npos) break;
    b = e + 1;
  }
  std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(fd)) + "/" + path;
  out = pick(s, key, *v, scalar);
  if (as_error(out, rc)) return rc;
  if (out.is_null()) return kErrorNotSupported;
  return kSuccess;
}

template <class T>
Return get_num(Device d, const char* fn, const std::string& path, T* dst) {
  if (dst == nullptr) return kErrorInvalidArgument;
  State& s = state();
  json v;
  Return rc = kSuccess;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    rc = get(s, d, fn, path, v);
  }
  FakeDevice* fd = device_of(d);
  if (fd != nullptr) maybe_hang(fd->spec, fn);
  if (rc != kSuccess) return rc;
  if (v.is_boolean()) {
    *dst = static_cast<T>(v.get<bool>() ? 1 : 0);
  } else if (v.is_string()) {
    *dst = static_cast<T>(std::stoull(v.get<std::string>(), nullptr, 0));
  } else if (v.is_number()) {
    *dst = static_cast<T>(v.get<double>());
    if (v.is_number_integer()) *dst = static_cast<T>(v.get<long long>());
  } else {
    return kErrorUnknown;
  }
  return kSuccess;
}

Return copy_string(const std::string& v, char* buf, unsigned int len) {
  if (buf == nullptr) return kErrorInvalidArgument;
  if (v.size() + 1 > len) return kErrorInsufficientSize;
  std::memcpy(buf, v.c_str(), v.size() + 1);
  return kSuccess;
}

Return get_str(Device d, const char* fn, const std::string& path, char* buf, unsigned int len) {
  State& s = state();
  json v;
  Return rc = kSuccess;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    rc = get(s, d, fn, path, v);
  }
  if (rc != kSuccess) return rc;
  return copy_string(v.is_string() ? v.get<std::string>() : v.dump(), buf, len);
}

Return system_str(const char* fn, const char* key, char* buf, unsigned int len) {
  State& s = state();
  std::string v;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    Return rc = enter(s, nullptr, fn);
    if (rc != kSuccess) return rc;
    if (!s.scenario.contains(key)) return kErrorNotSupported;
    const json& j = s.scenario[key];
    if (as_error(j, rc)) return rc;
    v = j.is_string() ? j.get<std::string>() : j.dump();
  }
  maybe_hang(s.scenario, fn);
  return copy_string(v, buf, len);
}

Return system_int(const char* fn, const char* key, int* out) {
  if (out == nullptr) return kErrorInvalidArgument;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Return rc = enter(s, nullptr, fn);
  if (rc != kSuccess) return rc;
  if (!s.scenario.contains(key)) return kErrorNotSupported;
  json v = pick(s, std::string("system/") + key, s.scenario[key], true);
  if (as_error(v, rc)) return rc;
  *out = v.get<int>();
  return kSuccess;
}

Return do_init() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Return rc = load_locked(s);
  if (rc != kSuccess) return rc;
  if (s.scenario.contains("init_error")) {
    if (as_error(s.scenario["init_error"], rc)) return rc;
  }
  ++s.init_count;
  return kSuccess;
}

Return do_count(unsigned int* n) {
  if (n == nullptr) return kErrorInvalidArgument;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Return rc = enter(s, nullptr, "nvmlDeviceGetCount");
  if (rc != kSuccess) return rc;
  *n = static_cast<unsigned int>(s.devices.size());
  return kSuccess;
}

Return do_handle(unsigned int i, Device* d) {
  if (d == nullptr) return kErrorInvalidArgument;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Return rc = enter(s, nullptr, "nvmlDeviceGetHandleByIndex");
  if (rc != kSuccess) return rc;
  if (i >= s.devices.size()) return kErrorInvalidArgument;
  const json& spec = s.devices[i].spec;
  if (spec.contains("handle_error")) {
    if (as_error(spec["handle_error"], rc)) return rc;
  }
  *d = reinterpret_cast<Device>(&s.devices[i]);
  return kSuccess;
}

// PciInfo from a bus id "00000000:53:00.0": the numeric fields and both string forms.
bool fill_pci(const std::string& b, PciInfo* p) {
  unsigned int dom = 0, bn = 0, dev = 0, fnc = 0;
  if (std::sscanf(b.c_str(), "%x:%x:%x.%x", &dom, &bn, &dev, &fnc) != 4) return false;
  std::memset(p, 0, sizeof *p);
  p->domain = dom;
  p->bus = bn;
  p->device = dev;
  std::snprintf(p->busId, sizeof p->busId, "%08X:%02X:%02X.0", dom, bn, dev);
  std::snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "%04X:%02X:%02X.0", dom & 0xffff, bn, dev);
  return true;
}

Return do_pci(Device d, PciInfo* p) {
  if (p == nullptr) return kErrorInvalidArgument;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  json bus;
  Return rc = get(s, d, "nvmlDeviceGetPciInfo", "bus_id", bus);
  if (rc != kSuccess) return rc;
  // The scenario gives NVML's own form "00000000:53:00.0"; derive the numeric fields from it.
  if (!fill_pci(bus.get<std::string>(), p)) return kErrorUnknown;
  json id;
  if (get(s, d, "nvmlDeviceGetPciInfo", "pci_device_id", id) == kSuccess) {
    p->pciDeviceId = static_cast<unsigned int>(id.is_string() ? std::stoul(id.get<std::string>(), nullptr, 0)
                                                              : id.get<unsigned long>());
  }
  return kSuccess;
}

Return do_processes(Device d, unsigned int* count, void* infos, std::size_t elem, bool v1) {
  if (count == nullptr) return kErrorInvalidArgument;
  if (FakeDevice* fd = device_of(d)) maybe_hang(fd->spec, "nvmlDeviceGetComputeRunningProcesses");
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  json list;
  Return rc = get(s, d, "nvmlDeviceGetComputeRunningProcesses", "processes", list, false);
  if (rc == kErrorNotSupported) list = json::array();  // no key: no process
  else if (rc != kSuccess) return rc;
  if (!list.is_array()) return kErrorUnknown;
  unsigned int n = static_cast<unsigned int>(list.size());
  if (*count < n || (n > 0 && infos == nullptr)) {
    *count = n;
    return n == 0 ? kSuccess : kErrorInsufficientSize;
  }
  *count = n;
  for (unsigned int i = 0; i < n; ++i) {
    const json& p = list[i];
    unsigned long long used = p.contains("used_mib") ? p["used_mib"].get<unsigned long long>() << 20 : kValueNotAvailable;
    auto* base = static_cast<char*>(infos) + i * elem;
    if (v1) {
      ProcessInfoV1 pi{};
      pi.pid = p.value("pid", 0u);
      pi.usedGpuMemory = used;
      std::memcpy(base, &pi, sizeof pi);
    } else {
      ProcessInfoV2 pi{};
      pi.pid = p.value("pid", 0u);
      pi.usedGpuMemory = used;
      pi.gpuInstanceId = p.value("gpu_instance", 0xFFFFFFFFu);
      pi.computeInstanceId = p.value("compute_instance", 0xFFFFFFFFu);
      std::memcpy(base, &pi, sizeof pi);
    }
  }
  return kSuccess;
}

const char* kThresholdKeys[] = {"temperature_shutdown", "temperature_slowdown"};
const char* kClockKeys[] = {"graphics", "sm", "mem"};

}  // namespace

// ---- init and system ----
EXPORT Return nvmlInit() { return do_init(); }
EXPORT Return nvmlInitWithFlags(unsigned int) { return do_init(); }
#ifndef FAKE_NVML_LEGACY
EXPORT Return nvmlInit_v2() { return do_init(); }
#endif
EXPORT Return nvmlShutdown() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.init_count <= 0) return kErrorUninitialized;
  --s.init_count;
  return kSuccess;
}
EXPORT const char* nvmlErrorString(Return r) { return return_meaning(r); }
EXPORT Return nvmlSystemGetDriverVersion(char* b, unsigned int n) {
  return system_str("nvmlSystemGetDriverVersion", "driver_version", b, n);
}
EXPORT Return nvmlSystemGetNVMLVersion(char* b, unsigned int n) {
  return system_str("nvmlSystemGetNVMLVersion", "nvml_version", b, n);
}
EXPORT Return nvmlSystemGetCudaDriverVersion(int* v) {
  return system_int("nvmlSystemGetCudaDriverVersion", "cuda_driver_version", v);
}
#ifndef FAKE_NVML_LEGACY
EXPORT Return nvmlSystemGetCudaDriverVersion_v2(int* v) {
  return system_int("nvmlSystemGetCudaDriverVersion", "cuda_driver_version", v);
}
EXPORT Return nvmlDeviceGetCount_v2(unsigned int* n) { return do_count(n); }
EXPORT Return nvmlDeviceGetHandleByIndex_v2(unsigned int i, Device* d) { return do_handle(i, d); }
#endif
EXPORT Return nvmlDeviceGetCount(unsigned int* n) { return do_count(n); }
EXPORT Return nvmlDeviceGetHandleByIndex(unsigned int i, Device* d) { return do_handle(i, d); }

// ---- identity ----
EXPORT Return nvmlDeviceGetName(Device d, char* b, unsigned int n) { return get_str(d, "nvmlDeviceGetName", "name", b, n); }
EXPORT Return nvmlDeviceGetUUID(Device d, char* b, unsigned int n) { return get_str(d, "nvmlDeviceGetUUID", "uuid", b, n); }
EXPORT Return nvmlDeviceGetVbiosVersion(Device d, char* b, unsigned int n) {
  return get_str(d, "nvmlDeviceGetVbiosVersion", "vbios", b, n);
}
EXPORT Return nvmlDeviceGetMinorNumber(Device d, unsigned int* v) { return get_num(d, "nvmlDeviceGetMinorNumber", "minor", v); }
#ifndef FAKE_NVML_LEGACY
EXPORT Return nvmlDeviceGetPciInfo_v3(Device d, PciInfo* p) { return do_pci(d, p); }
#endif
EXPORT Return nvmlDeviceGetPciInfo_v2(Device d, PciInfo* p) { return do_pci(d, p); }

// ---- memory, utilisation, thermal, power, clocks ----
#ifndef FAKE_NVML_LEGACY
EXPORT Return nvmlDeviceGetMemoryInfo_v2(Device d, MemoryV2* m) {
  if (m == nullptr) return kErrorInvalidArgument;
  // The real library rejects a wrong version field (nvidia-settings#78): so do we.
  if (m->version != kMemoryV2Version) return kErrorFunctionNotFound;
  unsigned long long total = 0, reserved = 0, used = 0;
  Return rc = get_num(d, "nvmlDeviceGetMemoryInfo", "memory/total_mib", &total);
  if (rc != kSuccess) return rc;
  get_num(d, "nvmlDeviceGetMemoryInfo", "memory/reserved_mib", &reserved);
  rc = get_num(d, "nvmlDeviceGetMemoryInfo", "memory/used_mib", &used);
  if (rc != kSuccess) return rc;
  m->total = total << 20;
  m->reserved = reserved << 20;
  m->used = used << 20;
  m->free = m->total - m->reserved - m->used;
  return kSuccess;
}
#endif
EXPORT Return nvmlDeviceGetMemoryInfo(Device d, MemoryV1* m) {
  if (m == nullptr) return kErrorInvalidArgument;
  unsigned long long total = 0, reserved = 0, used = 0;
  Return rc = get_num(d, "nvmlDeviceGetMemoryInfo", "memory/total_mib", &total);
  if (rc != kSuccess) return rc;
  get_num(d, "nvmlDeviceGetMemoryInfo", "memory/reserved_mib", &reserved);
  rc = get_num(d, "nvmlDeviceGetMemoryInfo", "memory/used_mib", &used);
  if (rc != kSuccess) return rc;
  m->total = total << 20;
  m->used = (used + reserved) << 20;  // v1 "used" includes reserved
  m->free = m->total - m->used;
  return kSuccess;
}
EXPORT Return nvmlDeviceGetUtilizationRates(Device d, Utilization* u) {
  if (u == nullptr) return kErrorInvalidArgument;
  Return rc = get_num(d, "nvmlDeviceGetUtilizationRates", "utilization/gpu", &u->gpu);
  if (rc != kSuccess) return rc;
  return get_num(d, "nvmlDeviceGetUtilizationRates", "utilization/memory", &u->memory);
}
#ifndef FAKE_NVML_LEGACY
EXPORT Return nvmlDeviceGetTemperatureV(Device d, TemperatureV1* t) {
  if (t == nullptr) return kErrorInvalidArgument;
  if (t->version != kTemperatureV1Version) return kErrorArgumentVersionMismatch;
  if (t->sensorType != kTemperatureGpu) return kErrorInvalidArgument;
  return get_num(d, "nvmlDeviceGetTemperature", "temperature", &t->temperature);
}
#endif
EXPORT Return nvmlDeviceGetTemperature(Device d, int sensor, unsigned int* t) {
  if (sensor != kTemperatureGpu) return kErrorInvalidArgument;
  return get_num(d, "nvmlDeviceGetTemperature", "temperature", t);
}
EXPORT Return nvmlDeviceGetTemperatureThreshold(Device d, int type, unsigned int* t) {
  if (type < 0 || type > 1) return kErrorNotSupported;
  return get_num(d, "nvmlDeviceGetTemperatureThreshold", kThresholdKeys[type], t);
}
EXPORT Return nvmlDeviceGetPowerUsage(Device d, unsigned int* p) { return get_num(d, "nvmlDeviceGetPowerUsage", "power_mw", p); }
EXPORT Return nvmlDeviceGetEnforcedPowerLimit(Device d, unsigned int* p) {
  return get_num(d, "nvmlDeviceGetEnforcedPowerLimit", "power_limit_mw", p);
}
EXPORT Return nvmlDeviceGetClockInfo(Device d, int type, unsigned int* c) {
  if (type < 0 || type > 2) return kErrorNotSupported;
  return get_num(d, "nvmlDeviceGetClockInfo", std::string("clocks/") + kClockKeys[type], c);
}
EXPORT Return nvmlDeviceGetMaxClockInfo(Device d, int type, unsigned int* c) {
  if (type < 0 || type > 2) return kErrorNotSupported;
  return get_num(d, "nvmlDeviceGetMaxClockInfo", std::string("max_clocks/") + kClockKeys[type], c);
}
#ifndef FAKE_NVML_LEGACY
EXPORT Return nvmlDeviceGetCurrentClocksEventReasons(Device d, unsigned long long* r) {
  return get_num(d, "nvmlDeviceGetCurrentClocksEventReasons", "clocks_event_reasons", r);
}
EXPORT Return nvmlDeviceGetSupportedClocksEventReasons(Device d, unsigned long long* r) {
  return get_num(d, "nvmlDeviceGetSupportedClocksEventReasons", "supported_clocks_event_reasons", r);
}
EXPORT Return nvmlDeviceGetGpuMaxPcieLinkGeneration(Device d, unsigned int* v) {
  return get_num(d, "nvmlDeviceGetGpuMaxPcieLinkGeneration", "pcie/gpu_max_gen", v);
}
#endif
EXPORT Return nvmlDeviceGetCurrentClocksThrottleReasons(Device d, unsigned long long* r) {
  return get_num(d, "nvmlDeviceGetCurrentClocksEventReasons", "clocks_event_reasons", r);
}
EXPORT Return nvmlDeviceGetSupportedClocksThrottleReasons(Device d, unsigned long long* r) {
  return get_num(d, "nvmlDeviceGetSupportedClocksEventReasons", "supported_clocks_event_reasons", r);
}

// ---- PCIe ----
EXPORT Return nvmlDeviceGetCurrPcieLinkGeneration(Device d, unsigned int* v) {
  return get_num(d, "nvmlDeviceGetCurrPcieLinkGeneration", "pcie/gen", v);
}
EXPORT Return nvmlDeviceGetCurrPcieLinkWidth(Device d, unsigned int* v) {
  return get_num(d, "nvmlDeviceGetCurrPcieLinkWidth", "pcie/width", v);
}
EXPORT Return nvmlDeviceGetMaxPcieLinkGeneration(Device d, unsigned int* v) {
  return get_num(d, "nvmlDeviceGetMaxPcieLinkGeneration", "pcie/max_gen", v);
}
EXPORT Return nvmlDeviceGetMaxPcieLinkWidth(Device d, unsigned int* v) {
  return get_num(d, "nvmlDeviceGetMaxPcieLinkWidth", "pcie/max_width", v);
}

// ---- ECC and memory health ----
EXPORT Return nvmlDeviceGetEccMode(Device d, int* cur, int* pend) {
  if (cur == nullptr || pend == nullptr) return kErrorInvalidArgument;
  Return rc = get_num(d, "nvmlDeviceGetEccMode", "ecc/current", cur);
  if (rc != kSuccess) return rc;
  return get_num(d, "nvmlDeviceGetEccMode", "ecc/pending", pend);
}
EXPORT Return nvmlDeviceGetTotalEccErrors(Device d, int type, int counter, unsigned long long* n) {
  if (type < 0 || type > 1 || counter < 0 || counter > 1) return kErrorInvalidArgument;
  static const char* keys[2][2] = {{"ecc/volatile_corrected", "ecc/aggregate_corrected"},
                                   {"ecc/volatile_uncorrected", "ecc/aggregate_uncorrected"}};
  return get_num(d, "nvmlDeviceGetTotalEccErrors", keys[type][counter], n);
}
EXPORT Return nvmlDeviceGetRetiredPages(Device d, int cause, unsigned int* count, unsigned long long* addrs) {
  if (count == nullptr || cause < 0 || cause > 1) return kErrorInvalidArgument;
  unsigned int n = 0;
  Return rc = get_num(d, "nvmlDeviceGetRetiredPages", cause == 0 ? "retired_pages/single_bit" : "retired_pages/double_bit", &n);
  if (rc != kSuccess) return rc;
  if (*count < n) {
    *count = n;
    return kErrorInsufficientSize;
  }
  *count = n;
  for (unsigned int i = 0; i < n && addrs != nullptr; ++i) addrs[i] = 0x7fdd60000ULL + (static_cast<unsigned long long>(i) << 16);
  return kSuccess;
}
EXPORT Return nvmlDeviceGetRetiredPagesPendingStatus(Device d, int* p) {
  return get_num(d, "nvmlDeviceGetRetiredPagesPendingStatus", "retired_pages/pending", p);
}
EXPORT Return nvmlDeviceGetRemappedRows(Device d, unsigned int* corr, unsigned int* unc, unsigned int* pend, unsigned int* fail) {
  if (corr == nullptr || unc == nullptr || pend == nullptr || fail == nullptr) return kErrorInvalidArgument;
  Return rc = get_num(d, "nvmlDeviceGetRemappedRows", "remapped_rows/correctable", corr);
  if (rc != kSuccess) return rc;
  get_num(d, "nvmlDeviceGetRemappedRows", "remapped_rows/uncorrectable", unc);
  get_num(d, "nvmlDeviceGetRemappedRows", "remapped_rows/pending", pend);
  get_num(d, "nvmlDeviceGetRemappedRows", "remapped_rows/failure", fail);
  return kSuccess;
}

// ---- modes, NVLink, processes, topology ----
EXPORT Return nvmlDeviceGetPersistenceMode(Device d, int* m) { return get_num(d, "nvmlDeviceGetPersistenceMode", "persistence", m); }
EXPORT Return nvmlDeviceGetComputeMode(Device d, int* m) { return get_num(d, "nvmlDeviceGetComputeMode", "compute_mode", m); }
EXPORT Return nvmlDeviceGetMigMode(Device d, unsigned int* cur, unsigned int* pend) {
  if (cur == nullptr || pend == nullptr) return kErrorInvalidArgument;
  Return rc = get_num(d, "nvmlDeviceGetMigMode", "mig/current", cur);
  if (rc != kSuccess) return rc;
  return get_num(d, "nvmlDeviceGetMigMode", "mig/pending", pend);
}
EXPORT Return nvmlDeviceGetNvLinkState(Device d, unsigned int link, int* active) {
  if (active == nullptr) return kErrorInvalidArgument;
  State& s = state();
  json links;
  Return rc = kSuccess;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    rc = get(s, d, "nvmlDeviceGetNvLinkState", "nvlink", links, false);
  }
  if (rc != kSuccess) return rc;
  if (!links.is_array()) return kErrorUnknown;
  if (link >= links.size()) return kErrorInvalidArgument;  // past the last link, as the real library
  Return e = kSuccess;
  if (as_error(links[link], e)) return e;
  *active = links[link].get<bool>() ? kFeatureEnabled : kFeatureDisabled;
  return kSuccess;
}
// "nvlink_remote_type": 2 (every link) or [0, 2, ...] per link (nvmlIntNvLinkDeviceType_t);
// "nvlink_remote_bus": ["00000000:19:00.0", ...] per link. Absent -> NOT_SUPPORTED.
Return nvlink_remote(Device d, unsigned int link, const char* fn, const char* key, json& out) {
  State& s = state();
  json v;
  Return rc = kSuccess;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    rc = get(s, d, fn, key, v, false);
  }
  if (rc != kSuccess) return rc;
  if (v.is_array()) {
    if (link >= v.size()) return kErrorInvalidArgument;
    out = v[link];
  } else {
    out = v;
  }
  Return e = kSuccess;
  if (as_error(out, e)) return e;
  return kSuccess;
}
EXPORT Return nvmlDeviceGetNvLinkRemoteDeviceType(Device d, unsigned int link, int* type) {
  if (type == nullptr) return kErrorInvalidArgument;
  json v;
  Return rc = nvlink_remote(d, link, "nvmlDeviceGetNvLinkRemoteDeviceType", "nvlink_remote_type", v);
  if (rc != kSuccess) return rc;
  if (!v.is_number_integer()) return kErrorUnknown;
  *type = v.get<int>();
  return kSuccess;
}
EXPORT Return nvmlDeviceGetNvLinkRemotePciInfo_v2(Device d, unsigned int link, PciInfo* p) {
  if (p == nullptr) return kErrorInvalidArgument;
  json v;
  Return rc = nvlink_remote(d, link, "nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvlink_remote_bus", v);
  if (rc != kSuccess) return rc;
  if (!v.is_string() || !fill_pci(v.get<std::string>(), p)) return kErrorUnknown;
  return kSuccess;
}
#ifndef FAKE_NVML_LEGACY
EXPORT Return nvmlDeviceGetComputeRunningProcesses_v3(Device d, unsigned int* n, ProcessInfoV2* p) {
  return do_processes(d, n, p, sizeof(ProcessInfoV2), false);
}
EXPORT Return nvmlDeviceGetComputeRunningProcesses_v2(Device d, unsigned int* n, ProcessInfoV2* p) {
  return do_processes(d, n, p, sizeof(ProcessInfoV2), false);
}
#endif
EXPORT Return nvmlDeviceGetComputeRunningProcesses(Device d, unsigned int* n, ProcessInfoV1* p) {
  return do_processes(d, n, p, sizeof(ProcessInfoV1), true);
}
EXPORT Return nvmlDeviceGetTopologyCommonAncestor(Device a, Device b, int* level) {
  if (level == nullptr || a == nullptr || b == nullptr) return kErrorInvalidArgument;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Return rc = enter(s, nullptr, "nvmlDeviceGetTopologyCommonAncestor");
  if (rc != kSuccess) return rc;
  auto ia = static_cast<std::size_t>(device_of(a) - s.devices.data());
  auto ib = static_cast<std::size_t>(device_of(b) - s.devices.data());
  const json& topo = s.scenario.value("topology", json());
  if (topo.is_array() && ia < topo.size() && topo[ia].is_array() && ib < topo[ia].size()) {
    if (as_error(topo[ia][ib], rc)) return rc;
    *level = topo[ia][ib].get<int>();
    return kSuccess;
  }
  if (s.scenario.contains("topology_default")) {
    *level = s.scenario["topology_default"].get<int>();
    return kSuccess;
  }
  return kErrorNotSupported;
}

// ---- throughput: PCIe (KB/s) and NVLink field counters (cumulative KiB) ----
EXPORT Return nvmlDeviceGetPcieThroughput(Device d, int counter, unsigned int* v) {
  if (counter == kPcieUtilTxBytes) return get_num(d, "nvmlDeviceGetPcieThroughput", "pcie_throughput/tx_kb_s", v);
  if (counter == kPcieUtilRxBytes) return get_num(d, "nvmlDeviceGetPcieThroughput", "pcie_throughput/rx_kb_s", v);
  return kErrorInvalidArgument;
}
// The NVLink throughput fields from "nvlink_throughput": {"rx_kib": .., "tx_kib": ..} (totals over
// all links; a single link's scope gets an equal share of the links listed in "nvlink"). Other
// field ids answer NOT_SUPPORTED per field, as a driver that does not know them.
// Wall-clock microseconds as NVML stamps field values, strictly increasing between calls so two
// reads in the same microsecond still have an interval (tests read back to back).
static long long next_field_timestamp() {
  static std::mutex mu;
  static long long last = 0;
  std::lock_guard<std::mutex> lock(mu);
  long long now =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  last = now > last ? now : last + 1;
  return last;
}
EXPORT Return nvmlDeviceGetFieldValues(Device d, int count, FieldValue* values) {
  if (count < 0 || (count > 0 && values == nullptr)) return kErrorInvalidArgument;
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    FakeDevice* fd = device_of(d);
    if (fd == nullptr) return kErrorInvalidArgument;
    Return rc = enter(s, &fd->spec, "nvmlDeviceGetFieldValues");
    if (rc != kSuccess) return rc;
  }
  for (int i = 0; i < count; ++i) {
    FieldValue& f = values[i];
    const char* key = f.fieldId == kFiNvLinkThroughputDataTx   ? "nvlink_throughput/tx_kib"
                      : f.fieldId == kFiNvLinkThroughputDataRx ? "nvlink_throughput/rx_kib"
                                                               : nullptr;
    f.timestamp = next_field_timestamp();
    f.latencyUsec = 0;
    f.valueType = kValueUnsignedLongLong;
    f.value.ullVal = 0;
    if (key == nullptr) {
      f.nvmlReturn = kErrorNotSupported;
      continue;
    }
    unsigned long long total = 0;
    f.nvmlReturn = get_num(d, "nvmlDeviceGetFieldValues", key, &total);
    if (f.nvmlReturn != kSuccess || f.scopeId == kScopeAllLinks) {
      f.value.ullVal = total;
      continue;
    }
    State& s = state();
    json links;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (get(s, d, "nvmlDeviceGetFieldValues", "nvlink", links, false) != kSuccess || !links.is_array() ||
          f.scopeId >= links.size()) {
        f.nvmlReturn = kErrorInvalidArgument;
        continue;
      }
    }
    f.value.ullVal = total / links.size();
  }
  return kSuccess;
}
