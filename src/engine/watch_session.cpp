// A watch run: samplers plus the bounded ring of samples.
#include "engine/watch_session.h"

#include <unistd.h>

namespace plumb::watch {

Session::Session(SessionConfig cfg, std::unique_ptr<GpuSampler> gpu, std::string gpu_unavailable)
    : cfg_(std::move(cfg)),
      host_(cfg_.root, cfg_.pid, ::sysconf(_SC_CLK_TCK)),
      gpu_(std::move(gpu)),
      gpu_unavailable_(std::move(gpu_unavailable)) {}

const WatchSample& Session::tick(std::chrono::steady_clock::time_point now) {
  if (!start_) start_ = now;
  WatchSample s;
  s.t_s = std::chrono::duration<double>(now - *start_).count();
  host_.sample(s, now);
  if (gpu_) s.gpus = gpu_->sample();
  ring_.push_back(std::move(s));
  if (cfg_.keep > 0 && ring_.size() > cfg_.keep) {
    ring_.pop_front();
    ++dropped_;
  }
  ++ticks_;
  return ring_.back();
}

WatchFacts Session::header() const {
  WatchFacts w;
  w.collected = true;
  w.interval_s = static_cast<double>(cfg_.interval.count()) / 1000.0;
  w.started_at = cfg_.started_at;
  w.target_pid = cfg_.pid;
  w.gpu_source = gpu_ ? gpu_->source() : std::string();
  w.gpu_unavailable = gpu_unavailable_;
  w.unreadable = host_.unreadable();
  w.samples_dropped = dropped_;
  return w;
}

WatchFacts Session::facts() const {
  WatchFacts w = header();
  w.samples.assign(ring_.begin(), ring_.end());
  return w;
}

}  // namespace plumb::watch
