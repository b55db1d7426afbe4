// A broken libnvidia-ml.so for the fleet tests: nvmlInit hangs (FLEET_NVML_HANG) or crashes with
// SIGSEGV (FLEET_NVML_CRASH), as a wedged or faulty driver can. The other entry points exist only
// so plumb's loader accepts the library.
#include <chrono>
#include <csignal>
#include <thread>

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {
int broken_init() {
#ifdef FLEET_NVML_HANG
  std::this_thread::sleep_for(std::chrono::hours(1));
#else
  std::raise(SIGSEGV);
#endif
  return 999;  // NVML_ERROR_UNKNOWN
}
}  // namespace

EXPORT int nvmlInit_v2() { return broken_init(); }
EXPORT int nvmlInit() { return broken_init(); }
EXPORT int nvmlShutdown() { return 0; }
EXPORT int nvmlDeviceGetCount_v2(unsigned* n) {
  *n = 0;
  return 0;
}
EXPORT int nvmlDeviceGetCount(unsigned* n) {
  *n = 0;
  return 0;
}
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned, void** h) {
  *h = nullptr;
  return 0;
}
EXPORT int nvmlDeviceGetHandleByIndex(unsigned, void** h) {
  *h = nullptr;
  return 0;
}
EXPORT const char* nvmlErrorString(int) { return "broken"; }
EXPORT int nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  if (len > 0) buf[0] = '\0';
  return 0;
}
