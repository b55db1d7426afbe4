// Arrival schedules of the open-loop load generator: when each request is meant to be sent,
// independent of when earlier ones were answered (that independence is what avoids coordinated
// omission). Constant spacing, or a Poisson process (exponential gaps) from a fixed seed.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace plumb {

enum class Arrival { constant, poisson };
bool parse_arrival(const std::string& s, Arrival& out);
const char* arrival_name(Arrival a);

class ArrivalSchedule {
 public:
  // `rate` requests per second (> 0); one of `streams` interleaved sub-schedules (`stream` in
  // [0, streams)) so each sender thread owns its share. Constant: stream i sends requests
  // i, i+streams, ... of the global constant schedule. Poisson: each stream is an independent
  // Poisson process of rate/streams (the superposition of independent Poisson processes is a
  // Poisson process of the summed rate).
  ArrivalSchedule(Arrival kind, double rate, unsigned stream = 0, unsigned streams = 1, std::uint64_t seed = 1);
  // Offset from the start of the run, in nanoseconds, of this stream's next request.
  std::uint64_t next();

 private:
  Arrival kind_;
  double rate_;
  unsigned stream_, streams_;
  std::uint64_t k_ = 0;
  double t_ns_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace plumb
