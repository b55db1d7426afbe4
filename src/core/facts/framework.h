// Facts of the framework layer: what the Python probe found: interpreter, PyTorch,
// TensorFlow, JAX, ONNX Runtime, numpy, h5py, and the allocator/determinism variables it saw.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// The interpreter the probe ran.
struct PythonFacts {
  std::string executable;  // sys.executable as the interpreter reports it
  std::string version;     // "3.11.2"
  std::string chosen_by;   // "--python" | "pid 1234 (/proc/1234/exe)" | "python3 on PATH"
  bool operator==(const PythonFacts&) const = default;
};
PLUMB_JSON(PythonFacts, executable, version, chosen_by)

struct TorchDevice {
  std::string name;                             // torch.cuda.get_device_name(i)
  std::string capability;                       // "8.0"
  std::optional<std::uint64_t> total_memory_bytes;
  bool operator==(const TorchDevice&) const = default;
};
PLUMB_JSON(TorchDevice, name, capability, total_memory_bytes)

// A cuDNN/NCCL copy the probe's interpreter mapped after importing torch (its /proc/self/maps),
// with the version its own getter (cudnnGetVersion, ncclGetVersion) returned.
struct TorchMappedLib {
  std::string lib;      // cudnn | nccl
  std::string path;
  std::string version;  // decoded ("9.1.0", "2.21.5"); empty when the getter did not answer
  std::string error;    // why there is no version
  bool deleted = false; // the kernel marked the mapping " (deleted)"
  bool operator==(const TorchMappedLib&) const = default;
};
PLUMB_JSON(TorchMappedLib, lib, path, version, error, deleted)

struct TorchFacts {
  std::string version;                        // torch.__version__ ("2.5.1+cu124", "1.13.0a0")
  std::optional<std::string> cuda;            // torch.version.cuda; null: not a CUDA build
  std::optional<std::string> hip;             // torch.version.hip; set on ROCm builds
  std::optional<std::string> cudnn_compiled;  // cuDNN version torch was built against ("9.1.0")
  std::optional<std::string> cudnn_runtime;   // cuDNN version the probe process loaded
  std::optional<std::string> nccl;            // torch.cuda.nccl.version() ("2.21.5")
  std::optional<bool> cuda_available;         // torch.cuda.is_available()
  std::string cuda_warning;                   // what torch said while checking (driver too old, ...)
  std::optional<int> device_count;
  std::vector<TorchDevice> devices;
  std::vector<std::string> arch_list;         // torch.cuda.get_arch_list(): sm_80, ...
  std::optional<bool> cudnn_enabled;          // torch.backends.cudnn.enabled
  std::optional<bool> cudnn_benchmark;        // ... .benchmark (a fresh interpreter's default)
  std::optional<bool> cudnn_deterministic;    // ... .deterministic
  std::optional<bool> deterministic_algorithms;  // torch.are_deterministic_algorithms_enabled()
  std::optional<bool> tf32_matmul;            // torch.backends.cuda.matmul.allow_tf32
  std::optional<bool> tf32_cudnn;             // torch.backends.cudnn.allow_tf32
  std::string float32_matmul_precision;       // torch.get_float32_matmul_precision()
  std::vector<TorchMappedLib> mapped_libs;    // cuDNN/NCCL the probe's interpreter mapped (CUDA builds)
  // Neither CUDA nor ROCm: the wheel cannot use a GPU whatever the driver.
  [[nodiscard]] bool cpu_only() const { return !cuda && !hip; }
  bool operator==(const TorchFacts&) const = default;
};
PLUMB_JSON(TorchFacts, version, cuda, hip, cudnn_compiled, cudnn_runtime, nccl, cuda_available, cuda_warning,
           device_count, devices, arch_list, cudnn_enabled, cudnn_benchmark, cudnn_deterministic,
           deterministic_algorithms, tf32_matmul, tf32_cudnn, float32_matmul_precision, mapped_libs)

struct TensorFlowFacts {
  std::string version;
  std::optional<bool> built_with_cuda;  // tf.test.is_built_with_cuda()
  std::optional<std::string> cuda;      // tf.sysconfig.get_build_info()["cuda_version"]
  std::optional<std::string> cudnn;     // ...["cudnn_version"]
  std::vector<std::string> gpus;        // tf.config.list_physical_devices("GPU")
  bool operator==(const TensorFlowFacts&) const = default;
};
PLUMB_JSON(TensorFlowFacts, version, built_with_cuda, cuda, cudnn, gpus)

struct JaxFacts {
  std::string version;
  std::string jaxlib;
  // The accelerator plugins installed beside jax, "jax-cuda13-plugin 0.11.2": read from their
  // dist-info folders, since asking jax for its backend or devices starts XLA on every GPU.
  std::vector<std::string> plugins;
  bool operator==(const JaxFacts&) const = default;
};
PLUMB_JSON(JaxFacts, version, jaxlib, plugins)

struct OnnxRuntimeFacts {
  std::string version;
  std::string device;                  // onnxruntime.get_device(): CPU | GPU
  std::vector<std::string> providers;  // get_available_providers()
  bool operator==(const OnnxRuntimeFacts&) const = default;
};
PLUMB_JSON(OnnxRuntimeFacts, version, device, providers)

struct NumpyFacts {
  std::string version;
  bool operator==(const NumpyFacts&) const = default;
};
PLUMB_JSON(NumpyFacts, version)

struct H5pyFacts {
  std::string version;
  std::string hdf5_version;            // h5py.version.hdf5_version: the libhdf5 it runs on
  std::map<std::string, bool> filters; // filter name -> h5z.filter_avail (gzip, szip, lzf, ...)
  bool operator==(const H5pyFacts&) const = default;
};
PLUMB_JSON(H5pyFacts, version, hdf5_version, filters)

struct FrameworkFacts {
  bool collected = false;
  // Missing with the reason when the probe could not run (no interpreter, timed out, garbage).
  Fact<PythonFacts> python;
  // Each package: missing "not installed (...)" or "import failed: ..." or the probe's failure.
  Fact<TorchFacts> torch;
  Fact<TensorFlowFacts> tensorflow;
  Fact<JaxFacts> jax;
  Fact<OnnxRuntimeFacts> onnxruntime;
  Fact<NumpyFacts> numpy;
  Fact<H5pyFacts> h5py;
  // The allocator/determinism/visibility variables set in the probe's environment (only those set).
  Fact<std::map<std::string, std::string>> env;
  bool operator==(const FrameworkFacts&) const = default;
};
PLUMB_JSON(FrameworkFacts, collected, python, torch, tensorflow, jax, onnxruntime, numpy, h5py, env)

}  // namespace plumb
