// `plumb trace`: its options and its pipeline (engine/trace.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/output.h"

namespace plumb {

struct TraceOptions {
  std::vector<std::string> inputs;
  OutputOptions output;
  std::string config;
  std::string steps;
  std::int64_t rank = -1;
  bool rank_given = false;
  std::string save;
  int threads = 0;  // 0: the CPUs plumb may run on
  bool timings = false;  // --timings
};


int run_trace(const TraceOptions& a);

}  // namespace plumb
