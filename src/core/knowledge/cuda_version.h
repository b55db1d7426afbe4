// Version encodings of the CUDA stack (NVML API reference nvmlSystemGetCudaDriverVersion, CUDA
// cudaRuntimeGetVersion, cudnn_version.h CUDNN_VERSION, NVIDIA/nccl src/nccl.h.in NCCL_VERSION)
// and the small text formats that carry versions. All pure and total on garbage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plumb {

// cudaRuntimeGetVersion / cuDriverGetVersion / NVML: 1000*major + 10*minor (13000 -> "13.0",
// 12020 -> "12.2"). Empty for values <= 0 (0 means "no driver").
std::string decode_cuda_version(long long v);
// cudnnGetVersion: >= 90000 is 10000*major + 100*minor + patch (91900 -> "9.19.0"), below that
// 1000*major + 100*minor + patch (8907 -> "8.9.7").
std::string decode_cudnn_version(long long v);
// ncclGetVersion: NCCL_VERSION(X,Y,Z) is X*1000+Y*100+Z up to 2.8 (2804 -> "2.8.4") and
// X*10000+Y*100+Z from 2.9 (22809 -> "2.28.9").
std::string decode_nccl_version(long long v);

// "535.183.01" -> {535,183,1}; "13.0" -> {13,0}. Nullopt unless dot-separated decimal numbers.
std::optional<std::vector<int>> parse_version_numbers(std::string_view s);
// Numeric comparison of dotted versions (570.26 < 570.124.06): <0, 0, >0. Missing parts count as 0.
int compare_versions(const std::vector<int>& a, const std::vector<int>& b);

// The version part of a library file name: ("libcudart.so.12.4.127", "libcudart.so") -> "12.4.127";
// "" when the name has no version or does not start with the stem.
std::string soname_version(std::string_view file_name, std::string_view stem);

// /usr/local/cuda/version.json (CUDA >= 11.1): {"cuda": {"version": "12.4.1"}} -> "12.4.1".
std::optional<std::string> parse_cuda_version_json(std::string_view text);
// /usr/local/cuda/version.txt (CUDA <= 11.0): "CUDA Version 10.2.89" -> "10.2.89".
std::optional<std::string> parse_cuda_version_txt(std::string_view text);
// `nvcc --version`: "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88".
std::optional<std::string> parse_nvcc_version(std::string_view text);
// A pip dist-info directory name: "nvidia_cublas-13.1.0.3.dist-info" -> {"nvidia_cublas", "13.1.0.3"}.
std::optional<std::pair<std::string, std::string>> parse_dist_info_name(std::string_view name);
// The size a pip RECORD gives to the file named `base_name` (PyPA's "Recording installed projects":
// one CSV row per installed file, "path,sha256=<digest>,size", the path relative to site-packages).
// Nullopt when no row's path ends in that name or its size is not a decimal number.
std::optional<std::uint64_t> record_file_size(std::string_view record, std::string_view base_name);
// cudnnGetVersion's integer for a dotted cuDNN version ("9.19.0.56" -> 91900, "8.9.2.26" -> 8902);
// nullopt unless it has a major, minor and patch in range.
std::optional<int> encode_cudnn_version(std::string_view dotted);

}  // namespace plumb
