// `plumb bench serve URL`: settings parsed from the command line, the stability verdict, the
// rate sweep, and the translation of a load run into the benchmark schema (serve.* metrics).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "bench/serve_loop.h"

namespace plumb {

struct ServeSettings {
  LoadPlan plan;
  std::string api = "raw";             // raw | oip | openai | openai-chat
  std::string model;
  bool triton_stats = false;
  std::optional<double> p99_bound_ms;  // sweep: highest rate whose P99 (from intended) stays within
  std::string url_text;
};
Result<ServeSettings> serve_settings(const BenchOptions& o);

// "Stable" when each of the last three windows is within ±10 % of their mean in successful
// replies per second and in median latency from the intended send (or within 1 ms of it:
// sub-millisecond jitter is scheduler noise). Not judged when a window has fewer than 20 replies.
struct Stability {
  bool judged = false;
  bool stable = false;
  std::string why;
};
Stability judge_stability(const std::vector<LoadWindow>& windows, double window_s);

// Metrics, rows, notes and derived values of one run (`sweep_row`: the run is one step of a sweep
// and only its row is wanted).
void fill_serve_result(BenchResult& r, const LoadResult& lr, const LoadPlan& plan);
BenchRow sweep_row(double rate, const LoadResult& lr);

Result<BenchResult> run_serve(const Context& ctx, const BenchOptions& o);

}  // namespace plumb
