// Data layer: the open-files limit (RLIMIT_NOFILE) of the target process against what DataLoader
// workers need. With torch.multiprocessing's default "file_descriptor" sharing strategy every
// tensor a worker hands to the main process travels as a file descriptor that stays open until
// the tensor is freed; a low soft limit ends in "received 0 items of ancdata" or
// "Too many open files" (PyTorch's multiprocessing notes, "Sharing strategies").
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kDataOpenFilesId = "l3.data.open_files_limit";

std::string files_limit_text(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : "unlimited"; }

std::vector<Finding> judge_open_files(const Facts& f, const Thresholds& th) {
  const auto& n = f.host.process.nofile;
  if (!n.has()) return {skipped(kDataOpenFilesId, "open-files limit unknown: " + n.why())};
  auto fail_below = static_cast<std::uint64_t>(th.get("data.open_files_fail_below"));
  auto warn_below = static_cast<std::uint64_t>(th.get("data.open_files_warn_below"));
  Finding out;
  out.id = kDataOpenFilesId;
  out.add("Max open files (soft)", files_limit_text(n->soft), n.source);
  out.add("Max open files (hard)", files_limit_text(n->hard), n.source);
  // Without --pid plumb reads its own limit, which the job inherits only when started the same way.
  bool self = n.source.find("/self/") != std::string::npos;
  out.arg("soft", files_limit_text(n->soft)).arg("hard", files_limit_text(n->hard)).arg("min", std::to_string(fail_below));
  out.arg("warn", std::to_string(warn_below)).arg("source", n.source);
  out.arg("whose", self ? "plumb itself (pass --pid <training pid> to read the job's limit)" : "the target process");
  out.arg("whose_zh", self ? "plumb 自身（用 --pid <训练进程 pid> 读取作业的限制）" : "目标进程");
  out.threshold = "soft limit >= " + std::to_string(fail_below) + " (fail below), >= " + std::to_string(warn_below) +
                  " (warn below); assumes 8 workers x prefetch_factor 2 x 256 tensors per batch in flight";
  // The soft limit is what open() and recvmsg() hit; a process may raise it up to the hard limit.
  bool can_raise = !n->hard || (n->soft && *n->hard > *n->soft);
  out.arg("raise", can_raise ? "ulimit -n " + files_limit_text(n->hard) : "raise the hard limit first (see fix)");
  if (!n->soft) {
    out.status = Status::pass;
    out.variant = "unlimited";
  } else if (*n->soft < fail_below) {
    // A login shell's default (1024 on systemd distributions) is plumb's limit, not necessarily
    // the job's (launchers and containers set their own): a warning until --pid shows the job's.
    out.status = self ? Status::warn : Status::fail;
    out.variant = can_raise ? "fail" : "fail_hard";
  } else if (*n->soft < warn_below) {
    out.status = Status::warn;
  } else {
    out.status = Status::pass;
  }
  return {out};
}




}  // namespace
void rules_data_open_files_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"data.open_files_fail_below", 4096, "files",
     {"fail when the target's open-files soft limit is below this: 8 DataLoader workers x prefetch_factor 2 x "
      "256 tensors per batch, each one a descriptor under the file_descriptor sharing strategy",
      "目标进程打开文件数软限制低于该值时判定失败：8 个 DataLoader worker × prefetch_factor 2 × 每批 256 个张量，"
      "在 file_descriptor 共享策略下每个张量占一个文件描述符"}},
    {"data.open_files_warn_below", 65536, "files",
     {"warn when the open-files soft limit is below this (datasets with many shard files, more workers, "
      "per-sample tensors in a collated list)",
      "打开文件数软限制低于该值时警告（数据集分片文件多、worker 更多、collate 后为逐样本张量列表）"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kDataOpenFilesId, Layer::L3, Pillar::data, Section::data,
    {"Open-files limit for DataLoader workers", "DataLoader worker 所需的打开文件数上限"},
    {
        {"pass", {"{whose}: open-files soft limit {soft} (hard {hard}) is at least {warn}",
                  "{whose_zh}：打开文件数软限制 {soft}（硬限制 {hard}），不低于 {warn}"}},
        {"unlimited", {"open-files limit is unlimited", "打开文件数不受限制"}},
        {"warn", {"{whose}: open-files soft limit {soft} (hard {hard}) is below {warn}: many DataLoader workers or "
                  "datasets that return many tensors per batch can still run out of descriptors",
                  "{whose_zh}：打开文件数软限制 {soft}（硬限制 {hard}）低于 {warn}：DataLoader worker 较多，或每批返回大量张量时，"
                  "仍可能耗尽文件描述符"}},
        {"fail", {"{whose}: open-files soft limit {soft} (hard {hard}) is below {min}: DataLoader workers pass every "
                  "tensor as a file descriptor (file_descriptor sharing) and fail with 'received 0 items of ancdata' or "
                  "'Too many open files'",
                  "{whose_zh}：打开文件数软限制 {soft}（硬限制 {hard}）低于 {min}：DataLoader worker 以文件描述符传递每个张量"
                  "（file_descriptor 共享策略），会报 'received 0 items of ancdata' 或 'Too many open files'"}},
        {"fail_hard", {"{whose}: open-files limit {soft} (hard {hard} as well) is below {min}: DataLoader workers pass "
                       "every tensor as a file descriptor and fail with 'received 0 items of ancdata' or 'Too many open files'; "
                       "the process cannot raise it itself",
                       "{whose_zh}：打开文件数上限 {soft}（硬限制同为 {hard}）低于 {min}：DataLoader worker 以文件描述符传递每个张量，"
                       "会报 'received 0 items of ancdata' 或 'Too many open files'；进程自身无法调高"}},
    },
    {"Raise the soft limit before starting the job ({raise}; in Python: resource.setrlimit(resource.RLIMIT_NOFILE, "
     "(hard, hard))); raise the hard limit in /etc/security/limits.conf (nofile), systemd LimitNOFILE=, "
     "docker run --ulimit nofile=1048576:1048576 or the Slurm/Kubernetes job spec; where it cannot be raised, call "
     "torch.multiprocessing.set_sharing_strategy('file_system')",
     "在启动作业前调高软限制（{raise}；Python 中：resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))）；"
     "硬限制在 /etc/security/limits.conf（nofile）、systemd 的 LimitNOFILE=、docker run --ulimit nofile=1048576:1048576 "
     "或 Slurm/Kubernetes 作业配置中调高；无法调高时调用 torch.multiprocessing.set_sharing_strategy('file_system')"},
    "grep 'Max open files' {source}",
    {"DataLoader workers stop crashing, so num_workers need not be cut to 0 as a workaround",
     "DataLoader worker 不再崩溃，无需把 num_workers 降为 0 来规避"},
    {"l2.trace.dataloader_share"},
}};
});
  t.add_rule({kDataOpenFilesId, {"collect.process"}, judge_open_files});
}

}  // namespace plumb
