// Facts: the plain, serialisable snapshot every collector fills and every rule reads.
// One header per area under core/facts/; this struct only gathers them.
#pragma once

#include "core/facts/allocator.h"
#include "core/facts/bench.h"
#include "core/facts/comm.h"
#include "core/facts/diff.h"
#include "core/facts/fleet.h"
#include "core/facts/framework.h"
#include "core/facts/gpu.h"
#include "core/facts/h5.h"
#include "core/facts/host.h"
#include "core/facts/meta.h"
#include "core/facts/node_events.h"
#include "core/facts/outdiff.h"
#include "core/facts/serving_config.h"
#include "core/facts/sysconfig.h"
#include "core/facts/topo.h"
#include "core/facts/trace.h"
#include "core/facts/watch.h"

namespace plumb {

struct Facts {
  RunMeta meta;
  HostFacts host;
  GpuFacts gpu;
  FrameworkFacts framework;
  CommFacts comm;
  BenchFacts bench;
  TraceFacts trace;
  WatchFacts watch;
  AllocatorFacts allocator;  // `plumb memory`
  H5Facts h5;                // `plumb h5`
  TopoFacts topo;            // `plumb topo`
  SnapshotDiff diff;         // `plumb diff`
  FleetFacts fleet;          // `plumb fleet`
  SysConfigFacts sysconfig;  // name resolution, IOMMU, PCIe ACS, GID tables, GPU memory holders
  OutdiffFacts outdiff;      // `plumb outdiff`
  ServingConfigFacts serving_config;  // server command line, Triton model repository (--model-repo)
  NodeEventFacts events;     // `plumb agent`: the node's stored kernel events
  bool operator==(const Facts&) const = default;
};
// The areas: the members above, the top-level keys of the JSON form.
#define PLUMB_FACTS_AREAS \
  meta, host, gpu, framework, comm, bench, trace, watch, allocator, h5, topo, diff, fleet, sysconfig, outdiff, serving_config, events
PLUMB_JSON(Facts, PLUMB_FACTS_AREAS)

}  // namespace plumb
