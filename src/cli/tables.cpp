// The program's tables in one list: every source file that adds collectors, rules, finding rows,
// thresholds, interface words, benchmarks, renderers or report blocks is named here, folder by
// folder in the layer order, and its rows are added when a table is first read. To add a check,
// write its file and name its function here (docs/development.md).
#include "bench/bench.h"
#include "core/tables.h"
#include "report/report.h"

namespace plumb {

void collect_cgroup_tables(Tables& t);
void collect_cpu_tables(Tables& t);
void collect_gpu_cuda_tables(Tables& t);
void collect_gpu_nvml_tables(Tables& t);
void collect_gpu_processes_tables(Tables& t);
void collect_ib_gids_tables(Tables& t);
void collect_iommu_tables(Tables& t);
void collect_kmsg_tables(Tables& t);
void collect_memory_tables(Tables& t);
void collect_name_resolution_tables(Tables& t);
void collect_nccl_env_tables(Tables& t);
void collect_network_tables(Tables& t);
void collect_os_tables(Tables& t);
void collect_pci_tables(Tables& t);
void collect_pci_acs_tables(Tables& t);
void collect_process_tables(Tables& t);
void collect_psi_tables(Tables& t);
void collect_python_probe_tables(Tables& t);
void collect_storage_tables(Tables& t);
void collect_sysctl_tables(Tables& t);
void collect_triton_config_tables(Tables& t);
void bench_dataload_tables(BenchTables& b);
void bench_gpu_benches_tables(BenchTables& b);
void bench_membw_tables(BenchTables& b);
void bench_ort_tables(BenchTables& b);
void bench_quick_tables(Tables& t);
void bench_serve_tables(BenchTables& b);
void bench_step_tables(BenchTables& b);
void bench_storage_tables(BenchTables& b);
void analyze_snapshot_diff_tables(Tables& t);
void rules_bench_baseline_tables(Tables& t);
void rules_bench_catalog_tables(Tables& t);
void rules_bench_measure_tables(Tables& t);
void rules_comm_acs_tables(Tables& t);
void rules_comm_env_tables(Tables& t);
void rules_comm_gid_tables(Tables& t);
void rules_comm_hostname_tables(Tables& t);
void rules_comm_iommu_tables(Tables& t);
void rules_comm_nccl_tests_tables(Tables& t);
void rules_comm_network_tables(Tables& t);
void rules_comm_topology_tables(Tables& t);
void rules_data_h5_tables(Tables& t);
void rules_data_open_files_tables(Tables& t);
void rules_diagnose_tables(Tables& t);
void rules_fleet_tables(Tables& t);
void rules_framework_cuda_tables(Tables& t);
void rules_framework_repro_tables(Tables& t);
void rules_framework_tf32_tables(Tables& t);
void rules_gpu_cuda_tables(Tables& t);
void rules_gpu_health_tables(Tables& t);
void rules_gpu_ops_tables(Tables& t);
void rules_gpu_xid_tables(Tables& t);
void rules_history_tables(Tables& t);
void rules_host_cgroup_tables(Tables& t);
void rules_host_cpu_tables(Tables& t);
void rules_host_env_tables(Tables& t);
void rules_host_kmsg_tables(Tables& t);
void rules_host_memory_tables(Tables& t);
void rules_host_pressure_tables(Tables& t);
void rules_host_storage_tables(Tables& t);
void rules_memory_foreign_processes_tables(Tables& t);
void rules_memory_vram_tables(Tables& t);
void rules_platform_diff_tables(Tables& t);
void rules_serving_config_tables(Tables& t);
void rules_serving_load_tables(Tables& t);
void rules_serving_outdiff_tables(Tables& t);
void rules_trace_catalog_tables(Tables& t);
void rules_trace_comm_tables(Tables& t);
void rules_trace_compute_tables(Tables& t);
void rules_trace_data_tables(Tables& t);
void rules_watch_catalog_tables(Tables& t);
void rules_watch_rules_tables(Tables& t);
void engine_npd_plugin_tables(Tables& t);
void engine_slurm_health_tables(Tables& t);
void report_bench_render_tables(Tables& t, ReportTables& r);
void report_counts_tables(Tables& t);
void report_diagnose_block_tables(Tables& t, ReportTables& r);
void report_diff_block_tables(ReportTables& r);
void report_env_lines_tables(Tables& t, ReportTables& r);
void report_fleet_block_tables(Tables& t, ReportTables& r);
void report_gpu_table_tables(Tables& t, ReportTables& r);
void report_h5_block_tables(Tables& t, ReportTables& r);
namespace watch {
void report_live_view_tables(Tables& t);
}  // namespace watch
void report_memory_block_tables(Tables& t, ReportTables& r);
void report_phrases_zh_tables(Tables& t);
void report_progress_text_tables(Tables& t);
void report_prom_help_tables(Tables& t);
void report_render_html_tables(ReportTables& r);
void report_render_json_tables(ReportTables& r);
void report_render_md_tables(ReportTables& r);
void report_render_prom_tables(ReportTables& r);
void report_render_term_tables(Tables& t, ReportTables& r);
void report_topo_block_tables(Tables& t, ReportTables& r);
namespace trace {
void report_trace_block_tables(Tables& t, ReportTables& r);
}  // namespace trace
void report_ui_strings_tables(Tables& t);
void engine_agent_tables(Tables& t);
void engine_baseline_tables(Tables& t);
void engine_compare_tables(Tables& t);
void engine_exporter_tables(Tables& t);
void engine_nccl_tests_tables(Tables& t);
void cli_help_lang_tables(Tables& t);
void cli_help_zh_tables(Tables& t);
void engine_scheduler_tables(Tables& t);
void engine_timings_tables(Tables& t);

namespace {
struct All {
  Tables t;
  BenchTables b;
  ReportTables r;
};

const All& all() {
  static const All a = [] {
    All x;
    Tables& t = x.t;
    BenchTables& b = x.b;
    ReportTables& r = x.r;
    // collect/: collectors (system readers)
    collect_cgroup_tables(t);
    collect_cpu_tables(t);
    collect_gpu_cuda_tables(t);
    collect_gpu_nvml_tables(t);
    collect_gpu_processes_tables(t);
    collect_ib_gids_tables(t);
    collect_iommu_tables(t);
    collect_kmsg_tables(t);
    collect_memory_tables(t);
    collect_name_resolution_tables(t);
    collect_nccl_env_tables(t);
    collect_network_tables(t);
    collect_os_tables(t);
    collect_pci_tables(t);
    collect_pci_acs_tables(t);
    collect_process_tables(t);
    collect_psi_tables(t);
    collect_python_probe_tables(t);
    collect_storage_tables(t);
    collect_sysctl_tables(t);
    collect_triton_config_tables(t);
    // bench/: benchmarks
    bench_dataload_tables(b);
    bench_gpu_benches_tables(b);
    bench_membw_tables(b);
    bench_ort_tables(b);
    bench_quick_tables(t);
    bench_serve_tables(b);
    bench_step_tables(b);
    bench_storage_tables(b);
    // analyze/: artefact analysis
    analyze_snapshot_diff_tables(t);
    // rules/: rules: catalogue rows, thresholds and judgements
    rules_bench_baseline_tables(t);
    rules_bench_catalog_tables(t);
    rules_bench_measure_tables(t);
    rules_comm_acs_tables(t);
    rules_comm_env_tables(t);
    rules_comm_gid_tables(t);
    rules_comm_hostname_tables(t);
    rules_comm_iommu_tables(t);
    rules_comm_nccl_tests_tables(t);
    rules_comm_network_tables(t);
    rules_comm_topology_tables(t);
    rules_data_h5_tables(t);
    rules_data_open_files_tables(t);
    rules_diagnose_tables(t);
    rules_fleet_tables(t);
    rules_framework_cuda_tables(t);
    rules_framework_repro_tables(t);
    rules_framework_tf32_tables(t);
    rules_gpu_cuda_tables(t);
    rules_gpu_health_tables(t);
    rules_gpu_ops_tables(t);
    rules_gpu_xid_tables(t);
    rules_history_tables(t);
    rules_host_cgroup_tables(t);
    rules_host_cpu_tables(t);
    rules_host_env_tables(t);
    rules_host_kmsg_tables(t);
    rules_host_memory_tables(t);
    rules_host_pressure_tables(t);
    rules_host_storage_tables(t);
    rules_memory_foreign_processes_tables(t);
    rules_memory_vram_tables(t);
    rules_platform_diff_tables(t);
    rules_serving_config_tables(t);
    rules_serving_load_tables(t);
    rules_serving_outdiff_tables(t);
    rules_trace_catalog_tables(t);
    rules_trace_comm_tables(t);
    rules_trace_compute_tables(t);
    rules_trace_data_tables(t);
    rules_watch_catalog_tables(t);
    rules_watch_rules_tables(t);
    // engine/: the pipeline of each command
    engine_npd_plugin_tables(t);
    engine_slurm_health_tables(t);
    // report/: renderers, report blocks, environment lines, interface words
    report_bench_render_tables(t, r);
    report_counts_tables(t);
    report_diagnose_block_tables(t, r);
    report_diff_block_tables(r);
    report_env_lines_tables(t, r);
    report_fleet_block_tables(t, r);
    report_gpu_table_tables(t, r);
    report_h5_block_tables(t, r);
    watch::report_live_view_tables(t);
    report_memory_block_tables(t, r);
    report_phrases_zh_tables(t);
    report_progress_text_tables(t);
    report_prom_help_tables(t);
    report_render_html_tables(r);
    report_render_json_tables(r);
    report_render_md_tables(r);
    report_render_prom_tables(r);
    report_render_term_tables(t, r);
    report_topo_block_tables(t, r);
    trace::report_trace_block_tables(t, r);
    report_ui_strings_tables(t);
    // cli/: command-line words
    engine_agent_tables(t);
    engine_baseline_tables(t);
    engine_compare_tables(t);
    engine_exporter_tables(t);
    engine_nccl_tests_tables(t);
    cli_help_lang_tables(t);
    cli_help_zh_tables(t);
    engine_scheduler_tables(t);
    engine_timings_tables(t);
    return x;
  }();
  return a;
}
}  // namespace

const Tables& tables() { return all().t; }
const BenchTables& bench_tables() { return all().b; }
const ReportTables& report_tables() { return all().r; }

}  // namespace plumb
