// One watch run: ticks the host and GPU samplers, keeps the latest samples in a bounded ring,
// and hands the series over as WatchFacts for the L2 rules.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <string>

#include "core/facts/watch.h"
#include "collect/gpu_sampler.h"
#include "collect/host_sampler.h"

namespace plumb::watch {

struct SessionConfig {
  HostRoot root{"/"};
  int pid = 0;
  std::chrono::milliseconds interval{1000};
  std::size_t keep = 3600;  // samples kept for the summary (the recording keeps all)
  std::string started_at;
};

class Session {
 public:
  // gpu may be null; gpu_unavailable then says why.
  Session(SessionConfig cfg, std::unique_ptr<GpuSampler> gpu, std::string gpu_unavailable);
  // Takes one sample at `now` (seconds since the first tick are its t_s) and returns it.
  const WatchSample& tick(std::chrono::steady_clock::time_point now);
  [[nodiscard]] WatchFacts facts() const;  // the header fields plus the ring
  [[nodiscard]] WatchFacts header() const;  // without samples (for the recording header)
  [[nodiscard]] std::size_t ticks() const { return ticks_; }

 private:
  SessionConfig cfg_;
  HostSampler host_;
  std::unique_ptr<GpuSampler> gpu_;
  std::string gpu_unavailable_;
  std::deque<WatchSample> ring_;
  std::uint64_t dropped_ = 0;
  std::size_t ticks_ = 0;
  std::optional<std::chrono::steady_clock::time_point> start_;
};

}  // namespace plumb::watch
