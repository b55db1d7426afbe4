// Google Benchmark of the fleet store's ingest: 10,000 nodes' agent pushes (connect, what the
// store has of the node, one result with its snapshot and five kernel events in one transaction,
// disconnect) into the PostgreSQL that PLUMB_BENCH_STORE names, from 1 and from 8 threads (agents
// pushing at once). PLUMB_BENCH_SNAPSHOT is the snapshot each push carries. bench/fleet_store.sh
// starts the server and runs this.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/iso_time.h"
#include "store/fleet_store.h"

namespace {

std::atomic<int> g_node{0};

void BM_FleetStorePush(benchmark::State& state) {
  const char* url = std::getenv("PLUMB_BENCH_STORE");
  const char* snap = std::getenv("PLUMB_BENCH_SNAPSHOT");
  if (url == nullptr || snap == nullptr) {
    state.SkipWithError("set PLUMB_BENCH_STORE (a conninfo) and PLUMB_BENCH_SNAPSHOT (a snapshot file)");
    return;
  }
  const std::string dir = "/tmp/plumb-store-bench-local-" + std::to_string(::getpid()) + "-" + std::to_string(state.thread_index());
  auto local = plumb::EventStore::open(dir);
  if (!local) {
    state.SkipWithError(local.error().message.c_str());
    return;
  }
  std::vector<std::pair<std::uint64_t, plumb::NodeEvent>> events;
  for (int i = 0; i < 5; ++i) {
    plumb::NodeEvent e;
    e.time = plumb::now_iso8601();
    e.kind = "pcie_aer";
    e.subject = "0000:3b:00.0";
    e.code = "corrected";
    e.evidence = "pcieport 0000:3a:00.0: AER: Corrected error received: 0000:3b:00.0";
    e.finding = "l3.platform.pcie_aer";
    events.emplace_back(static_cast<std::uint64_t>(i) * 100, e);
  }
  (void)(*local)->add_events("boot-1", "/dev/kmsg", events, plumb::KmsgCursor{});
  plumb::CycleResult res;
  res.time = plumb::now_iso8601();
  res.boot_id = "boot-1";
  res.findings = "[]";
  auto id = (*local)->add_result(res);
  std::ifstream in(snap, std::ios::binary);
  plumb::FleetCycle c;
  c.snapshot.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  c.result_id = id ? *id : 0;
  c.kernel = "6.1.0-18-amd64";
  c.driver = "535.161.08";
  c.bench = R"({"membw.copy.all":[100.0,true]})";
  for (auto _ : state) {
    c.node = "ingest-" + std::to_string(g_node++);
    auto p = plumb::push_cycle(url, c, **local);
    if (!p) {
      state.SkipWithError(p.error().message.c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  local->reset();
  std::filesystem::remove_all(dir);
}

// 10,000 pushes in all: 10,000 from one thread, then 1,250 from each of 8.
BENCHMARK(BM_FleetStorePush)->Iterations(10000)->Threads(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FleetStorePush)->Iterations(1250)->Threads(8)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
