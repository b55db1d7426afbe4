// The vocabulary signatures of `plumb diagnose` (see log_vocabulary.h). Patterns are written from
// the error vocabularies the stack prints, not from single cases: each family cites the public
// header, source file or document its words come from. A family whose id is already in the table
// (cuda_oom, exit_killed, ...) adds its patterns to that row.
#include "core/knowledge/log_vocabulary.h"

#include <algorithm>

namespace plumb {

namespace {

// CUDA runtime (cudaError_t, driver_types.h; messages of cudaGetErrorString) and driver (CUresult,
// cuda.h) names, numbers and messages, CUDA Toolkit 12.x
// (https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html,
// https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html).
const std::vector<CudaErrorEntry> kCudaErrors = {
    {"cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY", 2, "out of memory", "gpu_oom"},
    {"cudaErrorInitializationError", "CUDA_ERROR_NOT_INITIALIZED", 3, "initialization error", "cuda_init"},
    {"cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE", 46,
     "CUDA-capable device(s) is/are busy or unavailable", "gpu_busy"},
    {"cudaErrorInvalidDeviceFunction", "CUDA_ERROR_INVALID_IMAGE", 98, "invalid device function", "no_kernel_image"},
    {"cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", 100, "no CUDA-capable device is detected", "cuda_init"},
    {"cudaErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE", 101, "invalid device ordinal", "code_device"},
    {"cudaErrorStartupFailure", "", 127, "startup failure in cuda runtime", "cuda_init"},
    {"cudaErrorNvlinkUncorrectable", "CUDA_ERROR_NVLINK_UNCORRECTABLE", 220,
     "uncorrectable NVLink error detected during the execution", "gpu_fault"},
    {"cudaErrorUnsupportedPtxVersion", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", 222,
     "the provided PTX was compiled with an unsupported toolchain", "driver_mismatch"},
    {"cudaErrorPeerAccessUnsupported", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", 217,
     "peer access is not supported between these two devices", "gpu_peer_access"},
    {"cudaErrorOperatingSystem", "CUDA_ERROR_OPERATING_SYSTEM", 304,
     "OS call failed or operation not supported on this OS", "cuda_init"},
    {"cudaErrorLaunchTimeout", "CUDA_ERROR_LAUNCH_TIMEOUT", 702, "the launch timed out and was terminated", "gpu_fault"},
    {"cudaErrorAssert", "CUDA_ERROR_ASSERT", 710, "device-side assert triggered", "code_index"},
    {"cudaErrorHardwareStackError", "CUDA_ERROR_HARDWARE_STACK_ERROR", 714, "hardware stack error", "gpu_fault"},
    {"cudaErrorMisalignedAddress", "CUDA_ERROR_MISALIGNED_ADDRESS", 716, "misaligned address", "gpu_fault"},
    {"cudaErrorInvalidPc", "CUDA_ERROR_INVALID_PC", 718, "invalid program counter", "gpu_fault"},
    {"cudaErrorLaunchFailure", "CUDA_ERROR_LAUNCH_FAILED", 719, "unspecified launch failure", "gpu_fault"},
    {"cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY", 802, "system not yet initialized", "fabric_manager"},
    {"cudaErrorSystemDriverMismatch", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", 803,
     "system has unsupported display driver / cuda driver combination", "driver_mismatch"},
    {"cudaErrorCompatNotSupportedOnDevice", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", 804,
     "forward compatibility was attempted on non supported HW", "driver_mismatch"},
    {"cudaErrorMpsConnectionFailed", "CUDA_ERROR_MPS_CONNECTION_FAILED", 805,
     "MPS client failed to connect to the MPS control daemon or the MPS server", "cuda_init"},
    {"cudaErrorUnknown", "CUDA_ERROR_UNKNOWN", 999, "unknown error", "cuda_init"},
};

// A family: one signature row. `extra` are its patterns beyond the generated CUDA ones.
struct Family {
  const char* id;
  SignatureKind kind;
  Pillar pillar;
  Section section;
  std::vector<std::string> extra;
  std::vector<LogValueSpec> values;
  Text title, symptom, behaviour;
  std::vector<std::string> causes;
  Text fix;
  const char* verify;
  const char* source;
};

std::vector<Family> families() {
  using K = SignatureKind;
  std::vector<Family> f;
  // ---- GPU, driver and CUDA ----
  f.push_back({"cuda_init", K::infrastructure, Pillar::compute, Section::gpu,
               {R"(Found no NVIDIA driver on your system)",
                R"(NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver)",
                R"(Failed to initialize NVML: Unknown Error)", R"(Unexpected error from cudaGetDeviceCount\(\))",
                R"(libcuda\.so(\.1)?: cannot open shared object file)", R"(NVML_ERROR_DRIVER_NOT_LOADED)",
                R"(NVML Shared Library Not Found)", R"(NVML_ERROR_LIBRARY_NOT_FOUND)",
                R"(could not select device driver [^ ]* ?with capabilities: \[\[gpu\]\])",
                R"(nvidia-container-cli: (initialization|mount|detection) error)",
                R"(unknown or invalid runtime name: nvidia)", R"(NVRM: [^ ].*RmInitAdapter failed)",
                R"(NVRM: The NVIDIA probe routine (was not called|failed))", R"(CUDA driver initialization failed)"},
               {{"code", R"((cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+|NVML_ERROR_[A-Z_]+))"},
                {"code", R"(Error ([0-9]+): )"}},
               {"CUDA cannot start or sees no usable GPU", "CUDA 无法启动或看不到可用的 GPU"},
               {"{where}: the CUDA driver or NVML did not start ({code}; {count} line(s)).",
                "{where}：CUDA 驱动或 NVML 未能启动（{code}；{count} 行）。"},
               {"the framework falls back to the CPU or stops at the first CUDA call",
                "框架退回 CPU，或在第一次 CUDA 调用处停止"},
               {"l3.gpu.count", "l3.gpu.device_query", "l3.framework.cuda_unavailable",
                "l3.gpu.nvml_responsive", "l3.gpu.device_lost"},
               {"Check that the NVIDIA kernel module is loaded and matches the user-space driver; in a container, run it "
                "with the NVIDIA runtime (--gpus all) and the device nodes mounted.",
                "确认 NVIDIA 内核模块已加载且与用户态驱动版本一致；在容器中使用 NVIDIA 运行时（--gpus all）并挂载设备节点。"},
               "nvidia-smi; cat /proc/driver/nvidia/version",
               "cuda_runtime_api.h / driver_types.h (cudaError_t); nvml.h (nvmlReturn_t); NVIDIA Container Toolkit "
               "troubleshooting (https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/troubleshooting.html)"});
  f.push_back({"driver_mismatch", K::infrastructure, Pillar::compute, Section::gpu,
               {R"(Driver/library version mismatch)", R"(NVML_ERROR_LIB_RM_VERSION_MISMATCH)", R"(RM has detected an NVML/RM version mismatch)",
                R"(NVRM: API mismatch)", R"(NVRM: loading NVIDIA UNIX[^\n]*Kernel Module +[0-9.]+)"},
               {{"code", R"((cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+|NVML_ERROR_[A-Z_]+))"},
                {"code", R"(Error ([0-9]+): )"},
                {"client", R"(client has the version ([0-9.]+))"}, {"kernel", R"(this kernel module has the version ([0-9.]+))"}},
               {"NVIDIA driver pieces of different versions", "NVIDIA 驱动各组件版本不一致"},
               {"{where}: the kernel module, the user-space driver libraries and the CUDA runtime disagree ({code}; "
                "{count} line(s)).",
                "{where}：内核模块、用户态驱动库与 CUDA 运行时的版本不一致（{code}；{count} 行）。"},
               {"every CUDA or NVML call fails until the versions agree", "在版本一致之前，每个 CUDA 或 NVML 调用都会失败"},
               {"l3.gpu.driver_module_version", "l3.gpu.cuda_driver_compat", "l3.gpu.lib_duplicates",
                "l3.framework.library_mismatch", "l3.gpu.toolkit_runtime"},
               {"After a driver upgrade, reboot (or unload and reload the nvidia modules) so that the kernel module and the "
                "libraries are one version; forward compatibility (cuda-compat) works on data-centre GPUs only.",
                "驱动升级后重启（或卸载并重新加载 nvidia 模块），使内核模块与库为同一版本；前向兼容（cuda-compat）只适用于数据中心 GPU。"},
               "cat /proc/driver/nvidia/version; nvidia-smi",
               "nvml.h (NVML_ERROR_LIB_RM_VERSION_MISMATCH); driver_types.h (cudaErrorSystemDriverMismatch, "
               "cudaErrorCompatNotSupportedOnDevice); CUDA Compatibility guide "
               "(https://docs.nvidia.com/deploy/cuda-compatibility/)"});
  f.push_back({"fabric_manager", K::infrastructure, Pillar::comm, Section::gpu,
               {R"([Ff]abric ?[Mm]anager[^\n]*([Ff]ail|not running|not started|[Ee]rror|inactive|timed out))",
                R"(nvidia-fabricmanager[^\n]*(failed|inactive|dead))", R"(NV_ERR_[A-Z_]*FABRIC)",
                R"(SXid \(PCI:[0-9a-fA-F:.]+\): [0-9]+)"},
               {{"code", R"((cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+|SXid))"}, {"code", R"(Error ([0-9]+): )"}},
               {"NVSwitch system not initialised (Fabric Manager)", "NVSwitch 系统未初始化（Fabric Manager）"},
               {"{where}: the GPUs of this NVSwitch system are not ready ({code}; {count} line(s)).",
                "{where}：此 NVSwitch 系统的 GPU 未就绪（{code}；{count} 行）。"},
               {"CUDA refuses work until the Fabric Manager has set up the NVLink fabric",
                "在 Fabric Manager 建立 NVLink 互联之前，CUDA 拒绝执行任务"},
               {"l3.gpu.fabric_manager", "l3.gpu.nvml_responsive", "l3.gpu.xid"},
               {"Start nvidia-fabricmanager (its version must equal the driver's) and wait for it before the job; on HGX "
                "systems it is required.",
                "启动 nvidia-fabricmanager（其版本须与驱动相同），作业开始前等待其就绪；HGX 系统必须运行它。"},
               "systemctl status nvidia-fabricmanager; nvidia-smi -q | grep -A2 Fabric",
               "driver_types.h (cudaErrorSystemNotReady); NVIDIA Fabric Manager User Guide "
               "(https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/)"});
  f.push_back({"gpu_fault", K::infrastructure, Pillar::compute, Section::gpu,
               {R"(uncorrectable NVLink error)", R"(PCIe Bus Error: severity=(Uncorrected|Corrected))",
                R"(AER: (Uncorrected|Multiple Uncorrected) )"},
               {{"code", R"((cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+))"}, {"code", R"(CUDA error: ([a-z ]+))"}},
               {"the GPU stopped a kernel (launch failure, hardware or link error)", "GPU 中止了 kernel（启动失败、硬件或链路错误）"},
               {"{where}: a GPU kernel failed in a way the hardware reports ({code}; {count} line(s)).",
                "{where}：GPU kernel 以硬件报告的方式失败（{code}；{count} 行）。"},
               {"the CUDA context is lost; every later call on that GPU fails", "CUDA 上下文丢失；此后该 GPU 上的调用全部失败"},
               {"l3.gpu.xid", "l3.kernel.xid_errors", "l3.gpu.ecc_errors", "l3.gpu.remapped_rows", "l3.gpu.temperature",
                "l3.gpu.pcie_width"},
               {"Read the Xid lines of the kernel log for that time; rerun with CUDA_LAUNCH_BLOCKING=1 to see the kernel; "
                "drain the GPU if Xid 48/63/64/74/79 or ECC errors show.",
                "查看当时内核日志中的 Xid 记录；用 CUDA_LAUNCH_BLOCKING=1 重跑以定位 kernel；若出现 Xid 48/63/64/74/79 或 ECC 错误，下线该 GPU。"},
               "dmesg -T | grep -E 'NVRM: Xid|AER'",
               "driver_types.h (cudaErrorLaunchFailure .. cudaErrorInvalidPc); Linux PCIe AER "
               "(https://www.kernel.org/doc/html/latest/PCI/pcieaer-howto.html)"});
  f.push_back({"gpu_busy", K::infrastructure, Pillar::compute, Section::gpu, {},
               {{"code", R"((cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+))"}},
               {"GPU busy or unavailable", "GPU 忙或不可用"},
               {"{where}: CUDA found the GPU busy or unavailable ({count} line(s)).",
                "{where}：CUDA 发现 GPU 忙或不可用（{count} 行）。"},
               {"an exclusive-process compute mode or another process keeps the job off the GPU",
                "独占进程计算模式或其他进程使作业无法使用 GPU"},
               {"l3.vram.foreign_processes", "l3.gpu.device_query", "l3.gpu.mig"},
               {"End the process that holds the GPU, or set the compute mode to Default (nvidia-smi -c 0).",
                "结束占用 GPU 的进程，或把计算模式设为 Default（nvidia-smi -c 0）。"},
               "nvidia-smi --query-gpu=compute_mode --format=csv; nvidia-smi --query-compute-apps=pid,used_memory --format=csv",
               "driver_types.h (cudaErrorDevicesUnavailable)"});
  f.push_back({"gpu_peer_access", K::infrastructure, Pillar::comm, Section::distributed, {},
               {{"code", R"((cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+))"}},
               {"GPU peer-to-peer access not supported", "GPU 之间不支持点对点访问"},
               {"{where}: CUDA refused peer access between two GPUs ({count} line(s)).",
                "{where}：CUDA 拒绝了两块 GPU 之间的点对点访问（{count} 行）。"},
               {"copies and collectives between the GPUs go through host memory or fail", "GPU 间的拷贝与集合通信经主机内存中转或失败"},
               {"l3.comm.pcie_acs", "l3.comm.iommu_mode", "l3.comm.p2p_disabled"},
               {"Disable ACS on the PCIe bridges and check the IOMMU mode; NCCL_P2P_DISABLE=1 avoids it at a cost.",
                "关闭 PCIe 桥上的 ACS 并检查 IOMMU 模式；NCCL_P2P_DISABLE=1 可绕过，但有性能代价。"},
               "nvidia-smi topo -p2p r", "driver_types.h (cudaErrorPeerAccessUnsupported)"});
  f.push_back({"gpu_oom", K::infrastructure, Pillar::memory, Section::gpu,
               {R"(Cuda failure 'out of memory')", R"(CUBLAS_STATUS_ALLOC_FAILED)", R"(CUDNN_STATUS_ALLOC_FAILED)",
                R"(OOM when allocating tensor)", R"(RESOURCE_EXHAUSTED: Out of memory)"},
               {{"code", R"((cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+|CUBLAS_STATUS_[A-Z_]+|CUDNN_STATUS_[A-Z_]+))"}},
               {"GPU memory allocation failed", "GPU 显存分配失败"},
               {"{where}: a GPU memory allocation failed outside PyTorch's caching allocator ({code}; {count} line(s)).",
                "{where}：PyTorch 缓存分配器之外的 GPU 显存分配失败（{code}；{count} 行）。"},
               {"the library (cuBLAS, cuDNN, NCCL, the CUDA context) cannot get memory the job already holds or another "
                "process holds",
                "库（cuBLAS、cuDNN、NCCL、CUDA 上下文）拿不到显存：被作业自身或其他进程占用"},
               {"l3.vram.foreign_processes", "l2.gpu.memory_used", "l3.gpu.mig"},
               {"See which processes hold GPU memory and end leftovers; otherwise lower the job's peak (batch, "
                "checkpointing) or leave headroom for the libraries' workspaces.",
                "查看哪些进程占用显存并结束残留进程；否则降低作业峰值（批次、检查点），或为库的工作区留出余量。"},
               "nvidia-smi --query-compute-apps=pid,used_memory --format=csv",
               "driver_types.h (cudaErrorMemoryAllocation); cublas_api.h (CUBLAS_STATUS_ALLOC_FAILED); cudnn.h"});
  f.push_back({"cuda_library_status", K::infrastructure, Pillar::compute, Section::framework,
               {R"(CUDNN_STATUS_(NOT_INITIALIZED|INTERNAL_ERROR|EXECUTION_FAILED|MAPPING_ERROR|ARCH_MISMATCH|RUNTIME_[A-Z_]+|LICENSE_ERROR|SUBLIBRARY_[A-Z_]+))",
                R"(CUBLAS_STATUS_(NOT_INITIALIZED|INTERNAL_ERROR|EXECUTION_FAILED|MAPPING_ERROR|ARCH_MISMATCH|LICENSE_ERROR))",
                R"(CUSOLVER_STATUS_(NOT_INITIALIZED|INTERNAL_ERROR|EXECUTION_FAILED))",
                R"(Could not load (library|dynamic library) '?libcudnn)", R"(Unable to load any of \{libcudnn)"},
               {{"code", R"((CUDNN_STATUS_[A-Z_]+|CUBLAS_STATUS_[A-Z_]+|CUSOLVER_STATUS_[A-Z_]+))"}},
               {"cuDNN / cuBLAS failed to start or run", "cuDNN / cuBLAS 启动或运行失败"},
               {"{where}: a CUDA library returned {code} ({count} line(s)).", "{where}：CUDA 库返回 {code}（{count} 行）。"},
               {"the library could not create its handle or run its kernel: out of GPU memory, a second copy of the "
                "library, or a GPU the build does not support",
                "库无法创建句柄或运行 kernel：显存不足、库存在第二份副本，或构建不支持该 GPU"},
               {"l3.vram.foreign_processes", "l3.gpu.lib_duplicates", "l3.framework.library_mismatch", "l3.gpu.toolkit_runtime",
                "l3.gpu.xid"},
               {"NOT_INITIALIZED and ALLOC_FAILED are usually GPU memory: check other processes; otherwise make one copy of "
                "cuDNN/cuBLAS visible (LD_LIBRARY_PATH, the wheel's own nvidia-* packages).",
                "NOT_INITIALIZED 与 ALLOC_FAILED 通常是显存不足：检查其他进程；否则只保留一份可见的 cuDNN/cuBLAS（LD_LIBRARY_PATH、wheel 自带的 nvidia-* 包）。"},
               "python -c 'import torch; print(torch.backends.cudnn.version())'",
               "cudnn_graph.h / cudnn.h (cudnnStatus_t); cublas_api.h (cublasStatus_t)"});
  // ---- NCCL ----
  f.push_back({"nccl_shm", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(failed to extend /dev/shm)", R"(posix_fallocate failed)", R"(Error while creating shared memory segment)",
                R"(shm_open\(?[^\n]*\)? failed)", R"(NCCL WARN [^\n]*/dev/shm)", R"(Unable to allocate shared memory)",
                R"(unable to open shared memory object </torch_)"},
               {{"file", R"((/dev/shm/[A-Za-z0-9_.-]+))"}, {"bytes", R"(to ([0-9]+) bytes)"}},
               {"shared memory (/dev/shm) exhausted", "共享内存（/dev/shm）耗尽"},
               {"{where}: a shared-memory segment could not be created or grown ({file}; {count} line(s)).",
                "{where}：无法创建或扩展共享内存段（{file}；{count} 行）。"},
               {"NCCL's intra-node transport (or the DataLoader) cannot place its buffers and the job aborts",
                "NCCL 的节点内传输（或 DataLoader）无法放置缓冲区，作业中止"},
               {"l3.storage.shm_size", "l3.memory.cgroup_limit"},
               {"Give /dev/shm room (docker --shm-size=16g, a Memory emptyDir on Kubernetes) and remove stale nccl-* "
                "files; NCCL_SHM_DISABLE=1 proves it at a cost.",
                "为 /dev/shm 留出空间（docker --shm-size=16g，Kubernetes 中使用 Memory 类型 emptyDir）并删除残留的 nccl-* 文件；"
                "NCCL_SHM_DISABLE=1 可验证，但有性能代价。"},
               "df -h /dev/shm; ls -la /dev/shm",
               "NCCL src/misc/shmutils.cc, src/transport/shm.cc (github.com/NVIDIA/nccl)"});
  f.push_back({"nccl_system_error", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(unhandled system error)", R"(ncclSystemError)", R"(NCCL Error 2([^0-9]|$))",
                R"(ncclRemoteError)", R"(remote process exited or there was a network error)", R"(NCCL Error 6([^0-9]|$))",
                R"(ncclUnhandledCudaError)", R"(unhandled cuda error)", R"(NCCL Error 1([^0-9]|$))",
                R"(ncclInternalError)", R"(internal error - please report this issue to the NCCL developers)",
                R"(NCCL WARN (Call to|socket|Net|NET)[^\n]*failed)", R"(NCCL WARN Cuda failure)"},
               {{"code", R"((nccl[A-Z][A-Za-z]+Error))"}, {"code", R"(NCCL Error ([0-9]+))"}},
               {"NCCL error (system, CUDA or remote)", "NCCL 错误（系统、CUDA 或远端）"},
               {"{where}: NCCL failed ({code}; {count} line(s)); the WARN lines before it name the call that failed.",
                "{where}：NCCL 失败（{code}；{count} 行）；其前的 WARN 行给出了失败的调用。"},
               {"the communicator aborts; the real cause is a system call (shared memory, memory registration, "
                "sockets) or a peer that died",
                "通信器中止；真正原因是某个系统调用（共享内存、内存注册、套接字）或对端进程退出"},
               {"l3.storage.shm_size", "l3.memory.memlock_limit", "l3.comm.socket_ifname", "l3.comm.ib_hca",
                "l3.comm.pcie_acs", "l3.comm.p2p_disabled"},
               {"Rerun with NCCL_DEBUG=WARN (or INFO) and read the first WARN line: it names the failed call.",
                "用 NCCL_DEBUG=WARN（或 INFO）重跑，读第一条 WARN：它给出失败的调用。"},
               "NCCL_DEBUG=WARN torchrun ...",
               "NCCL src/include/nccl.h.in (ncclResult_t), src/init.cc (ncclGetErrorString)"});
  f.push_back({"nccl_ib_memlock", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(ibv_reg_(dmabuf_)?mr(_iova2)? failed)", R"(Call to ibv_reg_[a-z_0-9]+ failed)",
                R"(NET/IB[^\n]*Cannot allocate memory)", R"(ibv_create_(cq|qp)[^\n]*Cannot allocate memory)",
                R"(RLIMIT_MEMLOCK)", R"(ibv_[a-z_]+[^\n]*failed[^\n]*Cannot allocate memory)"},
               {{"call", R"((ibv_[a-z_0-9]+))"}},
               {"RDMA memory registration failed (memlock)", "RDMA 内存注册失败（memlock）"},
               {"{where}: the NIC could not pin memory ({call}; {count} line(s)).", "{where}：网卡无法锁定内存（{call}；{count} 行）。"},
               {"NCCL's InfiniBand/RoCE transport cannot register its buffers and the communicator fails",
                "NCCL 的 InfiniBand/RoCE 传输无法注册缓冲区，通信器失败"},
               {"l3.memory.memlock_limit", "l3.memory.cgroup_limit", "l3.comm.ib_hca"},
               {"Raise the locked-memory limit to unlimited (ulimit -l unlimited; in Docker --ulimit memlock=-1; in Slurm "
                "PropagateResourceLimits).",
                "把锁定内存上限设为 unlimited（ulimit -l unlimited；Docker 中 --ulimit memlock=-1；Slurm 中 PropagateResourceLimits）。"},
               "ulimit -l", "NCCL src/misc/ibvwrap.cc; rdma-core libibverbs ibv_reg_mr(3)"});
  f.push_back({"nccl_no_interface", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(No usable listening interface found)", R"(no socket interface found)",
                R"(NET/Socket ?: No interface found)", R"(Bootstrap ?: Using (lo|docker[0-9]*|virbr[0-9]*):)",
                R"(NCCL_SOCKET_IFNAME[^\n]*(not found|no interface))"},
               {{"interface", R"(Using ([a-z0-9]+):)"}},
               {"no usable network interface for NCCL", "NCCL 找不到可用的网络接口"},
               {"{where}: NCCL found no usable interface, or picked {interface} ({count} line(s)).",
                "{where}：NCCL 找不到可用接口，或选择了 {interface}（{count} 行）。"},
               {"bootstrap and socket traffic go to an interface other nodes cannot reach", "引导与套接字流量走向其他节点无法访问的接口"},
               {"l3.comm.socket_ifname", "l3.comm.hostname_loopback", "l3.comm.firewall"},
               {"Set NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) to the cluster interface.",
                "把 NCCL_SOCKET_IFNAME（以及 GLOO_SOCKET_IFNAME）设为集群网卡。"},
               "ip -br addr", "NCCL src/misc/socket.cc, src/bootstrap.cc; NCCL environment variables documentation"});
  // ---- Gloo, c10d, sockets ----
  f.push_back({"gloo_hostname", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(Unable to resolve hostname to a \(local\) address)", R"(Using the loopback address as fallback)",
                R"(connectFullMesh failed)", R"(remote=\[127\.[0-9.]+\])", R"(Unable to find address for)",
                R"(gloo/transport/tcp/(pair|device)\.cc)"},
               {{"address", R"(remote=\[([0-9a-fA-F.:]+)\])"}},
               {"Gloo could not find a routable address", "Gloo 找不到可路由的地址"},
               {"{where}: Gloo fell back to or was sent to a loopback address ({address}; {count} line(s)).",
                "{where}：Gloo 退回或被引向回环地址（{address}；{count} 行）。"},
               {"ranks on other nodes dial a loopback address and the process group never forms",
                "其他节点上的 rank 连接到回环地址，进程组无法建立"},
               {"l3.comm.hostname_loopback", "l3.comm.socket_ifname", "l3.comm.firewall"},
               {"Map the host name to the routable address in /etc/hosts, or set GLOO_SOCKET_IFNAME to the cluster interface.",
                "在 /etc/hosts 中把主机名映射到可路由地址，或把 GLOO_SOCKET_IFNAME 设为集群网卡。"},
               "getent hosts $(hostname)", "Gloo gloo/transport/tcp/device.cc, pair.cc (github.com/pytorch/gloo)"});
  f.push_back({"port_in_use", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(Address already in use)", R"(errno: 98([^0-9]|$))", R"(EADDRINUSE)",
                R"(The server socket has failed to (listen|bind))"},
               {{"port", R"(:([0-9]{2,5})[^0-9])"}},
               {"rendezvous port already in use", "rendezvous 端口已被占用"},
               {"{where}: the rendezvous port is taken ({count} line(s)).", "{where}：rendezvous 端口已被占用（{count} 行）。"},
               {"the store or the rank-0 listener cannot bind and the job stops before training",
                "存储或 rank 0 的监听无法绑定端口，作业在训练前停止"},
               {},
               {"Pick a free MASTER_PORT (or --rdzv-endpoint with port 0 / a per-job port) and end the leftover process "
                "that holds it.",
                "选择空闲的 MASTER_PORT（或每个作业各自的端口），并结束占用它的残留进程。"},
               "ss -ltnp | grep <PORT>", "errno(3) EADDRINUSE; c10d TCPStore (torch/csrc/distributed/c10d/socket.cpp)"});
  f.push_back({"rendezvous_network", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(The client socket has timed out after)", R"(Timed out initializing process group in store based barrier)",
                R"(RendezvousTimeoutError)", R"(RendezvousConnectionError)", R"(Cannot assign requested address)",
                R"(errno: 99([^0-9]|$))", R"(Connection reset by peer)", R"(No route to host)", R"(Network is unreachable)",
                R"(Temporary failure in name resolution)", R"(Name or service not known)",
                R"(DistNetworkError)", R"(Socket Timeout)"},
               {{"errno", R"(errno: ([0-9]+))"}},
               {"rendezvous or store connection failed", "rendezvous 或存储连接失败"},
               {"{where}: a rank could not reach the rendezvous store or a peer ({count} line(s)).",
                "{where}：某个 rank 无法连接 rendezvous 存储或对端（{count} 行）。"},
               {"process-group set-up stops until the timeout", "进程组建立停滞直到超时"},
               {"l3.comm.socket_ifname", "l3.comm.hostname_loopback", "l3.comm.firewall", "l3.comm.torch_timeouts"},
               {"Check MASTER_ADDR resolves to the same routable address on every node, the port is open between nodes, "
                "and GLOO/NCCL_SOCKET_IFNAME name the cluster interface.",
                "确认 MASTER_ADDR 在每个节点上解析为同一可路由地址、节点间端口放行，且 GLOO/NCCL_SOCKET_IFNAME 指向集群网卡。"},
               "getent hosts $MASTER_ADDR; nc -zv $MASTER_ADDR $MASTER_PORT",
               "c10d TCPStore (torch/csrc/distributed/c10d/TCPStore.cpp, socket.cpp); torch.distributed.elastic rendezvous; "
               "errno(3)"});
  // ---- storage and files ----
  f.push_back({"disk_full", K::infrastructure, Pillar::data, Section::data,
               {R"(No space left on device)", R"(\[Errno 28\])", R"(ENOSPC)", R"(PytorchStreamWriter failed writing file)",
                R"(Disk quota exceeded)", R"(\[Errno 122\])", R"(EDQUOT)", R"(low on resource: ephemeral-storage)"},
               {{"path", R"(\[Errno 2[8]\] No space left on device: '([^']+)')"}, {"path", R"(writing file ([^ :]+))"}},
               {"a file system is full", "文件系统已满"},
               {"{where}: a write failed for lack of space or quota ({path}; {count} line(s)).",
                "{where}：写入因空间或配额不足而失败（{path}；{count} 行）。"},
               {"checkpoints, caches or shared memory cannot be written and the job stops", "检查点、缓存或共享内存无法写入，作业停止"},
               {"l3.storage.free_space", "l3.storage.shm_size"},
               {"Free space (or inodes) on the file system the job writes (checkpoints, /tmp, caches such as "
                "~/.cache, /dev/shm), or point the writes at a larger one (TMPDIR, HF_HOME).",
                "清理作业写入的文件系统（检查点、/tmp、~/.cache 等缓存、/dev/shm）的空间或 inode，或把写入指向更大的文件系统（TMPDIR、HF_HOME）。"},
               "df -h; df -i", "errno(3) ENOSPC, EDQUOT; Kubernetes node-pressure eviction (ephemeral-storage)"});
  f.push_back({"too_many_open_files", K::infrastructure, Pillar::data, Section::data,
               {R"(\[Errno 24\])", R"(EMFILE)", R"(errno: 24([^0-9]|$))"}, {}, {}, {}, {}, {}, {}, "", "errno(3) EMFILE"});
  // ---- memory and termination ----
  f.push_back({"kernel_oom_kill", K::infrastructure, Pillar::memory, Section::environment,
               {R"(invoked oom-killer)", R"(oom-kill:constraint=)", R"(Out of memory: Kill process [0-9]+)"},
               {}, {}, {}, {}, {}, {}, "", "Linux mm/oom_kill.c"});
  f.push_back({"exit_killed", K::infrastructure, Pillar::memory, Section::environment,
               {R"(OOMKilled)", R"(Exit Code: 137)", R"(exit code: 137)", R"(exited with code 137)"}, {}, {}, {}, {}, {}, {},
               "", "Kubernetes container states (Reason OOMKilled, exit code 137 = 128 + SIGKILL)"});
  f.push_back({"k8s_evicted", K::infrastructure, Pillar::memory, Section::environment,
               {R"(The node was low on resource: (memory|ephemeral-storage|pid))", R"(Reason: *Evicted)",
                R"(Status: *Failed[^\n]*Evicted)", R"(had condition: \[(MemoryPressure|DiskPressure|PIDPressure)\])"},
               {{"resource", R"(low on resource: ([a-z-]+))"}},
               {"pod evicted by the kubelet", "Pod 被 kubelet 驱逐"},
               {"{where}: the kubelet evicted the pod (node low on {resource}; {count} line(s)).",
                "{where}：kubelet 驱逐了 Pod（节点 {resource} 不足；{count} 行）。"},
               {"the job is stopped from outside when the node runs short", "节点资源不足时作业被外部停止"},
               {"l3.memory.cgroup_limit", "l3.kernel.oom_kills"},
               {"Set the pod's requests equal to what it uses (memory, ephemeral-storage) and clean the node's disk.",
                "把 Pod 的 requests 设为实际用量（memory、ephemeral-storage），并清理节点磁盘。"},
               "kubectl describe pod <POD>",
               "Kubernetes node-pressure eviction (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/)"});
  f.push_back({"scheduler_cancelled", K::infrastructure, Pillar::platform, Section::environment,
               {R"(DUE TO TIME LIMIT)", R"(DUE TO NODE FAIL)", R"(DUE TO PREEMPTION)",
                R"(slurmstepd: error: \*\*\* (JOB|STEP) [0-9.]+ ON [^ ]+ CANCELLED)", R"(srun: error: Node failure on)",
                R"(DeadlineExceeded)"},
               {{"reason", R"(DUE TO ([A-Z ]+[A-Z]))"}},
               {"the scheduler ended the job", "调度器结束了作业"},
               {"{where}: the batch scheduler cancelled the job ({reason}; {count} line(s)).",
                "{where}：批处理调度器取消了作业（{reason}；{count} 行）。"},
               {"every rank is killed at once, often mid-step or mid-checkpoint", "所有 rank 同时被杀死，常发生在 step 或检查点中途"},
               {},
               {"TIME LIMIT: ask for more time (--time) or checkpoint and requeue; NODE FAIL: look at the node's health "
                "(scontrol show node) and drain it.",
                "TIME LIMIT：申请更长时间（--time）或保存检查点后重新排队；NODE FAIL：检查节点状态（scontrol show node）并下线。"},
               "sacct -j <JOBID> -o JobID,State,Elapsed,Timelimit,NodeList",
               "Slurm slurmstepd / sacct job states (https://slurm.schedmd.com/sacct.html#SECTION_JOB-STATE-CODES)"});
  f.push_back({"segfault", K::infrastructure, Pillar::platform, Section::framework,
               {R"(Segmentation fault)", R"(exitcode *: *-11([^0-9]|$))", R"(Signal 11 \(SIGSEGV\))", R"(SIGSEGV)",
                R"(exit (code|status) 139)"},
               {}, {"a process died of a segmentation fault", "进程因段错误退出"},
               {"{where}: a process crashed with SIGSEGV ({count} line(s)).", "{where}：进程因 SIGSEGV 崩溃（{count} 行）。"},
               {"native code (a library, an extension) read invalid memory", "原生代码（库、扩展）访问了无效内存"},
               {"l3.gpu.lib_duplicates", "l3.framework.library_mismatch", "l3.storage.shm_size"},
               {"Get the native stack (faulthandler, gdb -p, or a core dump) and check that one copy of each CUDA library "
                "is loaded.",
                "获取原生调用栈（faulthandler、gdb -p 或 core dump），并确认每个 CUDA 库只加载了一份。"},
               "python -X faulthandler train.py", "signal(7) SIGSEGV; Python faulthandler"});
  // ---- CPU threads and runtimes ----
  f.push_back({"thread_exhaustion", K::infrastructure, Pillar::compute, Section::environment,
               {R"(OMP: Error #34)", R"(OMP: Error #179)", R"(libgomp: Thread creation failed)",
                R"(pthread_create failed)", R"(can't start new thread)", R"(blas_thread_init: pthread_create failed)",
                R"(Resource temporarily unavailable[^\n]*thread)"},
               {{"omp_error", R"(OMP: Error #([0-9]+))"}},
               {"threads could not be created", "无法创建线程"},
               {"{where}: the OpenMP/BLAS runtime could not start its threads ({count} line(s)).",
                "{where}：OpenMP/BLAS 运行时无法启动线程（{count} 行）。"},
               {"too many threads per process times processes per node hit the task limit", "每进程线程数乘以每节点进程数触及任务数上限"},
               {"l3.compute.thread_oversubscription", "l3.memory.cgroup_limit"},
               {"Set OMP_NUM_THREADS (and MKL/OPENBLAS_NUM_THREADS) to the cores per process; raise the pids limit "
                "(ulimit -u, the container's pids-limit) if it is low.",
                "把 OMP_NUM_THREADS（及 MKL/OPENBLAS_NUM_THREADS）设为每个进程的核数；若 pids 上限过低，调高它（ulimit -u、容器的 pids-limit）。"},
               "ulimit -u; cat /sys/fs/cgroup/pids.max",
               "LLVM/Intel OpenMP runtime messages (kmp_i18n, i18n/en_US.txt); libgomp team.c; pthread_create(3) EAGAIN"});
  f.push_back({"omp_runtime_conflict", K::infrastructure, Pillar::compute, Section::framework,
               {R"(OMP: Error #15)", R"(Initializing libiomp5[a-z]*\.(so|dll|dylib), but found libiomp5)",
                R"(MKL_THREADING_LAYER=INTEL is incompatible with libgomp)", R"(Intel MKL FATAL ERROR)",
                R"(INTEL MKL ERROR)"},
               {}, {"two OpenMP or MKL runtimes in one process", "一个进程中加载了两个 OpenMP 或 MKL 运行时"},
               {"{where}: a second OpenMP/MKL runtime was loaded ({count} line(s)).", "{where}：加载了第二个 OpenMP/MKL 运行时（{count} 行）。"},
               {"the runtime aborts the process (or threads misbehave)", "运行时中止进程（或线程行为异常）"},
               {"l3.framework.library_mismatch", "l3.gpu.lib_duplicates"},
               {"Install the packages from one channel so that one libiomp5/libgomp is loaded; MKL_THREADING_LAYER=GNU "
                "when libgomp must stay.",
                "从同一渠道安装软件包，使进程只加载一个 libiomp5/libgomp；必须保留 libgomp 时设置 MKL_THREADING_LAYER=GNU。"},
               "python -c 'import torch, numpy; numpy.show_config()'",
               "LLVM/Intel OpenMP runtime messages (i18n/en_US.txt: OMP: Error #15); Intel oneMKL developer guide"});
  // ---- DataLoader, watchdog, memory summary ----
  f.push_back({"dataloader_shm", K::infrastructure, Pillar::data, Section::data, {R"(Bus error \(core dumped\))"}, {}, {}, {}, {},
               {}, {}, "", "PyTorch torch/utils/data/_utils/signal_handling.py"});
  f.push_back({"dataloader_exited", K::infrastructure, Pillar::data, Section::data,
               {R"(DataLoader worker \(pid\(s\) [0-9, ]+\) exited unexpectedly)"},
               {{"pids", R"(pid\(s\) ([0-9, ]+)\))"}},
               {"DataLoader worker exited unexpectedly", "DataLoader worker 意外退出"},
               {"{where}: DataLoader worker(s) {pids} died ({count} line(s)); an earlier line often gives the signal.",
                "{where}：DataLoader worker {pids} 退出（{count} 行）；前面的日志通常给出信号。"},
               {"the main process loses its workers and the epoch stops", "主进程失去 worker，当前 epoch 停止"},
               {"l3.storage.shm_size", "l3.kernel.oom_kills", "l3.memory.cgroup_limit", "l3.data.open_files_limit"},
               {"Run with num_workers=0 to see the worker's own error; give /dev/shm and host RAM room.",
                "用 num_workers=0 运行以看到 worker 自身的错误；为 /dev/shm 与主机内存留出余量。"},
               "df -h /dev/shm; dmesg -T | grep -i oom", "PyTorch torch/utils/data/dataloader.py (_MultiProcessingDataLoaderIter)"});
  f.push_back({"nccl_watchdog_timeout", K::infrastructure, Pillar::comm, Section::distributed,
               {R"(ProcessGroupNCCL's watchdog got stuck)", R"(Heartbeat monitor timed out)",
                R"(Some NCCL operations have failed or timed out)"},
               {}, {}, {}, {}, {}, {}, "", "c10d ProcessGroupNCCL.cpp (watchdog, heartbeat monitor)"});
  f.push_back({"memory_summary", K::infrastructure, Pillar::memory, Section::gpu,
               {R"(PyTorch CUDA memory summary, device ID [0-9]+)"},
               {{"gpu", R"(device ID ([0-9]+))"}},
               {"a CUDA memory summary in the log", "日志中有 CUDA 显存摘要"},
               {"{where}: the log holds torch.cuda.memory_summary() of GPU {gpu}: `plumb memory` reads it.",
                "{where}：日志包含 GPU {gpu} 的 torch.cuda.memory_summary()：可用 `plumb memory` 分析。"},
               {"the allocator's reserved and allocated figures tell fragmentation from the job's own peak",
                "分配器的预留与已分配数值可区分碎片化与作业自身峰值"},
               {"l3.vram.foreign_processes", "l2.gpu.memory_used"},
               {"Run `plumb memory` on the summary: it says whether the memory is fragmented or used.",
                "对摘要运行 `plumb memory`：它会判断显存是碎片化还是被占用。"},
               "plumb memory <LOG>", "PyTorch torch/cuda/memory.py (memory_summary)"});
  // ---- progress: no failure, read by the hang guess ----
  f.push_back({"nccl_ready", K::progress, Pillar::comm, Section::distributed,
               {R"(NCCL INFO [^\n]*Init COMPLETE)", R"(NCCL INFO Connected all (rings|trees))",
                R"(NCCL INFO Channel [0-9]+/[0-9]+ ?: )", R"(NCCL INFO [^\n]*via (P2P|SHM|NET)/)",
                R"(NCCL INFO ncclCommInitRank comm 0x)"},
               {}, {"NCCL set-up finished", "NCCL 初始化完成"}, {"{where}: NCCL set up its channels.", "{where}：NCCL 建立了通道。"},
               {"the first collective follows", "随后是第一个集合通信"}, {}, {}, "", "NCCL src/init.cc, src/transport.cc INFO lines"});
  // ---- code and data bugs: the log itself shows them ----
  f.push_back({"code_shape", K::code, Pillar::compute, Section::framework,
               {R"(size mismatch for [A-Za-z0-9_.]+)", R"(shapes cannot be multiplied)",
                R"(The size of tensor a \([0-9]+\) must match the size of tensor b)",
                R"(shape '\[[^]]*\]' is invalid for input of size)", R"(Expected input batch_size \([0-9]+\) to match target batch_size)",
                R"(expected input\[[^]]*\] to have [0-9]+ channels, but got [0-9]+ channels)",
                R"(Error\(s\) in loading state_dict)", R"(Sizes of tensors must match except in dimension)",
                R"(Target size \([^)]*\) must be the same as input size)"},
               {}, {"tensor shape mismatch in the job's code", "作业代码中的张量形状不匹配"},
               {"{where}: two tensors (or a checkpoint and the model) have different shapes ({count} line(s)).",
                "{where}：两个张量（或检查点与模型）的形状不同（{count} 行）。"},
               {"the operation raises before any GPU work", "该运算在任何 GPU 计算之前报错"}, {},
               {"Look at the shapes printed in the message: the model definition, the input pipeline (channels, batch) or "
                "the checkpoint that does not fit.",
                "查看报错中的形状：模型定义、输入管道（通道数、批次）或不匹配的检查点。"},
               "", "PyTorch ATen shape checks (aten/src/ATen/native, torch/nn/modules/module.py load_state_dict)"});
  f.push_back({"code_dtype", K::code, Pillar::compute, Section::framework,
               {R"(expected scalar type [A-Za-z]+ but found [A-Za-z]+)",
                R"(Input type \([^)]*\) and weight type \([^)]*\) should be the same)",
                R"(can't be cast to the desired output type)", R"(Expected object of scalar type)",
                R"(must have the same dtype)", R"(found dtype [A-Za-z]+ but expected [A-Za-z]+)"},
               {}, {"tensor dtype or device-type mismatch in the job's code", "作业代码中的张量数据类型不匹配"},
               {"{where}: an operation got tensors of different dtypes ({count} line(s)).",
                "{where}：某个运算收到了数据类型不同的张量（{count} 行）。"},
               {"the operation raises", "该运算报错"}, {},
               {"Cast the inputs (or the model) to one dtype; look at the autocast region and the data pipeline's dtype.",
                "把输入（或模型）转换为同一数据类型；检查 autocast 区域与数据管道的数据类型。"},
               "", "PyTorch ATen type checks (c10/core/ScalarType.h)"});
  f.push_back({"code_index", K::code, Pillar::compute, Section::framework,
               {R"(Assertion `[^`]*` failed)", R"(index out of range in self)", R"(IndexError: )",
                R"(Target -?[0-9]+ is out of bounds)", R"(srcIndex < srcSelectDimSize)"},
               {}, {"index out of range / device-side assert", "索引越界 / 设备端断言"},
               {"{where}: an index (a label, a token id, an embedding row) is out of range ({count} line(s)).",
                "{where}：某个索引（标签、token id、嵌入行）越界（{count} 行）。"},
               {"a kernel asserts and the CUDA context is lost", "kernel 断言失败，CUDA 上下文丢失"}, {},
               {"Look at the labels and ids the data feeds (num_classes, vocabulary size); rerun with "
                "CUDA_LAUNCH_BLOCKING=1 or on the CPU to see the failing line.",
                "检查数据中的标签与 id（num_classes、词表大小）；用 CUDA_LAUNCH_BLOCKING=1 或在 CPU 上重跑以定位出错行。"},
               "CUDA_LAUNCH_BLOCKING=1 python train.py", "driver_types.h (cudaErrorAssert); PyTorch ATen index kernels"});
  f.push_back({"code_python", K::code, Pillar::platform, Section::framework,
               {R"(KeyError: )", R"(SyntaxError: )", R"(IndentationError: )", R"(NameError: name ')",
                R"(ModuleNotFoundError: No module named)", R"(ImportError: cannot import name)",
                R"(AttributeError: '[A-Za-z_.]+' object has no attribute)",
                R"(TypeError: [A-Za-z_.]+\(\) (got an unexpected keyword argument|missing [0-9]+ required))",
                R"(FileNotFoundError: \[Errno 2\])"},
               {{"error", R"(([A-Za-z]+Error): )"}},
               {"a Python error in the job's code or environment", "作业代码或环境中的 Python 错误"},
               {"{where}: the job raised {error} ({count} line(s)).", "{where}：作业抛出 {error}（{count} 行）。"},
               {"the job stops at that line", "作业在该行停止"}, {},
               {"Look at the last frame of the traceback: the key, name, module or file it names comes from the job's "
                "code, configuration or installed packages.",
                "查看 traceback 的最后一帧：其中的键、名称、模块或文件来自作业的代码、配置或已安装的包。"},
               "", "Python built-in exceptions (https://docs.python.org/3/library/exceptions.html)"});
  f.push_back({"code_device", K::code, Pillar::compute, Section::framework,
               {R"(Expected all tensors to be on the same device)", R"(Duplicate GPU detected)",
                R"(ncclInvalidUsage)", R"(NCCL Error 5([^0-9]|$))",
                R"(Attempting to deserialize object on CUDA device [0-9]+ but torch\.cuda\.device_count\(\) is)",
                R"(Input and parameter tensors are not at the same device)"},
               {}, {"tensors or ranks on the wrong device", "张量或 rank 位于错误的设备"},
               {"{where}: the job put tensors or ranks on devices that do not fit ({count} line(s)).",
                "{where}：作业把张量或 rank 放在了不匹配的设备上（{count} 行）。"},
               {"the operation or the communicator refuses to start", "该运算或通信器拒绝启动"}, {},
               {"Look at the device placement: .to(device) of model and inputs, LOCAL_RANK to GPU mapping, "
                "CUDA_VISIBLE_DEVICES and map_location when loading.",
                "检查设备放置：模型与输入的 .to(device)、LOCAL_RANK 与 GPU 的映射、CUDA_VISIBLE_DEVICES，以及加载时的 map_location。"},
               "", "driver_types.h (cudaErrorInvalidDevice); NCCL nccl.h.in (ncclInvalidUsage)"});
  f.push_back({"code_autograd", K::code, Pillar::compute, Section::framework,
               {R"(modified by an inplace operation)", R"(Trying to backward through the graph a second time)",
                R"(does not require grad and does not have a grad_fn)",
                R"(Expected to have finished reduction in the prior iteration)",
                R"(Detected mismatch between collectives on ranks)"},
               {}, {"autograd or DDP misuse in the job's code", "作业代码误用 autograd 或 DDP"},
               {"{where}: the backward pass or DDP's reduction was used against its rules ({count} line(s)).",
                "{where}：反向传播或 DDP 的归约违反了其使用规则（{count} 行）。"},
               {"the step raises", "该 step 报错"}, {},
               {"Look at the model's forward: in-place ops on saved tensors, parameters unused in the loss "
                "(find_unused_parameters=True), collectives called in a different order on different ranks.",
                "检查模型的 forward：对保存张量的原地操作、未参与 loss 的参数（find_unused_parameters=True）、各 rank 调用集合通信的顺序不同。"},
               "TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun ...",
               "PyTorch torch/csrc/autograd; torch/nn/parallel/distributed.py"});
  return f;
}

}  // namespace

