// `plumb check --bench quick`: the short benchmarks as one collector (so they run one after the
// other, not against each other): membw, storage on the first --data path, h2d when a GPU is
// present. It does nothing unless --bench quick was given.
#include "bench/bench.h"
#include "core/registry.h"
#include "core/tables.h"

namespace plumb {

namespace {

bool quick_benches_idle(const Context& ctx) { return ctx.bench != "quick"; }

ApplyFacts run_quick(const Context& ctx) {
  if (quick_benches_idle(ctx)) return [](Facts&) {};
  std::vector<BenchResult> results;
  for (const auto& b : benches()) {
    if (!b.in_quick) continue;
    BenchOptions o;
    o.quick = true;
    if (b.needs_target) {
      if (ctx.data_paths.empty()) {
        results.push_back(skipped_result(b.name, "no --data PATH given to benchmark"));
        continue;
      }
      o.target = ctx.data_paths.front();
    }
    if (b.gpu && !ctx.root.exists("/proc/driver/nvidia/gpus") && !ctx.root.exists("/dev/nvidia0")) {
      results.push_back(skipped_result(b.name, "no NVIDIA GPU on this host (/proc/driver/nvidia/gpus absent)"));
      continue;
    }
    auto r = run_bench(b, ctx, o);
    if (r) {
      results.push_back(std::move(r.value()));
    } else {
      BenchResult e;
      e.bench = b.name;
      e.status = "error";
      e.reason = r.error().message;
      results.push_back(std::move(e));
    }
  }
  return [results](Facts& f) {
    f.bench.collected = true;
    for (const auto& r : results) f.bench.results.push_back(r);
  };
}


}  // namespace
void bench_quick_tables(Tables& t) {
  t.add_collector({"collect.bench_quick",
                                        {"quick benchmarks (with --bench quick)", "快速基准测试（--bench quick 时）"},
                                        run_quick,
                                        std::chrono::milliseconds(120000),
                                        true});
}

}  // namespace plumb
