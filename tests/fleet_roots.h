// Fleet test nodes: copies of a fixture host tree, each with its own host name and, for a planted
// odd node, another kernel, CPU governor or memory size.
#pragma once

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace plumb::test {

struct NodeVariant {
  std::string hostname;
  std::string kernel;       // empty: keep the fixture's
  std::string governor;     // empty: keep
  long long mem_total_kb = 0;  // 0: keep
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// Copies `fixture_root` to `dir` and applies the variant.
inline void make_fleet_node(const std::string& fixture_root, const std::filesystem::path& dir, const NodeVariant& v) {
  namespace fs = std::filesystem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(fixture_root, dir, fs::copy_options::recursive);
  write_text(dir / "etc/hostname", v.hostname + "\n");
  write_text(dir / "proc/sys/kernel/hostname", v.hostname + "\n");
  if (!v.kernel.empty()) write_text(dir / "proc/sys/kernel/osrelease", v.kernel + "\n");
  if (!v.governor.empty() && fs::exists(dir / "sys/devices/system/cpu")) {
    for (const auto& e : fs::recursive_directory_iterator(dir / "sys/devices/system/cpu")) {
      if (e.path().filename() == "scaling_governor") write_text(e.path(), v.governor + "\n");
    }
  }
  if (v.mem_total_kb > 0) {
    std::ifstream in(dir / "proc/meminfo");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = std::regex_replace(ss.str(), std::regex("MemTotal:\\s+[0-9]+ kB"),
                                          "MemTotal:       " + std::to_string(v.mem_total_kb) + " kB");
    write_text(dir / "proc/meminfo", text);
  }
}

}  // namespace plumb::test
