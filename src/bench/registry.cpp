// The benchmark table and the wrapper that surrounds every run with its context block.

#include <algorithm>
#include <chrono>
#include <iostream>
#include <stdexcept>

#include "bench/bench.h"
#include "bench/context.h"

namespace plumb {

namespace {
const std::vector<BenchInfo>& table() {
  static const std::vector<BenchInfo> t = [] {
    std::vector<BenchInfo> out = bench_tables().benches;
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (std::size_t i = 1; i < out.size(); ++i) {
      if (out[i - 1].name == out[i].name) throw std::logic_error("duplicate benchmark " + out[i].name);
    }
    return out;
  }();
  return t;
}
}  // namespace

const std::vector<BenchInfo>& benches() { return table(); }

const BenchInfo* find_bench(const std::string& name) {
  for (const auto& b : table()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::vector<std::string> bench_names() {
  std::vector<std::string> n;
  for (const auto& b : table()) n.push_back(b.name);
  return n;
}

BenchResult skipped_result(const std::string& bench, const std::string& reason) {
  BenchResult r;
  r.bench = bench;
  r.status = "skipped";
  r.reason = reason;
  return r;
}

Result<BenchResult> run_bench(const BenchInfo& b, const Context& ctx, const BenchOptions& o) {
  BenchContext before = read_bench_context(ctx, b.gpu || b.name == "step");
  auto start = std::chrono::steady_clock::now();
  Result<BenchResult> r = make_error(ErrorKind::internal, "not run");
  try {
    r = b.run(ctx, o);
  } catch (const std::exception& e) {
    return make_error(ErrorKind::internal, b.name + ": " + e.what());
  }
  if (!r) return r;
  BenchResult res = std::move(r.value());
  res.bench = b.name;
  res.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  auto versions = std::move(res.context.versions);  // what the benchmark itself learnt (torch, python)
  res.context = finish_bench_context(ctx, std::move(before), b.gpu || b.name == "step");
  for (auto& [k, v] : versions) res.context.versions[k] = v;
  if (o.stop() && res.status == "ok") {
    res.status = "error";
    res.reason = "interrupted";
  }
  return res;
}

Progress::Progress(bool enabled, const std::string& bench) {
  if (enabled && ProgressLine::stderr_is_terminal()) line_ = std::make_unique<ProgressLine>("plumb bench " + bench, std::chrono::milliseconds(0));
}

}  // namespace plumb