const std::vector<CudaErrorEntry>& cuda_error_vocabulary() { return kCudaErrors; }

std::string literal_pattern(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\.^$|?*+()[]{}/-").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

void append_vocabulary_signatures(std::vector<LogSignature>& t) {
  auto find = [&](const std::string& id) -> LogSignature* {
    auto it = std::find_if(t.begin(), t.end(), [&](const LogSignature& s) { return s.id == id; });
    return it == t.end() ? nullptr : &*it;
  };
  for (auto& fam : families()) {
    LogSignature* s = find(fam.id);
    if (s == nullptr) {
      LogSignature n;
      n.id = fam.id;
      n.kind = fam.kind;
      n.pillar = fam.pillar;
      n.section = fam.section;
      n.values = fam.values;
      n.title = fam.title;
      n.symptom = fam.symptom;
      n.behaviour = fam.behaviour;
      n.causes = fam.causes;
      n.fix = fam.fix;
      n.verify = fam.verify;
      n.source = fam.source;
      t.push_back(std::move(n));
      s = &t.back();
    }
    for (auto& p : fam.extra) s->patterns.push_back(p);
  }
  // The CUDA vocabulary's generated patterns: the names, "CUDA error: <message>" (PyTorch's
  // C10_CUDA_CHECK), "Cuda failure '<message>'" (NCCL's CUDACHECK), "Error <n>: <message>" (PyTorch's
  // cudaGetDeviceCount warning), "CUDA error <n>".
  for (const auto& e : kCudaErrors) {
    LogSignature* s = find(e.family);
    if (s == nullptr) continue;
    const std::string msg = literal_pattern(e.message);
    const std::string n = std::to_string(e.number);
    s->patterns.push_back(e.runtime_name);
    if (e.driver_name[0] != '\0') s->patterns.push_back(e.driver_name);
    s->patterns.push_back("CUDA error: " + msg);
    s->patterns.push_back("Cuda failure '" + msg + "'");
    s->patterns.push_back("Error " + n + ": " + msg);
    if (e.number >= 100) s->patterns.push_back("CUDA (driver )?error:? \\(?" + n + "\\)?([^0-9]|$)");
  }
}

}  // namespace plumb
