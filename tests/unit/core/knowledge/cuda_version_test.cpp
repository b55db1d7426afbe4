// Version decoding of the CUDA stack and the driver compatibility table.
#include <gtest/gtest.h>

#include "core/json.h"
#include "core/knowledge/cuda_compat.h"
#include "core/knowledge/cuda_version.h"
#include "../../../test_util.h"

namespace plumb {
namespace {

TEST(CudaVersion, RuntimeAndDriverEncoding) {
  EXPECT_EQ(decode_cuda_version(13000), "13.0");
  EXPECT_EQ(decode_cuda_version(12020), "12.2");
  EXPECT_EQ(decode_cuda_version(12040), "12.4");
  EXPECT_EQ(decode_cuda_version(9020), "9.2");
  EXPECT_EQ(decode_cuda_version(0), "");  // cudaDriverGetVersion: no driver
  EXPECT_EQ(decode_cuda_version(-5), "");
}

TEST(CudaVersion, CudnnEncodingChangedWithVersion9) {
  EXPECT_EQ(decode_cudnn_version(91900), "9.19.0");
  EXPECT_EQ(decode_cudnn_version(90300), "9.3.0");
  EXPECT_EQ(decode_cudnn_version(8907), "8.9.7");
  EXPECT_EQ(decode_cudnn_version(7600), "7.6.0");
  EXPECT_EQ(decode_cudnn_version(0), "");
}

TEST(CudaVersion, NcclEncodingChangedWithVersion2_9) {
  EXPECT_EQ(decode_nccl_version(22803), "2.28.3");
  EXPECT_EQ(decode_nccl_version(21903), "2.19.3");
  EXPECT_EQ(decode_nccl_version(22707), "2.27.7");
  EXPECT_EQ(decode_nccl_version(2804), "2.8.4");
  EXPECT_EQ(decode_nccl_version(-1), "");
}

TEST(CudaVersion, DottedNumbersCompareNumerically) {
  auto a = parse_version_numbers("570.26");
  auto b = parse_version_numbers("570.124.06");
  ASSERT_TRUE(a && b);
  EXPECT_LT(compare_versions(*a, *b), 0);  // a string compare would say the opposite
  EXPECT_EQ(compare_versions({13, 0}, {13}), 0);
  EXPECT_FALSE(parse_version_numbers("535.x"));
  EXPECT_FALSE(parse_version_numbers(""));
  EXPECT_FALSE(parse_version_numbers("1..2"));
}

TEST(CudaVersion, FileNames) {
  EXPECT_EQ(soname_version("libcudart.so.12.4.127", "libcudart.so"), "12.4.127");
  EXPECT_EQ(soname_version("libcudart.so.13", "libcudart.so"), "13");
  EXPECT_EQ(soname_version("libcudart.so", "libcudart.so"), "");
  EXPECT_EQ(soname_version("libcudart_static.a", "libcudart.so"), "");
  EXPECT_EQ(soname_version("libnccl.so.2.28.9", "libnccl.so"), "2.28.9");
}

TEST(CudaVersion, ToolkitFiles) {
  // version.json as shipped by CUDA 12.x toolkits (trimmed).
  EXPECT_EQ(parse_cuda_version_json(R"({"cuda":{"name":"CUDA SDK","version":"12.4.1"},"cuda_cudart":{"version":"12.4.127"}})"),
            "12.4.1");
  EXPECT_FALSE(parse_cuda_version_json("{\"cuda\": 3}"));
  EXPECT_FALSE(parse_cuda_version_json("not json"));
  EXPECT_EQ(parse_cuda_version_txt("CUDA Version 10.2.89\n"), "10.2.89");
  // `nvcc --version` of the toolkit on the build machine.
  EXPECT_EQ(parse_nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
                               "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n"
                               "Build cuda_13.0.r13.0/compiler.36424714_0\n"),
            "13.0.88");
  auto d = parse_dist_info_name("nvidia_cublas-13.1.0.3.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->first, "nvidia_cublas");
  EXPECT_EQ(d->second, "13.1.0.3");
  EXPECT_EQ(parse_dist_info_name("nvidia_cudnn_cu12-9.5.1.17.dist-info")->second, "9.5.1.17");
  EXPECT_FALSE(parse_dist_info_name("nvidia_cudnn_cu12.dist-info"));
}

TEST(CudaVersion, RecordGivesEachFilesSize) {
  // The RECORD pip wrote for the real nvidia-cudnn-cu13 wheel.
  const std::string record = test::read_fixture("gpu/pip-record/nvidia_cudnn_cu13-9.19.0.56.RECORD");
  EXPECT_EQ(record_file_size(record, "libcudnn.so.9"), 129240u);
  EXPECT_EQ(record_file_size(record, "libcudnn_graph.so.9"), 4451728u);
  EXPECT_EQ(record_file_size(record, "cudnn_version.h"), 3114u);
  // Its own row has no hash and no size; a name no row ends in; a prefix of a name.
  EXPECT_FALSE(record_file_size(record, "RECORD"));
  EXPECT_FALSE(record_file_size(record, "libcudnn.so.8"));
  EXPECT_FALSE(record_file_size(record, "libcudnn.so"));
  EXPECT_FALSE(record_file_size(record, ""));
  // A quoted path holding a comma, CRLF rows, and a size that is not a number.
  EXPECT_EQ(record_file_size("\"a,b/lib/x.so\",sha256=AA,12\r\n", "x.so"), 12u);
  EXPECT_FALSE(record_file_size("lib/x.so,sha256=AA,12a\n", "x.so"));
  EXPECT_FALSE(record_file_size("lib/x.so,sha256=AA,123456789012345678901\n", "x.so"));
  EXPECT_FALSE(record_file_size(",x.so\n,\n,,\nx.so", "x.so"));
}

TEST(CudaVersion, CudnnVersionEncodesAsItsGetterDoes) {
  EXPECT_EQ(encode_cudnn_version("9.19.0.56"), 91900);
  EXPECT_EQ(encode_cudnn_version("9.1.0"), 90100);
  EXPECT_EQ(encode_cudnn_version("8.9.2.26"), 8902);
  EXPECT_EQ(decode_cudnn_version(*encode_cudnn_version("8.9.7.29")), "8.9.7");
  EXPECT_FALSE(encode_cudnn_version("9.19"));
  EXPECT_FALSE(encode_cudnn_version("8.10.0"));
  EXPECT_FALSE(encode_cudnn_version("9.100.0"));
  EXPECT_FALSE(encode_cudnn_version("0.1.2"));
  EXPECT_FALSE(encode_cudnn_version("nine"));
}

TEST(CudaCompat, TableIsOrderedAndDriversNeverGoDown) {
  const auto& t = toolkit_driver_table();
  ASSERT_GT(t.size(), 20u);
  for (std::size_t i = 1; i < t.size(); ++i) {
    EXPECT_GT(t[i - 1].cuda, t[i].cuda);
    EXPECT_GE(compare_versions(*parse_version_numbers(t[i - 1].min_driver), *parse_version_numbers(t[i].min_driver)), 0)
        << t[i - 1].cuda;
  }
  EXPECT_EQ(min_driver_for(12040), "550.54.14");
  EXPECT_EQ(min_driver_for(13000), "580.65.06");
  EXPECT_EQ(min_driver_for(11080), "520.61.05");
  EXPECT_EQ(min_driver_for(12070), "");  // there was no CUDA 12.7
}

TEST(CudaCompat, Verdicts) {
  // Driver 535 (CUDA 12.2): a 12.1 runtime is fine, 12.4 runs through minor-version compatibility.
  EXPECT_EQ(judge_cuda_compat(12020, "535.183.01", 12010).verdict, Compat::ok);
  EXPECT_EQ(judge_cuda_compat(12020, "535.183.01", 12020).verdict, Compat::ok);
  auto v = judge_cuda_compat(12020, "535.183.01", 12040);
  EXPECT_EQ(v.verdict, Compat::minor_compat);
  EXPECT_EQ(v.min_driver, "550.54.14");
  // R470 (CUDA 11.4) is too old for any CUDA 12 runtime.
  EXPECT_EQ(judge_cuda_compat(11040, "470.57.02", 12000).verdict, Compat::newer_major);
  EXPECT_EQ(judge_cuda_compat(12020, "535.183.01", 13000).verdict, Compat::newer_major);
  // CUDA 11.0 drivers before 450.80.02 have no minor-version compatibility.
  EXPECT_EQ(judge_cuda_compat(11000, "450.51.06", 11040).verdict, Compat::driver_too_old);
  EXPECT_EQ(judge_cuda_compat(11000, "450.80.02", 11040).verdict, Compat::minor_compat);
  // Old runtimes on new drivers: backward compatible.
  EXPECT_EQ(judge_cuda_compat(13000, "580.65.06", 11080).verdict, Compat::ok);
  EXPECT_EQ(judge_cuda_compat(0, "", 12000).verdict, Compat::unknown);
}

}  // namespace
}  // namespace plumb
