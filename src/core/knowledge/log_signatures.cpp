// The signature table and the symptom funnels of `plumb diagnose` (see log_signatures.h). The rows
// here cite the public thread where their cause was confirmed (docs/diagnose.md lists them); the
// rows derived from the error vocabularies are in log_vocabulary.cpp.
#include "core/knowledge/log_signatures.h"

#include <algorithm>

#include "core/knowledge/log_vocabulary.h"

namespace plumb {

namespace {

// Sizes as PyTorch prints them: "216.00 MiB", "7.92 GiB", "0 bytes".
#define PLUMB_SIZE "([0-9.]+ (bytes|[KMGTP]?i?B))"

std::vector<LogSignature> make_signatures() {
  std::vector<LogSignature> t;
  t.push_back({
      "dataloader_shm", Pillar::data, Section::data,
      {R"(DataLoader worker \(pid [0-9]+\) is killed by signal: Bus error)",
       R"(Unexpected bus error encountered in worker)",
       R"(unable to write to file </torch_)"},
      {{"pid", R"(DataLoader worker \(pid ([0-9]+)\))"}, {"file", R"(unable to write to file <(/?torch_[0-9_]+)>)"},
       {"errno", R"(No space left on device \(([0-9]+)\))"}},
      {"DataLoader worker died of a bus error / could not write shared memory",
       "DataLoader worker 因总线错误退出 / 无法写入共享内存"},
      {"{where}: a DataLoader worker could not place a batch in shared memory ({count} line(s)).",
       "{where}：DataLoader worker 无法把批次放入共享内存（{count} 行）。"},
      {"workers hand batches to the main process through /dev/shm; when it is full the write faults (SIGBUS) "
       "and the worker dies",
       "worker 通过 /dev/shm 把批次交给主进程；/dev/shm 写满时写入触发 SIGBUS，worker 退出"},
      {},
      {"l3.storage.shm_size", "l3.memory.cgroup_limit", "l3.kernel.oom_kills"},
      {"Give /dev/shm room for num_workers x prefetch_factor batches: `docker run --shm-size=16g` or, on Kubernetes, "
       "an emptyDir volume with medium: Memory at /dev/shm; if /dev/shm is large, look at host RAM (the memory cgroup).",
       "为 /dev/shm 留出 num_workers × prefetch_factor 个批次的空间：`docker run --shm-size=16g`，Kubernetes 中在 "
       "/dev/shm 挂载 medium: Memory 的 emptyDir；若 /dev/shm 已足够大，检查主机内存（内存 cgroup）。"},
      "df -h /dev/shm",
      "https://github.com/pangeo-data/pangeo-docker-images/issues/258"});
  t.push_back({
      "dataloader_killed", Pillar::memory, Section::data,
      {R"(DataLoader worker \(pid [0-9]+\) is killed by signal: Killed)"},
      {{"pid", R"(DataLoader worker \(pid ([0-9]+)\))"}},
      {"DataLoader worker killed (SIGKILL)", "DataLoader worker 被杀死（SIGKILL）"},
      {"{where}: DataLoader worker {pid} was killed with SIGKILL ({count} line(s)).",
       "{where}：DataLoader worker {pid} 被 SIGKILL 杀死（{count} 行）。"},
      {"SIGKILL from outside the process: the kernel's OOM killer at the host or memory-cgroup limit",
       "来自进程外部的 SIGKILL：主机或内存 cgroup 上限触发的内核 OOM killer"},
      {},
      {"l3.kernel.oom_kills", "l3.memory.cgroup_oom_kills", "l3.memory.cgroup_limit"},
      {"Lower num_workers or the per-worker memory (dataset copies, prefetch_factor), or raise the memory limit.",
       "降低 num_workers 或每个 worker 的内存（数据集副本、prefetch_factor），或提高内存上限。"},
      "dmesg -T | grep -i -E 'killed process|oom'",
      "https://github.com/ymoslem/OpenNMT-Tutorial/issues/6"});
  t.push_back({
      "cuda_oom", Pillar::memory, Section::gpu,
      {R"(CUDA out of memory\. Tried to allocate)", R"(Tried to allocate [0-9.]+ [KMGTP]?i?B \(GPU [0-9]+; )",
       R"(OutOfMemoryError: CUDA out of memory)"},
      {{"request", R"(Tried to allocate ([0-9.]+ (bytes|[KMGTP]?i?B)))"},
       {"gpu", R"(\(GPU ([0-9]+);)"}, {"gpu", R"(GPU ([0-9]+) has a total capacity)"},
       {"capacity", PLUMB_SIZE " total capacity"}, {"capacity", "total capacity of " PLUMB_SIZE},
       {"free", PLUMB_SIZE " free"}, {"free", "of which " PLUMB_SIZE " is free"},
       {"allocated", PLUMB_SIZE " already allocated"}, {"allocated", PLUMB_SIZE " is allocated by PyTorch"},
       {"reserved", PLUMB_SIZE " reserved in total by PyTorch"},
       {"unallocated", PLUMB_SIZE " is reserved by PyTorch but unallocated"},
       {"process_in_use", "this process has " PLUMB_SIZE " memory in use"}},
      {"CUDA out of memory", "CUDA 显存不足（OOM）"},
      {"{where}: CUDA out of memory: {request} requested on GPU {gpu} ({capacity} total, {free} free).",
       "{where}：CUDA 显存不足：GPU {gpu} 上申请 {request}（总量 {capacity}，空闲 {free}）。"},
      {"the caching allocator could not get a block from the driver, even after freeing its cache",
       "缓存分配器释放缓存后仍无法从驱动获得内存块"},
      {{"foreign",
        {"{where}: CUDA out of memory on GPU {gpu}: {capacity} total, {free} free, PyTorch holds {held}: another process "
         "(or a leftover one) holds {foreign}.",
         "{where}：GPU {gpu} 显存不足：总量 {capacity}，空闲 {free}，PyTorch 持有 {held}：另一个（或残留的）进程占用 "
         "{foreign}。"}},
       {"fragmentation",
        {"{where}: CUDA out of memory on GPU {gpu}: fragmentation: {unallocated} reserved but unallocated > the {request} "
         "request -> expandable_segments.",
         "{where}：GPU {gpu} 显存不足：碎片化：已预留未分配 {unallocated} > 申请的 {request} -> expandable_segments。"}},
       {"free_exceeds",
        {"{where}: CUDA out of memory on GPU {gpu} although the driver reported {free} free, more than the {request} "
         "request: the free memory is not contiguous for the allocator -> expandable_segments.",
         "{where}：GPU {gpu} 显存不足，但驱动报告空闲 {free}，多于申请的 {request}：空闲显存对分配器不连续 -> "
         "expandable_segments。"}}},
      {"l3.vram.foreign_processes", "l2.gpu.memory_used", "l3.gpu.mig"},
      {"Another process: end it (`nvidia-smi --query-compute-apps=pid,used_memory --format=csv`). Fragmentation: "
       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True. Otherwise: smaller batch, activation checkpointing, bf16.",
       "其他进程占用：结束它（`nvidia-smi --query-compute-apps=pid,used_memory --format=csv`）。碎片化："
       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True。否则：减小批次、激活检查点、bf16。"},
      "nvidia-smi --query-compute-apps=pid,used_memory --format=csv",
      "https://github.com/LISTatSNU/FastMRI_challenge/issues/238"});
  t.push_back({
      "nccl_watchdog_timeout", Pillar::comm, Section::distributed,
      {R"(Watchdog caught collective operation timeout)", R"(last completed NCCL work: -?[0-9]+)"},
      {{"seq", R"(SeqNum=([0-9]+))"}, {"op", R"(OpType=([A-Z_]+))"}, {"timeout_ms", R"(Timeout\(ms\)=([0-9]+))"},
       {"ran_ms", R"(ran for ([0-9]+) milliseconds)"}, {"rank", R"(\[Rank ([0-9]+)\])"},
       {"last_completed", R"(last completed NCCL work: (-?[0-9]+))"}},
      {"NCCL watchdog timeout of a collective", "NCCL watchdog 检测到集合通信超时"},
      {"{where}: rank {rank}: {op} (SeqNum={seq}) ran {ran_ms} ms, over the {timeout_ms} ms timeout: a later "
       "collective stalled, so one rank fell behind or stopped (the rank missing from the timed-out list is often "
       "the straggler).",
       "{where}：rank {rank}：{op}（SeqNum={seq}）运行 {ran_ms} ms，超过 {timeout_ms} ms 超时：后续的集合通信停滞，某个 "
       "rank 落后或停止（未出现在超时列表中的 rank 往往就是掉队者）。"},
      {"ranks wait for a peer inside a collective until the watchdog aborts the process group",
       "各 rank 在集合通信中等待对端，直到 watchdog 中止进程组"},
      {{"first_collective",
        {"{where}: rank {rank}: {op} (SeqNum={seq}, last completed {last_completed}) timed out after {timeout_ms} ms: the "
         "first collective never finished, so the transport between GPUs is broken (P2P, PCIe ACS, IOMMU), not a slow "
         "network.",
         "{where}：rank {rank}：{op}（SeqNum={seq}，最后完成 {last_completed}）在 {timeout_ms} ms 后超时：第一个集合通信从未"
         "完成，是 GPU 之间的传输路径坏了（P2P、PCIe ACS、IOMMU），而不是网络慢。"}}},
      {"l3.comm.pcie_acs", "l3.comm.iommu_mode", "l3.comm.p2p_disabled", "l3.comm.torch_timeouts",
       "l3.comm.socket_ifname", "l3.comm.firewall"},
      {"First collective: disable ACS on the PCIe bridges (or set NCCL_P2P_DISABLE=1 to prove it), check the IOMMU mode. "
       "Later collective: find the straggler rank (NCCL_DEBUG=INFO, py-spy dump) and check the environment is the same "
       "on every node.",
       "第一个集合通信：关闭 PCIe 桥上的 ACS（或设置 NCCL_P2P_DISABLE=1 验证），检查 IOMMU 模式。后续集合通信：找出掉队的 "
       "rank（NCCL_DEBUG=INFO、py-spy dump），确认各节点环境一致。"},
      "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,NET torchrun ...",
      "https://github.com/ecmwf/WeatherGenerator/issues/360"});
  t.push_back({
      "nccl_ib_completion_error", Pillar::comm, Section::distributed,
      {R"(NET/IB ?: Got completion (from peer [^ ]+ )?with error [0-9]+)"},
      {{"error", R"(with error ([0-9]+))"}, {"vendor_err", R"(vendor err ([0-9]+))"}, {"opcode", R"(opcode ([0-9]+))"},
       {"peer", R"(from peer ([^ ]+))"}},
      {"NCCL InfiniBand/RoCE work completion error", "NCCL InfiniBand/RoCE 工作完成错误"},
      {"{where}: an IB work request completed with error {error} (vendor err {vendor_err}) ({count} line(s)).",
       "{where}：IB 工作请求以错误 {error} 完成（vendor err {vendor_err}）（{count} 行）。"},
      {"the NIC gave up on a transfer and NCCL aborts the communicator", "网卡放弃了一次传输，NCCL 中止通信器"},
      {{"local_protection",
        {"{where}: IB completion error {error} (local protection, vendor err {vendor_err}): the NIC could not reach the GPU "
         "memory it was given: PCIe ACS or the IOMMU redirects GPUDirect RDMA.",
         "{where}：IB 完成错误 {error}（本地保护错误，vendor err {vendor_err}）：网卡无法访问给定的 GPU 显存：PCIe ACS 或 "
         "IOMMU 重定向了 GPUDirect RDMA。"}},
       {"retry_exceeded",
        {"{where}: IB completion error {error} (transport retry counter exceeded): the peer never acknowledged; on RoCE "
         "this is often the wrong GID index (RoCE v1 vs v2), else the fabric.",
         "{where}：IB 完成错误 {error}（传输重试次数超限）：对端从未确认；在 RoCE 上常见原因是 GID 索引错误（RoCE v1 与 "
         "v2），否则是网络本身。"}}},
      {"l3.comm.ib_gid_index", "l3.comm.pcie_acs", "l3.comm.iommu_mode", "l3.comm.ib_hca", "l3.comm.ib_ports"},
      {"Error 4 / vendor err 81: disable ACS on the PCIe switches, IOMMU off or passthrough. Error 12: set NCCL_IB_GID_INDEX "
       "to the RoCE v2 entry of the port's GID table; check link and MTU.",
       "错误 4 / vendor err 81：关闭 PCIe 交换芯片上的 ACS，IOMMU 关闭或 passthrough。错误 12：把 NCCL_IB_GID_INDEX 设为端口 "
       "GID 表中的 RoCE v2 条目；检查链路与 MTU。"},
      "show_gids; ibv_devinfo -v",
      "https://github.com/NVIDIA/nccl/issues/928"});
  t.push_back({
      "socket_connect_refused", Pillar::comm, Section::distributed,
      // Gloo's pair.cc, c10d's TCPStore client ("errno: 111 - Connection refused") and NCCL's socket.cc.
      {R"(connect \[[0-9a-fA-F.:]+\]:[0-9]+: Connection refused)", R"(failed to connect to [^ ]+ \(errno: 111)",
       R"(Connect to [^ ]+ failed ?: Connection refused)"},
      {{"address", R"(connect \[([0-9a-fA-F.:]+)\])"}, {"address", R"(failed to connect to \[?([^\]:( ]+))"},
       {"address", R"(Connect to \[?([^\]<( ]+))"}, {"port", R"(\]:([0-9]+))"}, {"port", R"(<([0-9]+)>)"}},
      {"rendezvous/bootstrap connection refused", "建立连接（rendezvous/bootstrap）被拒绝"},
      {"{where}: a connection to {address}:{port} was refused ({count} line(s)).",
       "{where}：连接 {address}:{port} 被拒绝（{count} 行）。"},
      {"a rank dialled an address where no peer listens, so process-group set-up fails",
       "某个 rank 连接到无人监听的地址，进程组建立失败"},
      {{"loopback",
        {"{where}: a peer was told to connect to {address}:{port}, a loopback address: the listening rank's host "
         "name resolved to {address} on its node (typically an /etc/hosts line such as Debian's "
         "'127.0.1.1 <host name>'), so Gloo/NCCL advertised an address other nodes cannot reach.",
         "{where}：对端被告知连接 {address}:{port}，这是回环地址：监听方 rank 的主机名在其节点上解析为 {address}"
         "（通常是 /etc/hosts 中如 Debian 的 '127.0.1.1 <主机名>' 一行），Gloo/NCCL 因而通告了其他节点无法访问的地址。"}}},
      {"l3.comm.hostname_loopback", "l3.comm.firewall", "l3.comm.socket_ifname"},
      {"Map the host name to the routable address in /etc/hosts (not a loopback address such as 127.0.1.1), or "
       "set GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME to the cluster interface; open the rendezvous port.",
       "在 /etc/hosts 中把主机名映射到可路由地址（而非 127.0.1.1 之类的回环地址），或将 GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME 设为"
       "集群网卡；放行 rendezvous 端口。"},
      "getent hosts $(hostname)",
      "https://github.com/pytorch/gloo/issues/223"});
  t.push_back({
      "cuda_driver_too_old", Pillar::compute, Section::framework,
      {R"(The NVIDIA driver on your system is too old)", R"(CUDA driver version is insufficient for CUDA runtime version)",
       R"(cudaErrorInsufficientDriver)"},
      {{"found_version", R"(found version ([0-9]+))"}},
      {"NVIDIA driver too old for the CUDA runtime", "NVIDIA 驱动版本过旧，不支持 CUDA 运行时"},
      {"{where}: the driver is too old for the CUDA runtime the job ships ({count} line(s)).",
       "{where}：驱动版本低于作业自带的 CUDA 运行时所需（{count} 行）。"},
      {"CUDA initialisation fails, so the framework sees no GPU", "CUDA 初始化失败，框架看不到 GPU"},
      {{"found",
        {"{where}: the driver supports CUDA {driver_cuda} at most (found version {found_version}); the job's CUDA runtime "
         "is newer.",
         "{where}：驱动最高支持 CUDA {driver_cuda}（found version {found_version}）；作业的 CUDA 运行时更新。"}}},
      {"l3.framework.cuda_driver_too_old", "l3.gpu.cuda_driver_compat", "l3.gpu.toolkit_runtime"},
      {"Install a driver that supports the job's CUDA version, or use a framework build for the driver's CUDA version "
       "(or the CUDA forward-compatibility package on data-centre GPUs).",
       "安装支持作业 CUDA 版本的驱动，或使用与驱动 CUDA 版本匹配的框架构建（数据中心 GPU 可用 CUDA 前向兼容包）。"},
      "nvidia-smi | head -4",
      "https://github.com/IEIT-Yuan/Yuan-2.0/issues/65"});
  t.push_back({
      "no_kernel_image", Pillar::compute, Section::framework,
      {R"(no kernel image is available for execution on the device)",
       R"(with CUDA capability sm_[0-9]+ is not compatible with the current PyTorch installation)",
       R"(The current PyTorch install supports CUDA capabilities)"},
      {{"capability", R"(CUDA capability (sm_[0-9]+))"}, {"supported", R"(supports CUDA capabilities ((sm_[0-9]+ ?)+))"}},
      {"no kernel image for this GPU's compute capability", "没有适用于该 GPU 计算能力的 kernel 映像"},
      {"{where}: the framework binary has no kernel for this GPU ({capability}; built for {supported}).",
       "{where}：框架二进制中没有适用于此 GPU 的 kernel（{capability}；构建目标 {supported}）。"},
      {"the first kernel launch fails", "第一次内核启动即失败"},
      {},
      {"l3.framework.library_mismatch", "l3.gpu.toolkit_runtime", "l3.gpu.mixed"},
      {"Install a framework build whose CUDA version includes this GPU's architecture (e.g. a cu118+ wheel for sm_86+).",
       "安装其 CUDA 版本包含该 GPU 架构的框架构建（例如 sm_86 及以上用 cu118+ 的 wheel）。"},
      "python -c 'import torch; print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())'",
      "https://github.com/sconlyshootery/FeatDepth/issues/68"});
  t.push_back({
      "cudnn_version_mismatch", Pillar::compute, Section::framework,
      {R"(cuDNN version incompatibility)", R"(Loaded runtime CuDNN library: [0-9.]+ but source was compiled with)"},
      {{"compiled", R"(compiled +against \(([0-9, ]+)\))"}, {"compiled", R"(source was compiled with: ([0-9.]+))"},
       {"runtime", R"(runtime version \(([0-9, ]+)\))"}, {"runtime", R"(Loaded runtime CuDNN library: ([0-9.]+))"}},
      {"cuDNN version incompatible with the framework build", "cuDNN 版本与框架构建不兼容"},
      {"{where}: the framework was built against cuDNN {compiled} but loaded {runtime}.",
       "{where}：框架基于 cuDNN {compiled} 构建，但加载了 {runtime}。"},
      {"the wrong libcudnn is found first on the library path, so convolution set-up fails",
       "库路径中先找到了错误的 libcudnn，卷积初始化失败"},
      {},
      {"l3.gpu.lib_duplicates", "l3.framework.library_mismatch"},
      {"Remove the other libcudnn from LD_LIBRARY_PATH (or the other package that ships it) so the framework loads the "
       "cuDNN it was built with.",
       "从 LD_LIBRARY_PATH（或附带它的其他包）中移除另一个 libcudnn，让框架加载其构建时的 cuDNN。"},
      "ldconfig -p | grep libcudnn",
      "https://github.com/pytorch/pytorch/blob/main/torch/backends/cudnn/__init__.py"});
  t.push_back({
      "undefined_symbol_nccl", Pillar::comm, Section::framework,
      {R"(undefined symbol: nccl[A-Za-z0-9_]*)"},
      {{"symbol", R"(undefined symbol: (nccl[A-Za-z0-9_]*))"}, {"library", R"(([^ :]+\.so[.0-9]*): undefined symbol)"}},
      {"undefined NCCL symbol at import", "导入时 NCCL 符号未定义"},
      {"{where}: {library} needs {symbol}, which the loaded libnccl does not have: an older NCCL was loaded first.",
       "{where}：{library} 需要 {symbol}，但已加载的 libnccl 中没有：先加载了一个更旧的 NCCL。"},
      {"the framework cannot be imported", "框架无法导入"},
      {},
      {"l3.gpu.lib_duplicates", "l3.framework.library_mismatch"},
      {"Remove the other libnccl.so.2 (another package's, or LD_LIBRARY_PATH) so the framework loads the NCCL it was "
       "built against.",
       "移除另一个 libnccl.so.2（其他包自带的或 LD_LIBRARY_PATH 中的），让框架加载其构建时的 NCCL。"},
      "python -c 'import torch' ; ldconfig -p | grep libnccl",
      "https://github.com/pytorch/pytorch/issues/119932"});
  t.push_back({
      "gpu_xid", Pillar::compute, Section::gpu,
      {R"(NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): [0-9]+)"},
      {{"xid", R"(NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): ([0-9]+))"}, {"pci", R"(Xid \(PCI:([0-9a-fA-F:.]+)\))"}},
      {"NVIDIA Xid error in the log", "日志中的 NVIDIA Xid 错误"},
      {"{where}: Xid {xid} on GPU {pci}: {meaning}.", "{where}：GPU {pci} 出现 Xid {xid}：{meaning_zh}。"},
      {"the driver reported a GPU fault; running work on that GPU is lost", "驱动报告 GPU 故障；该 GPU 上运行的任务丢失"},
      {},
      {"l3.gpu.xid", "l3.gpu.device_lost", "l3.gpu.ecc_errors", "l3.gpu.pcie_width", "l3.gpu.temperature"},
      {"Follow the Xid's action in NVIDIA's Xid catalogue: application Xids need a code fix; 48/63/64/79/94/95 need "
       "a GPU reset, drain or service.",
       "按 NVIDIA Xid 目录中该 Xid 的建议处理：应用类 Xid 需修改代码；48/63/64/79/94/95 需重置 GPU、下线节点或维修。"},
      "dmesg -T | grep -i xid",
      "https://github.com/wilicc/gpu-burn/issues/1"});
  t.push_back({
      "gpu_fallen_off_bus", Pillar::compute, Section::gpu,
      {R"(NVRM: GPU [0-9a-fA-F]+:[0-9a-fA-F]+:[0-9a-fA-F.]+: GPU has fallen off the bus)",
       R"(GPU has fallen off the bus or has otherwise become inaccessible)", R"(: GPU is lost\.)"},
      {{"pci", R"(NVRM: GPU ([0-9a-fA-F:.]+): GPU has fallen)"}, {"pci", R"(GPU ([0-9a-fA-F:.]+): GPU is lost)"}},
      {"GPU fell off the PCIe bus", "GPU 从 PCIe 总线上掉线"},
      {"{where}: GPU {pci} fell off the bus (no Xid line needed: the driver lost the device).",
       "{where}：GPU {pci} 从总线掉线（不一定有 Xid 行：驱动已失去该设备）。"},
      {"every process on that GPU fails; only a reset or reboot brings it back",
       "该 GPU 上的所有进程失败；只有重置或重启才能恢复"},
      {},
      {"l3.gpu.device_lost", "l3.gpu.xid", "l3.gpu.pcie_width", "l3.gpu.temperature"},
      {"Reseat or replace the card, riser or cable; check power and cooling; read the PCIe AER lines before the event.",
       "重新插拔或更换显卡、转接卡或线缆；检查供电与散热；查看事件前的 PCIe AER 记录。"},
      "dmesg -T | grep -i -E 'fallen off|AER|Xid'",
      "https://docs.nvidia.com/deploy/xid-errors/index.html"});
  t.push_back({
      "ecc_uncorrectable", Pillar::compute, Section::gpu,
      {R"(CUDA_ERROR_ECC_UNCORRECTABLE)", R"(uncorrectable ECC error encountered)", R"(cudaErrorECCUncorrectable)"},
      {{"device", R"(CUDA device ordinal ([0-9]+))"}},
      {"uncorrectable ECC error", "不可纠正的 ECC 错误"},
      {"{where}: the GPU reported an uncorrectable ECC memory error ({count} line(s)).",
       "{where}：GPU 报告不可纠正的 ECC 显存错误（{count} 行）。"},
      {"CUDA contexts on that GPU fail until it is reset", "在 GPU 重置前该 GPU 上的 CUDA 上下文都会失败"},
      {},
      {"l3.gpu.ecc_errors", "l3.gpu.remapped_rows", "l3.gpu.retired_pages", "l3.gpu.xid"},
      {"Reset the GPU (nvidia-smi -r) so pending row remapping takes effect; if errors return, drain the node and have "
       "the GPU serviced.",
       "重置 GPU（nvidia-smi -r）使待处理的行重映射生效；若错误再次出现，下线节点并维修 GPU。"},
      "nvidia-smi -q -d ECC,ROW_REMAPPER",
      "https://github.com/nagadit/DeepFaceLab_Linux/issues/89"});
  t.push_back({
      "kernel_oom_kill", Pillar::memory, Section::environment,
      {R"(Memory cgroup out of memory: Killed process [0-9]+)", R"(Out of memory: Killed process [0-9]+)"},
      {{"pid", R"(Killed process ([0-9]+))"}, {"process", R"(Killed process [0-9]+ \(([^)]+)\))"},
       {"anon_rss", R"(anon-rss:([0-9]+kB))"}},
      {"kernel OOM killer ended a process", "内核 OOM killer 杀死了进程"},
      {"{where}: the kernel OOM killer killed {process} (pid {pid}, anon-rss {anon_rss}).",
       "{where}：内核 OOM killer 杀死了 {process}（pid {pid}，anon-rss {anon_rss}）。"},
      {"host memory ran out at a memory-cgroup or machine limit; the job dies with SIGKILL and no traceback",
       "主机内存在内存 cgroup 或整机上限处耗尽；作业被 SIGKILL 杀死且没有 traceback"},
      {},
      {"l3.kernel.oom_kills", "l3.memory.cgroup_oom_kills", "l3.memory.cgroup_limit", "l3.memory.swap_active"},
      {"Raise the memory limit of the job (container, Slurm --mem) or lower its use (DataLoader workers, dataset copies).",
       "提高作业的内存上限（容器、Slurm --mem）或降低其占用（DataLoader worker、数据集副本）。"},
      "dmesg -T | grep -i -E 'killed process|oom'",
      "https://github.com/ymoslem/OpenNMT-Tutorial/issues/6"});
  t.push_back({
      "slurm_oom_kill", Pillar::memory, Section::environment,
      {R"(Detected [0-9]+ oom[-_]kill event)"},
      {{"events", R"(Detected ([0-9]+) oom[-_]kill event)"}, {"step", R"(in (StepId=[^ ]+|step [^ ]+|job [0-9]+))"}},
      {"Slurm job step killed by the cgroup OOM handler", "Slurm 作业步被 cgroup OOM 处理程序杀死"},
      {"{where}: Slurm detected {events} oom-kill event(s) in {step}.",
       "{where}：Slurm 在 {step} 中检测到 {events} 次 oom-kill 事件。"},
      {"the job's memory cgroup reached its limit and a process was SIGKILLed ('Killed', no traceback)",
       "作业的内存 cgroup 达到上限，进程被 SIGKILL（只有 'Killed'，没有 traceback）"},
      {},
      {"l3.memory.cgroup_oom_kills", "l3.memory.cgroup_limit", "l3.kernel.oom_kills"},
      {"Request more memory (sbatch --mem / --mem-per-cpu) or lower the job's use; `sacct -j JOB -o MaxRSS,ReqMem` shows "
       "the peak.",
       "申请更多内存（sbatch --mem / --mem-per-cpu）或降低作业占用；`sacct -j JOB -o MaxRSS,ReqMem` 显示峰值。"},
      "sacct -j <JOBID> -o JobID,MaxRSS,ReqMem,State",
      "https://github.com/ArjunaCluster/ArjunaUsers/issues/52"});
  t.push_back({
      "exit_killed", Pillar::memory, Section::environment,
      {R"(exitcode *: *-9)", R"(exit (code|status) (137|-9))", R"(non-zero exit status (137|-9))",
       R"([0-9]+ Killed  +[^ ])", R"(Signal 9 \(SIGKILL\) received)"},
      {{"pid", R"(([0-9]+) Killed  )"}, {"pid", R"(pid: ([0-9]+))"}},
      {"process ended by SIGKILL (exit code -9 / 137)", "进程被 SIGKILL 结束（退出码 -9 / 137）"},
      {"{where}: a process of the job ended with SIGKILL (exit code -9 / 137) ({count} line(s)).",
       "{where}：作业的一个进程因 SIGKILL 结束（退出码 -9 / 137）（{count} 行）。"},
      {"SIGKILL comes from outside: most often the OOM killer, else the scheduler or a person",
       "SIGKILL 来自外部：最常见的是 OOM killer，其次是调度器或人工"},
      {},
      {"l3.kernel.oom_kills", "l3.memory.cgroup_oom_kills", "l3.memory.cgroup_limit"},
      {"Look for the OOM killer first (kernel log, Slurm's oom-kill line); raise the memory limit or lower the use.",
       "先查 OOM killer（内核日志、Slurm 的 oom-kill 行）；提高内存上限或降低占用。"},
      "dmesg -T | grep -i -E 'killed process|oom'",
      "https://github.com/ArjunaCluster/ArjunaUsers/issues/52"});
  t.push_back({
      "too_many_open_files", Pillar::data, Section::data,
      {R"(Too many open files)", R"(received [0-9]+ items of ancdata)"},
      {{"errno", R"(Errno ([0-9]+))"}},
      {"too many open files / no file descriptors to pass", "打开文件过多 / 无法传递文件描述符"},
      {"{where}: the process ran out of file descriptors ({count} line(s)).",
       "{where}：进程的文件描述符耗尽（{count} 行）。"},
      {"with the 'file_descriptor' sharing strategy every tensor a DataLoader worker shares holds an open descriptor",
       "在 'file_descriptor' 共享策略下，DataLoader worker 共享的每个张量都占用一个打开的描述符"},
      {},
      {"l3.data.open_files_limit", "l3.storage.shm_size"},
      {"Raise the open-files soft limit (`ulimit -n 65536`, LimitNOFILE=, docker --ulimit nofile=) or call "
       "torch.multiprocessing.set_sharing_strategy('file_system').",
       "提高打开文件数软限制（`ulimit -n 65536`、LimitNOFILE=、docker --ulimit nofile=），或调用 "
       "torch.multiprocessing.set_sharing_strategy('file_system')。"},
      "ulimit -n; cat /proc/<PID>/limits | grep 'open files'",
      "https://github.com/MhLiao/MaskTextSpotterV3/issues/51"});
  t.push_back({
      "ort_setaffinity_failed", Pillar::serving, Section::framework,
      {R"(pthread_setaffinity_np failed)"},
      {{"mask", R"(mask: \{([0-9]+), \})"}, {"errno", R"(error code: ([0-9]+))"}},
      {"ONNX Runtime could not pin its threads", "ONNX Runtime 无法绑定线程"},
      {"{where}: ONNX Runtime's thread pool tried to pin threads to CPUs outside the allowed set ({count} line(s)).",
       "{where}：ONNX Runtime 线程池试图把线程绑定到允许集合之外的 CPU（{count} 行）。"},
      {"the pool was sized by the host's cores, not the cpuset: older releases fail to create the session, newer ones "
       "log the error per thread and run more spinning workers than the container has CPUs (tail latency under load)",
       "线程池按主机核数而非 cpuset 决定大小：旧版本创建会话失败，新版本逐线程记录错误并运行多于容器 CPU 数的空转"
       "工作线程（负载下尾延迟升高）"},
      {},
      {"l3.serving.thread_demand", "l3.compute.thread_oversubscription"},
      {"Set SessionOptions.intra_op_num_threads (and inter_op) to the CPUs the container may use, or give the "
       "container the CPUs its thread pool expects.",
       "把 SessionOptions.intra_op_num_threads（及 inter_op）设为容器可用的 CPU 数，或给容器分配线程池期望的 CPU。"},
      "grep Cpus_allowed_list /proc/self/status; nproc",
      "https://github.com/microsoft/onnxruntime/issues/8313"});
  t.push_back({
      "cuda_illegal_access", Pillar::compute, Section::gpu,
      {R"(an illegal (instruction|memory access|address) was encountered)"},
      {{"kind", R"(an illegal (instruction|memory access|address) was encountered)"}},
      {"CUDA illegal instruction / memory access", "CUDA 非法指令 / 非法内存访问"},
      {"{where}: a CUDA kernel hit an illegal {kind} ({count} line(s)).",
       "{where}：CUDA kernel 遇到非法 {kind}（{count} 行）。"},
      {"the CUDA context is corrupted and every later call fails; on healthy hardware it is a bug in a kernel",
       "CUDA 上下文已损坏，之后的调用全部失败；硬件正常时是 kernel 的缺陷"},
      {},
      {"l3.gpu.xid", "l3.gpu.ecc_errors", "l3.gpu.device_lost", "l3.gpu.pcie_width", "l3.framework.launch_blocking"},
      {"Rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel; if it appears on some GPUs only, or with Xid/ECC/AER "
       "errors, test the cards one at a time (risers, cables, power).",
       "用 CUDA_LAUNCH_BLOCKING=1 重跑以定位 kernel；若只在部分 GPU 上出现，或伴随 Xid/ECC/AER 错误，逐块测试显卡（转接卡、"
       "线缆、供电）。"},
      "CUDA_LAUNCH_BLOCKING=1 python train.py",
      "https://github.com/AlexeyAB/darknet/issues/5547"});
  t.push_back({
      "nan_loss", Pillar::compute, Section::framework,
      {R"([Ll]oss[a-z_]*( is|[ :=]+) *-?(nan|NaN|inf|Inf)([^a-zA-Z]|$))",
       R"(returned nan values in its [0-9]+th output)"},
      {{"value", R"([Ll]oss[a-z_]*(?: is|[ :=]+) *(-?(nan|NaN|inf|Inf)))"}},
      {"loss became NaN / inf", "loss 变为 NaN / inf"},
      {"{where}: the loss is {value} ({count} line(s)).", "{where}：loss 为 {value}（{count} 行）。"},
      {"a non-finite value spreads through the gradients and the weights", "非有限值在梯度和权重中扩散"},
      {},
      {"l3.framework.tf32", "l3.gpu.ecc_errors", "l3.gpu.xid", "l3.gpu.temperature"},
      {"Find the first non-finite value (torch.autograd.set_detect_anomaly(True), CUDA_LAUNCH_BLOCKING=1); rule out the "
       "hardware (ECC, Xid) before tuning the learning rate or the precision.",
       "找到第一个非有限值（torch.autograd.set_detect_anomaly(True)、CUDA_LAUNCH_BLOCKING=1）；调整学习率或精度前先排除"
       "硬件问题（ECC、Xid）。"},
      "plumb diagnose --symptom nan-loss",
      "https://github.com/AlexeyAB/darknet/issues/5547"});
  t.back().kind = SignatureKind::model;  // the model (learning rate, precision, data) as much as the machine
  append_vocabulary_signatures(t);
  return t;
}

std::vector<SymptomFunnel> make_symptoms() {
  const CaptureStep kLaunchBlocking{{"the first failing kernel, reported where it fails", "第一个出错的 kernel，在出错处报告"},
                                    "CUDA_LAUNCH_BLOCKING=1 python train.py 2>&1 | tee job.log; plumb diagnose job.log"};
  const CaptureStep kMemory{{"the allocator's view at the failure: reserved vs allocated", "出错时分配器的视图：预留与已分配"},
                            "python -c 'import torch; ...; print(torch.cuda.memory_summary())' > mem.txt; plumb memory mem.txt"};
  const CaptureStep kNcclDebug{{"NCCL's transport choice and where it stops", "NCCL 选择的传输方式及其停止位置"},
                               "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,NET torchrun ... 2>&1 | tee job.log; plumb diagnose job.log"};
  const CaptureStep kTrace{{"where each step's time goes", "每个 step 的时间花在哪里"},
                           "torch.profiler (with_stack=False) -> trace.json; plumb trace trace.json"};
  const CaptureStep kWatch{{"GPU, host and process behaviour over time", "GPU、主机与进程随时间的行为"},
                           "plumb watch --interval 1s --record run.jsonl --pid <PID>"};
  const CaptureStep kPySpy{{"the Python stack of every rank that waits", "每个等待中的 rank 的 Python 栈"},
                           "py-spy dump --pid <PID>"};
  const CaptureStep kDiff{{"what differs between the two machines", "两台机器之间的差异"},
                          "plumb check --save a.json (on each machine); plumb diff a.json b.json"};
  std::vector<SymptomFunnel> s;
  s.push_back({"nan-loss", Pillar::compute, {"the loss turns NaN or inf", "loss 变为 NaN 或 inf"},
               {"Is it the model or the machine? Rule out hardware and precision first; a NaN can also be an OOM in disguise.",
                "是模型还是机器？先排除硬件与精度；NaN 也可能是伪装的 OOM。"},
               {"l3.framework.tf32", "l3.gpu.ecc_errors", "l3.gpu.xid", "l3.gpu.remapped_rows", "l3.gpu.temperature",
                "l3.framework.launch_blocking"},
               {kLaunchBlocking,
                {{"the first operation that produced a non-finite value", "第一个产生非有限值的运算"},
                 "torch.autograd.set_detect_anomaly(True)"},
                kMemory},
               "https://pytorch.org/docs/stable/autograd.html#anomaly-detection"});
  s.push_back({"oom", Pillar::memory, {"CUDA out of memory", "CUDA 显存不足"},
               {"Whose memory is it: another process, the allocator's fragmentation, or the job's own peak?",
                "是谁的显存：其他进程、分配器碎片，还是作业自身的峰值？"},
               {"l3.vram.foreign_processes", "l2.gpu.memory_used", "l3.gpu.mig", "l3.framework.no_memory_caching"},
               {kMemory,
                {{"which processes hold GPU memory", "哪些进程占用显存"},
                 "nvidia-smi --query-compute-apps=pid,used_memory --format=csv"},
                kWatch},
               "https://pytorch.org/docs/stable/notes/cuda.html#memory-management"});
  s.push_back({"hang", Pillar::comm, {"the job hangs (often in the first collective)", "作业挂起（常见于第一个集合通信）"},
               {"Does the first collective ever finish? If not, the path between GPUs is broken (ACS, IOMMU, P2P), not slow.",
                "第一个集合通信完成过吗？若没有，是 GPU 间路径坏了（ACS、IOMMU、P2P），不是慢。"},
               {"l3.comm.pcie_acs", "l3.comm.iommu_mode", "l3.comm.p2p_disabled", "l3.comm.torch_timeouts",
                "l3.comm.hostname_loopback", "l3.comm.firewall", "l3.comm.socket_ifname", "l3.data.open_files_limit"},
               {kNcclDebug, kPySpy,
                {{"the collective alone, without the model", "脱离模型单独测试集合通信"},
                 "all_reduce_perf -b 8 -e 128M -f 2 -g <GPUS> > nccl.log; plumb nccl-tests nccl.log"}},
               "https://github.com/NVIDIA/nccl/issues/2079"});
  s.push_back({"slow-step", Pillar::compute, {"training steps are slower than expected", "训练 step 比预期慢"},
               {"Where does the step's time go: compute, copies, data loading or communication?",
                "step 的时间花在哪里：计算、拷贝、数据加载还是通信？"},
               {"l3.gpu.throttle", "l3.gpu.pcie_width", "l3.gpu.pcie_gen", "l3.compute.cpu_governor",
                "l3.compute.numa_balancing", "l3.compute.thread_oversubscription", "l3.comm.gpu_nic_affinity",
                "l3.storage.read_ahead"},
               {kTrace, kWatch},
               "https://pytorch.org/docs/stable/profiler.html"});
  s.push_back({"gpu-idle", Pillar::data, {"GPUs are often idle", "GPU 经常空闲"},
               {"Is the GPU waiting for data (loader, storage, CPU) or for other ranks?",
                "GPU 在等数据（加载器、存储、CPU）还是在等其他 rank？"},
               {"l3.compute.thread_oversubscription", "l3.storage.shm_size", "l3.storage.read_ahead",
                "l3.storage.data_path", "l3.compute.cpu_governor", "l3.data.open_files_limit"},
               {kWatch, kTrace,
                {{"the storage and loader throughput alone", "单独测量存储与加载吞吐"}, "plumb bench dataload <DATASET_DIR>"}},
               "https://pytorch.org/docs/stable/data.html#multi-process-data-loading"});
  s.push_back({"val-oscillation", Pillar::compute, {"validation metrics jump between runs", "验证指标在多次运行间跳动"},
               {"Is the computation deterministic? Non-deterministic kernels and TF32 change results run to run.",
                "计算是否确定？非确定性 kernel 与 TF32 会让每次结果不同。"},
               {"l3.framework.tf32", "l3.framework.cudnn_benchmark", "l3.framework.cublas_workspace"},
               {{{"whether two runs with one seed agree", "同一随机种子两次运行是否一致"},
                 "torch.use_deterministic_algorithms(True); run twice with the same seed and compare"},
                kDiff},
               "https://pytorch.org/docs/stable/notes/randomness.html"});
  s.push_back({"results-differ-between-machines", Pillar::platform,
               {"results differ between machines", "不同机器上结果不同"},
               {"What differs: GPU model, TF32 and math modes, library versions?", "差在哪里：GPU 型号、TF32 与数学模式、库版本？"},
               {"l3.framework.tf32", "l3.gpu.mixed", "l3.framework.library_mismatch", "l3.framework.cudnn_benchmark",
                "l3.framework.cublas_workspace"},
               {kDiff,
                {{"the same run with TF32 off", "关闭 TF32 后的同一次运行"}, "NVIDIA_TF32_OVERRIDE=0 python infer.py"}},
               "https://github.com/microsoft/onnxruntime/issues/19288"});
  s.push_back({"latency-spike", Pillar::serving, {"serving latency spikes", "推理延迟突增"},
               {"Do the spikes follow the machine (clocks, swap, NUMA) or the load?", "突增跟随机器（频率、swap、NUMA）还是负载？"},
               {"l3.compute.cpu_governor", "l3.gpu.persistence", "l3.compute.numa_balancing", "l3.memory.swap_active",
                "l3.gpu.throttle", "l3.compute.thread_oversubscription"},
               {{{"latency against GPU and host samples", "延迟与 GPU、主机采样对照"},
                 "plumb watch --interval 100ms --record latency.jsonl --pid <PID>"}},
               "https://docs.nvidia.com/deploy/driver-persistence/index.html"});
  s.push_back({"killed", Pillar::memory, {"the job is killed without a traceback", "作业被杀死且没有 traceback"},
               {"Who sent SIGKILL: the kernel's OOM killer, the cgroup, or the scheduler?",
                "谁发送了 SIGKILL：内核 OOM killer、cgroup，还是调度器？"},
               {"l3.kernel.oom_kills", "l3.memory.cgroup_oom_kills", "l3.memory.cgroup_limit", "l3.memory.swap_active"},
               {{{"the kernel's OOM-killer lines", "内核 OOM killer 记录"}, "dmesg -T > kmsg.txt; plumb check --kmsg kmsg.txt"},
                {{"the job's peak memory (Slurm)", "作业的内存峰值（Slurm）"}, "sacct -j <JOBID> -o JobID,MaxRSS,ReqMem,State"}},
               "https://www.kernel.org/doc/html/latest/admin-guide/cgroup-v2.html#memory"});
  s.push_back({"dataloader-crash", Pillar::data, {"DataLoader workers crash", "DataLoader worker 崩溃"},
               {"Shared memory, open files or host RAM?", "共享内存、打开文件数还是主机内存？"},
               {"l3.storage.shm_size", "l3.data.open_files_limit", "l3.memory.cgroup_limit", "l3.kernel.oom_kills"},
               {{{"the worker's own error", "worker 自身的错误"}, "python train.py 2>&1 | tee job.log; plumb diagnose job.log"}},
               "https://pytorch.org/docs/stable/data.html#multi-process-data-loading"});
  return s;
}

}  // namespace

const std::vector<LogSignature>& log_signatures() {
  static const std::vector<LogSignature> t = make_signatures();
  return t;
}

const LogSignature* find_log_signature(const std::string& id) {
  const auto& t = log_signatures();
  auto it = std::find_if(t.begin(), t.end(), [&](const LogSignature& s) { return s.id == id; });
  return it == t.end() ? nullptr : &*it;
}

const std::vector<SymptomFunnel>& symptom_funnels() {
  static const std::vector<SymptomFunnel> s = make_symptoms();
  return s;
}

const SymptomFunnel* find_symptom(const std::string& name) {
  const auto& s = symptom_funnels();
  auto it = std::find_if(s.begin(), s.end(), [&](const SymptomFunnel& f) { return f.name == name; });
  return it == s.end() ? nullptr : &*it;
}

}  // namespace plumb
