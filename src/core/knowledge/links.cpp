// Link rates and GPU models as data. Nominal NVLink figures (per link, per direction: NVLink2-4
// 25 GB/s, NVLink5 50 GB/s) from NVIDIA's NVLink page (nvidia.com/en-us/data-center/nvlink/) and
// PCIe figures from the PCI-SIG rates after encoding; effective per-link figures follow NCCL's ring model as
// reported by its maintainers (A100: ~20 GB/s per link, NVIDIA/nccl-tests#149; H100: ~370 GB/s
// ring busbw over 18 links, NVIDIA/nccl-tests#212).
#include "core/knowledge/links.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {

// PCI device ids: 0x2330 and 0x20b5 are confirmed by the corpus topology dumps (IBM gx3d, Azure
// ncv4); the others follow the public PCI id list.
constexpr std::array<GpuModel, 14> kModels{{
    {"0x2330", "h100 80gb hbm3", "NVIDIA H100 80GB HBM3 (SXM5)", 4, 18, 5},
    {"0x2335", "h200", "NVIDIA H200 (SXM)", 4, 18, 5},
    {"0x2331", "h100 pcie", "NVIDIA H100 PCIe", 0, 0, 5},
    {"0x20b2", "a100-sxm4-80gb", "NVIDIA A100-SXM4-80GB", 3, 12, 4},
    {"0x20b0", "a100-sxm4-40gb", "NVIDIA A100-SXM4-40GB", 3, 12, 4},
    {"", "a100-sxm", "NVIDIA A100 SXM", 3, 12, 4},
    {"0x20b5", "a100 80gb pcie", "NVIDIA A100 80GB PCIe", 0, 0, 4},
    {"0x20f1", "a100-pcie", "NVIDIA A100-PCIE-40GB", 0, 0, 4},
    {"0x1db1", "v100-sxm2", "Tesla V100-SXM2-16GB", 2, 6, 3},
    {"0x1db5", "v100-sxm2-32gb", "Tesla V100-SXM2-32GB", 2, 6, 3},
    {"", "gb300", "NVIDIA GB300", 5, 18, 6, 72},
    {"", "gb200", "NVIDIA GB200", 5, 18, 6, 72},
    {"", "b200", "NVIDIA B200", 5, 18, 6},
    {"0x2684", "rtx 4090", "NVIDIA GeForce RTX 4090", 0, 0, 4},
}};

// Effective NVLink5 per-link rate is assumed at 80 % of nominal by analogy with NVLink3/4 (unverified).
constexpr std::array<NvlinkRate, 4> kLinksNvlink{{
    {2, 25.0, 20.0, 6},
    {3, 25.0, 20.0, 12},
    {4, 25.0, 20.6, 18},
    {5, 50.0, 40.0, 18},
}};

}  // namespace

const GpuModel* gpu_model_by_pci_device(std::string_view device_id) {
  std::string d = to_lower(trim(device_id));
  if (d.empty()) return nullptr;
  for (const auto& m : kModels) {
    if (!m.pci_device.empty() && m.pci_device == d) return &m;
  }
  return nullptr;
}

const GpuModel* gpu_model_by_name(std::string_view name) {
  std::string n = to_lower(name);
  // "A100-SXM-64GB" and "A100 SXM4" spell the form factor differently: compare without separators.
  auto squash = [](std::string s) {
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '-' || c == '_'; }), s.end());
    return s;
  };
  std::string sn = squash(n);
  const GpuModel* best = nullptr;
  for (const auto& m : kModels) {
    std::string key = squash(std::string(m.match));
    if (sn.find(key) != std::string::npos && (best == nullptr || m.match.size() > best->match.size())) best = &m;
  }
  return best;
}

const NvlinkRate* nvlink_rate(int gen) {
  for (const auto& r : kLinksNvlink) {
    if (r.gen == gen) return &r;
  }
  return nullptr;
}

std::optional<double> pcie_effective_gbps(int gen, int width) {
  static constexpr std::array<double, 7> kX16{0, 3, 6, 12, 24, 48, 96};
  if (gen < 1 || gen > 6 || width <= 0 || width > 32) return std::nullopt;
  return kX16[static_cast<std::size_t>(gen)] * width / 16.0;
}

