// membw sizing, kept pure so tests can check it without allocating gigabytes.
#pragma once

#include <cstdint>
#include <optional>

namespace plumb {

struct MembwPlan {
  std::uint64_t single_bytes = 0;      // bytes per array, one-thread run
  std::uint64_t per_thread_bytes = 0;  // bytes per array per thread, all-CPU run
};
// requested: --size (0: default 256 MiB, 64 MiB quick, at least 4 × LLC per node); capped so the
// three arrays use at most a quarter of physical memory.
MembwPlan plan_membw(std::uint64_t requested, std::optional<std::uint64_t> llc, int threads, int nodes,
                     std::uint64_t phys_bytes, bool quick);

}  // namespace plumb
