// Names and categories a profiler trace is judged by: event categories (modern and 2021 spellings),
// HTA's kernel types by name, memcpy kinds, synchronising and launching runtime calls.
#pragma once

#include <cstdint>
#include <string_view>

namespace plumb::trace {

// Event category, legacy names mapped to modern ones (kineto libkineto/include/ActivityType.h,
// libkineto/src/output_json.cpp; 2021 traces of kineto's tb_plugin samples).
enum class Cat : std::uint8_t {
  none,            // no "cat" (legacy autograd-profiler export, metadata)
  cpu_op,          // cpu_op | Operator
  user_annotation,
  gpu_user_annotation,
  python_function,
  runtime,         // cuda_runtime | cuda_driver | Runtime
  kernel,          // kernel | Kernel
  memcpy,          // gpu_memcpy | Memcpy
  memset,          // gpu_memset | Memset
  cuda_sync,
  instant,         // cpu_instant_event
  trace_span,      // Trace
  mtia,            // mtia_runtime | mtia_ccp_events | mtia_*
  profiler_range,  // cuda_profiler_range
  other,           // flows, overhead, anything else
};
Cat parse_cat(std::string_view s);

// HTA's kernel types (hta/common/types.py), decided by name only.
enum class KernelType : std::uint8_t { computation, communication, memory, other };
KernelType kernel_type(std::string_view name);

// "Memcpy HtoD (Pageable -> Device)" -> direction and whether the host side is pageable.
enum class CopyDir : std::uint8_t { htod, dtoh, dtod, other };
struct CopyKind {
  CopyDir dir = CopyDir::other;
  bool pageable = false;
};
CopyKind copy_kind(std::string_view name);

// Runtime calls that block the CPU until the GPU catches up.
bool is_sync_call(std::string_view name);
// Runtime calls that launch a kernel (or a graph of kernels).
bool is_launch_call(std::string_view name);
// Host-side queries that never enqueue GPU work (cudaEventQuery, NCCL's polling call, is three
// quarters of the runtime rows of an NCCL trace): no GPU row can carry their correlation id.
bool is_host_query_call(std::string_view name);

// Annotations the step breakdown keys on.
bool is_profiler_step(std::string_view name);  // ProfilerStep#N
bool is_dataloader(std::string_view name);     // enumerate(DataLoader)#...
bool is_optimizer(std::string_view name);      // Optimizer.step#..., Optimizer.zero_grad#...
bool is_cpu_copy(std::string_view name);       // aten::copy_, aten::to, aten::_to_copy
// N of "ProfilerStep#N"; -1 when the suffix is not a number.
std::int64_t step_number(std::string_view name);

}  // namespace plumb::trace
