// `plumb nccl-tests LOG...`: parses nccl-tests output (text or -J JSON), summarises the
// large-message bus bandwidth and judges it against the bottleneck link of this machine, a saved
// topology, the GPU model in the log, or --link.
#include <memory>

#include "analyze/nccl_tests.h"
#include "analyze/topology.h"
#include "core/knowledge/links.h"
#include "engine/machine.h"
#include "engine/nccl_tests.h"
#include "engine/output.h"
#include "collect/network.h"
#include "core/phrases.h"
#include "core/registry.h"
#include "core/suggest.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

std::string summary_block(const NcclTestsRun& run, Lang lang) {
  BusbwSummary s = summarize(run);
  std::map<std::string, std::string> a{
      {"file", run.origin},
      {"coll", run.collective.empty() ? "?" : run.collective},
      {"ranks", run.ranks ? std::to_string(*run.ranks) : "?"},
      {"hosts", run.hosts > 0 ? std::to_string(run.hosts) : "?"},
      {"gpu", run.gpu_names.empty() ? "?" : run.gpu_names.front()},
      {"nccl", run.nccl_version.empty() ? "?" : run.nccl_version},
      {"rows", std::to_string(run.rows.size())},
      {"max", human_bytes(s.max_size)},
      {"peak", s.peak ? fmt_num(*s.peak, 2) : "?"},
      {"peak_size", human_bytes(s.peak_size)},
      {"large", s.large_avg ? fmt_num(*s.large_avg, 2) : "n/a"},
      {"avg", run.avg_busbw ? fmt_num(*run.avg_busbw, 3) : "n/a"},
      {"ceiling", run.ceiling.has() ? fmt_num(run.ceiling->gbps, 1) + " GB/s (" + run.ceiling->link + ": " +
                                          localize(lang, run.ceiling->formula) + "; " + localize(lang, run.ceiling->source) + ")"
                                    : localize(lang, "n/a (" + run.ceiling.why() + ")")},
      {"reaches", run.ceiling.has() ? fmt_num(run.ceiling->expected > 0 ? std::min(run.ceiling->expected, run.ceiling->gbps)
                                                                        : run.ceiling->gbps, 1)
                                    : std::string("n/a")}};
  return fill(tr(lang, "nccltests.summary"), a) + "\n";
}

}  // namespace

int run_nccl_tests(const NcclTestsOptions& a) {
  std::optional<BusbwCeiling> forced;
  if (!a.link.empty()) {
    forced = parse_link_option(a.link);
    if (!forced) {
      std::string hint = closest(a.link, link_option_names());
      throw UsageError("unknown --link '" + a.link + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                       "; use nvlink2..nvlink5[xLINKS] or pcie3..pcie6[xWIDTH]");
    }
  }
  if (a.net_gbps < 0) throw UsageError("--net-gbps must be positive");
  RenderOptions ro = check_output(a.output);
  Context ctx = make_context(a.machine);
  Report r = new_report("nccl-tests", host_name(ctx.root));
  r.facts.meta.root = ctx.root.root();
  // The machine the logs may have run on: a saved topology, else this one (--root).
  if (!a.topo_text.empty()) {
    auto text = read_user_file(a.topo_text);
    if (!text) throw UsageError("cannot read " + text.error().message);
    auto t = parse_topo_text(*text);
    if (!t) throw UsageError(a.topo_text + ": " + t.error().message);
    t->source = "nvidia-smi topo -m text: " + base_name(a.topo_text);
    r.facts.comm.topology = Fact<Topology>::of(*t, a.topo_text);
  } else {
    for (const auto& c : collectors()) {
      if (starts_with(c.id, "collect.gpu") || starts_with(c.id, "collect.nvml")) collect_one(ctx, c.id, r.facts);
    }
    collect_one(ctx, "collect.topology", r.facts);
  }
  collect_one(ctx, "collect.network", r.facts);
  std::optional<double> net;
  int net_ports = 0;
  std::string net_source = "--net-gbps";
  if (a.net_gbps > 0) {
    net = a.net_gbps;
  } else if (r.facts.comm.ib_ports.has()) {
    double sum = 0;
    for (const auto& p : *r.facts.comm.ib_ports) {
      if (ib_port_active(p) && p.rate_gbps) {
        sum += *p.rate_gbps;
        ++net_ports;
      }
    }
    if (sum > 0) {
      net = sum;
      net_source = "active RDMA ports of this machine (/sys/class/infiniband)";
    }
  }
  const Topology* topo = r.facts.comm.topology.has() ? &*r.facts.comm.topology : nullptr;
  std::string header;
  for (const auto& path : a.logs) {
    auto text = read_user_file(path);
    if (!text) throw UsageError("cannot read " + text.error().message);
    auto run = parse_nccl_tests(*text, base_name(path));
    if (!run) throw UsageError(run.error().message);
    run->ceiling = infer_ceiling(*run, device_bus_prefixes(*text), forced, topo, net, net_ports, net_source);
    if (a.output.format == "term") header += summary_block(*run, ro.lang);
    r.facts.comm.nccl_tests.push_back(std::move(run.value()));
  }
  r.facts.comm.collected = true;
  Selection sel;
  sel.only = {"l2.comm.allreduce_slow", "l2.comm.nccl_tests_errors"};
  r.findings = judge(r.facts, Thresholds{}, sel);
  // The summary block goes before the term report, in the same output (stdout or --out).
  const RendererInfo* ren = find_renderer(a.output.format);
  std::string body = render_report(*ren, r, ro);
  // The summary names what the logs hold (hosts, devices): filtered as the report is.
  write_output(header.empty() ? body : terminal_text(header, ro.color) + "\n" + body, a.output.out);
  return exit_code_for(r.findings);
}



void engine_nccl_tests_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"nccltests.summary",
     {"{file}: {coll}, {ranks} ranks on {hosts} hosts, {gpu}, NCCL {nccl}\n"
      "  {rows} sizes up to {max}; peak busbw {peak} GB/s at {peak_size}; mean busbw of sizes >= 1 GiB {large} GB/s; "
      "nccl-tests 'Avg bus bandwidth' {avg} GB/s (every size, not a peak)\n  judged against {reaches} GB/s, what NCCL reaches on the link; nominal ceiling {ceiling}",
      "{file}：{coll}，{ranks} 个 rank，{hosts} 台主机，{gpu}，NCCL {nccl}\n"
      "  {rows} 个消息大小，最大 {max}；busbw 峰值 {peak} GB/s（{peak_size}）；>= 1 GiB 消息的平均 busbw {large} GB/s；"
      "nccl-tests 的 'Avg bus bandwidth' {avg} GB/s（所有大小的平均，并非峰值）\n  判定基准 {reaches} GB/s，即 NCCL 在该链路上可达的带宽；标称上限 {ceiling}"}},
};
});
}

}  // namespace plumb
