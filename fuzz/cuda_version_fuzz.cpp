// Fuzzes the CUDA-stack version parsers (version.json/txt, nvcc output, file and dist-info names,
// pip RECORD files, NVML bus ids) and the integer encoders and decoders.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "collect/gpu_nvml.h"
#include "core/knowledge/cuda_compat.h"
#include "core/knowledge/cuda_version.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  plumb::parse_cuda_version_json(s);
  plumb::parse_cuda_version_txt(s);
  plumb::parse_nvcc_version(s);
  plumb::parse_dist_info_name(s);
  plumb::record_file_size(s, "libcudnn.so.9");
  plumb::encode_cudnn_version(s);
  plumb::soname_version(s, "libcudart.so");
  plumb::normalise_bus_id(s);
  auto v = plumb::parse_version_numbers(s);
  if (v) plumb::compare_versions(*v, {535, 183, 1});
  long long n = 0;
  std::memcpy(&n, data, size < sizeof n ? size : sizeof n);
  plumb::decode_cuda_version(n);
  plumb::decode_cudnn_version(n);
  plumb::decode_nccl_version(n);
  plumb::judge_cuda_compat(static_cast<int>(n & 0xFFFFF), std::string(s), static_cast<int>((n >> 20) & 0xFFFFF));
  return 0;
}