std::optional<double> pcie_nominal_gbps(int gen, int width) {
  static constexpr std::array<double, 7> kLane{0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.56};
  if (gen < 1 || gen > 6 || width <= 0 || width > 32) return std::nullopt;
  return kLane[static_cast<std::size_t>(gen)] * width;
}

std::optional<int> pcie_gen_from_speed(std::string_view speed) {
  speed = trim(speed);
  std::size_t n = 0;
  while (n < speed.size() && (std::isdigit(static_cast<unsigned char>(speed[n])) != 0 || speed[n] == '.')) ++n;
  auto v = parse_double(speed.substr(0, n));
  if (!v) return std::nullopt;
  if (*v < 3) return 1;
  if (*v < 6) return 2;
  if (*v < 10) return 3;
  if (*v < 20) return 4;
  if (*v < 40) return 5;
  if (*v < 80) return 6;
  return std::nullopt;
}

BusbwCeiling nvlink_ceiling(int gen, int links, const std::string& source) {
  BusbwCeiling c;
  const NvlinkRate* r = nvlink_rate(gen);
  double per = r != nullptr ? r->nominal_per_link : 0;
  c.gbps = per * links;
  c.expected = (r != nullptr ? r->effective_per_link : 0) * links;
  c.link = "NVLink" + std::to_string(gen) + " x" + std::to_string(links);
  c.formula = std::to_string(links) + " links x " + fmt_num(per, 1) + " GB/s per direction";
  c.source = source;
  return c;
}

BusbwCeiling pcie_ceiling(int gen, int width, const std::string& source) {
  BusbwCeiling c;
  c.gbps = pcie_nominal_gbps(gen, width).value_or(0);
  c.expected = pcie_effective_gbps(gen, width).value_or(0);
  c.link = "PCIe Gen" + std::to_string(gen) + " x" + std::to_string(width);
  c.formula = std::to_string(width) + " lanes x " + fmt_num(c.gbps / width, 3) + " GB/s per direction";
  c.source = source;
  return c;
}

BusbwCeiling network_ceiling(double node_gbit, int ports, const std::string& source) {
  BusbwCeiling c;
  c.gbps = node_gbit / 8.0;
  c.expected = c.gbps;
  c.link = "network " + fmt_num(node_gbit, 0) + " Gb/s per node";
  c.formula = (ports > 0 ? std::to_string(ports) + " ports, " : std::string()) + fmt_num(node_gbit, 0) +
              " Gb/s / 8 = " + fmt_num(c.gbps, 1) + " GB/s";
  c.source = source;
  return c;
}

std::optional<BusbwCeiling> parse_link_option(std::string_view text) {
  std::string t = to_lower(trim(text));
  auto num_after = [&](std::size_t pos) -> std::pair<std::optional<int>, std::optional<int>> {
    std::string rest = t.substr(pos);
    auto x = rest.find('x');
    auto a = parse_int(rest.substr(0, x));
    std::optional<std::int64_t> b;
    if (x != std::string::npos) b = parse_int(rest.substr(x + 1));
    return {a ? std::optional<int>(static_cast<int>(*a)) : std::nullopt,
            b ? std::optional<int>(static_cast<int>(*b)) : std::nullopt};
  };
  if (starts_with(t, "nvlink")) {
    auto [gen, links] = num_after(6);
    if (!gen || nvlink_rate(*gen) == nullptr) return std::nullopt;
    int l = links.value_or(nvlink_rate(*gen)->links_per_gpu);
    if (l < 1 || l > 36) return std::nullopt;
    return nvlink_ceiling(*gen, l, "--link " + std::string(text));
  }
  if (starts_with(t, "pcie")) {
    auto [gen, width] = num_after(4);
    if (!gen || !pcie_effective_gbps(*gen, width.value_or(16))) return std::nullopt;
    return pcie_ceiling(*gen, width.value_or(16), "--link " + std::string(text));
  }
  return std::nullopt;
}

std::vector<std::string> link_option_names() {
  return {"nvlink2", "nvlink3", "nvlink4", "nvlink5", "nvlink4x12", "pcie3", "pcie4", "pcie5", "pcie6", "pcie4x8"};
}

}  // namespace plumb
