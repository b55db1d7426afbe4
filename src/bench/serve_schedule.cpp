// Constant and Poisson arrival schedules.
#include "bench/serve_schedule.h"

#include <cmath>

namespace plumb {

bool parse_arrival(const std::string& s, Arrival& out) {
  if (s == "constant" || s == "uniform") {
    out = Arrival::constant;
    return true;
  }
  if (s == "poisson" || s == "exponential") {
    out = Arrival::poisson;
    return true;
  }
  return false;
}

const char* arrival_name(Arrival a) { return a == Arrival::constant ? "constant" : "poisson"; }

ArrivalSchedule::ArrivalSchedule(Arrival kind, double rate, unsigned stream, unsigned streams, std::uint64_t seed)
    : kind_(kind), rate_(rate > 0 ? rate : 1), stream_(stream), streams_(streams == 0 ? 1 : streams),
      rng_(seed * 0x9E3779B97F4A7C15ULL + stream) {}

std::uint64_t ArrivalSchedule::next() {
  if (kind_ == Arrival::constant) {
    double idx = static_cast<double>(k_++ * streams_ + stream_);
    return static_cast<std::uint64_t>(std::llround(idx * 1e9 / rate_));
  }
  // Exponential gap by inversion, u in (0, 1]: the same numbers for the same seed everywhere
  // (std::exponential_distribution's algorithm is left to the library).
  double u = (static_cast<double>(rng_() >> 11) + 1.0) * 0x1.0p-53;
  double per_stream = rate_ / static_cast<double>(streams_);
  t_ns_ += -std::log(u) / per_stream * 1e9;
  return static_cast<std::uint64_t>(t_ns_);
}

}  // namespace plumb
