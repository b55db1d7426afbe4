// `plumb agent` and `plumb events`: their command lines (the pipelines: engine/agent.cpp).
#include <memory>

#include "cli/subcommand.h"
#include "engine/agent.h"

namespace plumb {

CommandRun agent_command(CLI::App& app) {
  auto a = std::make_shared<AgentOptions>();
  add_machine_options(app, a->machine);
  add_output_options(app, a->output, report_formats_with_prom());
  app.add_option("--state-dir", a->state_dir, "directory of the state database plumb-agent.db")->capture_default_str();
  app.add_flag("--once", a->once, "run one cycle (new kernel events, check, judgement over time), print its report, exit");
  app.add_flag("--no-bench", a->no_bench, "no benchmark in the cycle's check");
  app.add_option("--interval", a->interval_s, "time between cycles without --once: 10m, 1h (each wait varies by up to 10 %)")
      ->transform(duration_in("--interval", 1000), "DURATION")
      ->default_str("10m");
  app.add_option("--follow", a->follow_ms, "without --once: how often the kernel log is read between cycles: 2s, 500ms")
      ->transform(duration_in("--follow", 1), "DURATION")
      ->default_str("2s");
  app.add_option("--listen", a->listen, "without --once: serve /metrics and /state on ADDR:PORT (loopback by default); none: no server")
      ->capture_default_str();
  app.add_option("--only", a->only, "run only these check ids or prefixes (comma-separated)");
  app.add_option("--skip", a->skip, "skip these check ids or prefixes (comma-separated)");
  app.add_option("--store", a->store, "also push each cycle's result and events to this PostgreSQL fleet store (postgresql://...)");
  return [a] { return run_agent(*a); };
}

CommandRun events_command(CLI::App& app) {
  auto a = std::make_shared<EventsOptions>();
  app.add_option("action", a->action, "ack: acknowledge an event (it no longer counts toward escalation)")
      ->check(CLI::IsMember({"ack"}));
  app.add_option("id", a->id, "ack: the event id (from plumb events)");
  app.add_option("--reason", a->reason, "ack: why the event no longer counts (stored with the time)");
  app.add_option("--state-dir", a->state_dir, "directory of the state database plumb-agent.db")->capture_default_str();
  app.add_option("--since", a->since_s, "only events of the last DURATION: 30m, 24h, 168h")
      ->transform(duration_in("--since", 1000), "DURATION");
  app.add_option("--kind", a->kind, "only events of this kind: xid, sxid, nvlink, pcie_aer, ecc, gpu_lost, oom_kill, ib_link, hung_task");
  add_output_options(app, a->output);
  return [a] { return run_events(*a); };
}

}  // namespace plumb
