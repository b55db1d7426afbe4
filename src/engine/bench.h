// `plumb bench`: its options and its pipeline (engine/bench.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/machine.h"
#include "engine/output.h"
#include "engine/history.h"

namespace plumb {

struct BenchCommandOptions {
  std::string name;
  std::string target;
  std::string size, block, storage_bw;
  int threads = 0, samples = 0, max_files = 0, steps = 0;
  std::string duration, warmup, timeout;  // numbers (seconds, runs) or, for serve, durations such as 500ms
  std::map<std::string, std::string> serve;  // bench serve's own options, checked by the benchmark
  std::map<std::string, std::string> ort;    // bench ort's own options, checked by the benchmark
  std::vector<std::string> headers;
  bool no_stream = false, triton_stats = false;
  bool decode = false, cached = false, list = false, print_script = false;
  std::string python, dtype, workers, config;
  int timeout_ms = 5000;
  HistoryOptions history;
  OutputOptions output;
};


int run_bench_command(BenchCommandOptions& a);

}  // namespace plumb
