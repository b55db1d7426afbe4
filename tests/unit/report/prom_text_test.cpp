// Prometheus exposition: escaping, grouping per family, report and sample metrics.
#include <gtest/gtest.h>

#include "core/registry.h"
#include "report/report.h"
#include "report/prom_text.h"
#include "report/prom_sample_metrics.h"

namespace plumb {
namespace {

TEST(PromText, EscapesLabelsAndGroupsFamilies) {
  EXPECT_EQ(prom::escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(prom::format_value(0.5), "0.5");
  EXPECT_EQ(prom::format_value(1e20), "1e+20");
  EXPECT_EQ(prom::format_value(std::numeric_limits<double>::infinity()), "+Inf");
  prom::Exposition e;
  e.gauge("plumb_a", "prom.help.plumb_findings", {{"x", "1"}}, 1);
  e.gauge("plumb_b", "prom.help.plumb_findings", {}, 2);
  e.gauge("plumb_a", "prom.help.plumb_findings", {{"x", "2"}}, 3);
  std::string s = e.str();
  // Both plumb_a samples come before plumb_b: a family is never split.
  EXPECT_LT(s.find("plumb_a{x=\"2\"} 3"), s.find("# HELP plumb_b"));
  EXPECT_EQ(s.find("# TYPE plumb_a gauge"), s.rfind("# TYPE plumb_a gauge"));
}

// A label value or HELP text that is not UTF-8 would make Prometheus refuse the whole scrape.
TEST(PromText, BytesThatAreNotUtf8AreShownAsReplacementCharacters) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(prom::escape_label_value("node\xff\xfe-1"), "node" + fffd + fffd + "-1");
  // Valid multi-byte text stays; a sequence cut short, an overlong form and a surrogate do not.
  EXPECT_EQ(prom::escape_label_value("\xE8\x8A\x82\xE7\x82\xB9"), "\xE8\x8A\x82\xE7\x82\xB9");
  EXPECT_EQ(prom::escape_label_value("a\xE8\x8A"), "a" + fffd + fffd);
  EXPECT_EQ(prom::escape_label_value("\xC0\xAF\""), fffd + fffd + "\\\"");
  EXPECT_EQ(prom::escape_label_value("\xED\xA0\x80"), fffd + fffd + fffd);
  EXPECT_EQ(prom::escape_help("x\x80\ny"), "x" + fffd + "\\ny");
}

TEST(PromRender, OneGaugePerFindingAndCollectorMetrics) {
  Report r;
  r.facts.meta.hostname = "node\"1";
  r.facts.meta.started_at = "2026-01-02T03:04:05Z";
  r.facts.meta.duration_ms = 1500;
  r.facts.meta.collectors.push_back({"collect.os", "ok", 12.5, ""});
  r.facts.meta.collectors.push_back({"collect.kmsg", "timed out", 5000, "late"});
  Finding f;
  f.id = "l2.compute.gpu_underutilized";
  f.status = Status::fail;
  f.subject = "gpu 0000:3b:00.0";
  r.findings.push_back(f);
  std::string s = find_renderer("prom")->render(r, RenderOptions{});
  EXPECT_NE(s.find("plumb_finding_status{id=\"l2.compute.gpu_underutilized\",layer=\"L2\",pillar=\"compute\","
                   "subject=\"gpu 0000:3b:00.0\",status=\"fail\"} 1"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("plumb_findings{status=\"fail\"} 1"), std::string::npos);
  EXPECT_NE(s.find("plumb_check_exit_code 1"), std::string::npos);
  EXPECT_NE(s.find("plumb_check_duration_seconds 1.5"), std::string::npos);
  EXPECT_NE(s.find("plumb_check_timestamp_seconds 1767323045"), std::string::npos);
  EXPECT_NE(s.find("plumb_collector_success{collector=\"collect.kmsg\"} 0"), std::string::npos);
  EXPECT_NE(s.find("plumb_collector_duration_seconds{collector=\"collect.os\"} 0.0125"), std::string::npos);
  EXPECT_NE(s.find("hostname=\"node\\\"1\""), std::string::npos);
}

// An environment of 20,000 NCCL_* variables gives 20,000 findings of one id: the exposition keeps
// 32 series of it (the worst first) and counts the rest, so a machine cannot multiply the series.
TEST(PromFindings, SeriesOfOneIdAreBounded) {
  Report r;
  for (int i = 0; i < 20000; ++i) {
    Finding f;
    f.id = "l3.comm.nccl_env_unknown";
    f.status = i == 19999 ? Status::fail : Status::warn;
    f.subject = "NCCL_X" + std::to_string(i);
    r.findings.push_back(f);
  }
  std::string s = find_renderer("prom")->render(r, RenderOptions{});
  std::size_t series = 0;
  for (std::size_t p = s.find("\nplumb_finding_status{"); p != std::string::npos; p = s.find("\nplumb_finding_status{", p + 1)) ++series;
  EXPECT_EQ(series, 32u);
  EXPECT_NE(s.find("subject=\"NCCL_X19999\",status=\"fail\"} 1"), std::string::npos) << "the worst one is kept";
  EXPECT_NE(s.find("plumb_finding_subjects_dropped{id=\"l3.comm.nccl_env_unknown\"} 19968"), std::string::npos);
  EXPECT_NE(s.find("plumb_findings{status=\"warn\"} 19999"), std::string::npos) << "the counts keep every finding";
}

TEST(PromRender, SampleMetricsUseBaseUnits) {
  WatchFacts w;
  w.target_pid = 9;
  WatchSample s;
  s.cpu_busy_pct = 50;
  s.core_busy_pct = {100};
  s.psi_io_some_pct = 12;
  s.proc_running = true;
  s.proc_cpu_pct = 150;
  WatchGpu g;
  g.bus_id = "0000:3b:00.0";
  g.busy_pct = 75;
  g.sm_clock_mhz = 1980;
  g.temperature_c = 70;
  g.clock_event_reasons = 0x40;
  s.gpus.push_back(g);
  prom::Exposition e;
  watch::add_sample_metrics(e, w, s);
  std::string t = e.str();
  EXPECT_NE(t.find("plumb_gpu_busy_ratio{gpu=\"0000:3b:00.0\",uuid=\"\",name=\"\"} 0.75"), std::string::npos) << t;
  EXPECT_NE(t.find("plumb_gpu_sm_clock_hertz{gpu=\"0000:3b:00.0\",uuid=\"\",name=\"\"} 1980000000"), std::string::npos);
  EXPECT_NE(t.find("plumb_gpu_temperature_celsius{"), std::string::npos);
  EXPECT_NE(t.find("plumb_gpu_throttled{gpu=\"0000:3b:00.0\",uuid=\"\",reason=\"hw_thermal_slowdown\"} 1"), std::string::npos);
  EXPECT_NE(t.find("plumb_host_cpu_busy_ratio 0.5"), std::string::npos);
  EXPECT_NE(t.find("plumb_host_pressure_stalled_ratio{resource=\"io\",kind=\"some\"} 0.12"), std::string::npos);
  EXPECT_NE(t.find("plumb_process_cpu_ratio{pid=\"9\"} 1.5"), std::string::npos);
  EXPECT_EQ(t.find("plumb_gpu_power_watts"), std::string::npos);  // unknown is absent, never 0
}

}  // namespace
}  // namespace plumb
