// Context: what every collector needs to know about this run: the root of every read, the
// target process, library paths, the deadline.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/host_root.h"

namespace plumb {

struct Context {
  HostRoot root{"/"};
  int pid = 0;                    // target process; 0 means plumb itself (/proc/self)
  std::string nvml_lib;           // --nvml-lib or PLUMB_NVML_LIB; empty: libnvidia-ml.so.1
  std::string kmsg_file;          // --kmsg FILE instead of /dev/kmsg
  std::vector<std::string> data_paths;  // --data PATH: dataset locations to check
  std::string python;             // --python PATH for the framework probe
  std::string model_repo;         // --model-repo DIR: a Triton model repository to lint
  std::string bench = "none";     // --bench quick|none
  // --cuda-context: where the CUDA device query creates a context (idle | always | never).
  std::string cuda_context = "idle";
  std::chrono::milliseconds deadline{5000};  // per collector

  // "/proc/self" or "/proc/<pid>", to be passed through root.path()/read().
  [[nodiscard]] std::string proc_dir() const {
    return pid > 0 ? "/proc/" + std::to_string(pid) : std::string("/proc/self");
  }
};

}  // namespace plumb
