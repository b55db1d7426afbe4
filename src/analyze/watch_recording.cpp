// Watch recordings: JSON lines (header, one sample per line, trailer) or long-format CSV
// ("t_s,metric,subject,value" rows with "# key,value" metadata lines), and reading both back.
#include "analyze/watch_recording.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

#include "core/atomic_file.h"
#include "core/host_root.h"
#include "core/json.h"
#include "core/text.h"
#include "core/version.h"

namespace plumb::watch {

namespace {

// "FILE:LINE: what", the error of one line of a recording.
Error line_error(const std::string& origin, std::size_t n, std::string_view what) {
  std::string m = origin;
  m.append(":").append(std::to_string(n)).append(": ").append(what);
  return make_error(ErrorKind::invalid, std::move(m));
}

constexpr const char* kJsonMagic = "plumb_watch";
constexpr const char* kCsvMagic = "# plumb-watch 1";

std::string shortest_text(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// The numeric fields of a sample, as (metric, subject, value) rows. Kept in one table so the
// writer and the reader cannot disagree.
struct Row {
  std::string metric, subject;
  double value;
};

template <class T>
void opt(std::vector<Row>& rows, const char* metric, const std::string& subject, const std::optional<T>& v) {
  if (v) rows.push_back({metric, subject, static_cast<double>(*v)});
}

std::vector<Row> rows_of(const WatchSample& s) {
  std::vector<Row> r;
  opt(r, "cpu_busy_pct", "host", s.cpu_busy_pct);
  opt(r, "cpu_iowait_pct", "host", s.cpu_iowait_pct);
  for (std::size_t i = 0; i < s.core_busy_pct.size(); ++i) r.push_back({"core_busy_pct", "cpu" + std::to_string(i), s.core_busy_pct[i]});
  opt(r, "mem_used_bytes", "host", s.mem_used_bytes);
  opt(r, "mem_total_bytes", "host", s.mem_total_bytes);
  opt(r, "psi_cpu_some_pct", "host", s.psi_cpu_some_pct);
  opt(r, "psi_mem_some_pct", "host", s.psi_mem_some_pct);
  opt(r, "psi_mem_full_pct", "host", s.psi_mem_full_pct);
  opt(r, "psi_io_some_pct", "host", s.psi_io_some_pct);
  opt(r, "psi_io_full_pct", "host", s.psi_io_full_pct);
  for (const auto& d : s.disks) {
    opt(r, "disk_read_bytes_per_s", d.name, d.read_bytes_per_s);
    opt(r, "disk_write_bytes_per_s", d.name, d.write_bytes_per_s);
  }
  for (const auto& n : s.nets) {
    opt(r, "net_rx_bytes_per_s", n.name, n.rx_bytes_per_s);
    opt(r, "net_tx_bytes_per_s", n.name, n.tx_bytes_per_s);
  }
  if (s.proc_running) r.push_back({"proc_running", "process", *s.proc_running ? 1.0 : 0.0});
  opt(r, "proc_cpu_pct", "process", s.proc_cpu_pct);
  opt(r, "proc_rss_bytes", "process", s.proc_rss_bytes);
  opt(r, "proc_threads", "process", s.proc_threads);
  for (const auto& g : s.gpus) {
    opt(r, "gpu_busy_pct", g.bus_id, g.busy_pct);
    opt(r, "gpu_mem_busy_pct", g.bus_id, g.mem_busy_pct);
    opt(r, "gpu_mem_used_bytes", g.bus_id, g.mem_used_bytes);
    opt(r, "gpu_mem_total_bytes", g.bus_id, g.mem_total_bytes);
    opt(r, "gpu_temperature_c", g.bus_id, g.temperature_c);
    opt(r, "gpu_power_w", g.bus_id, g.power_w);
    opt(r, "gpu_sm_clock_mhz", g.bus_id, g.sm_clock_mhz);
    opt(r, "gpu_clock_event_reasons", g.bus_id, g.clock_event_reasons);
    opt(r, "gpu_pcie_rx_bytes_per_s", g.bus_id, g.pcie_rx_bytes_per_s);
    opt(r, "gpu_pcie_tx_bytes_per_s", g.bus_id, g.pcie_tx_bytes_per_s);
    opt(r, "gpu_nvlink_rx_bytes_per_s", g.bus_id, g.nvlink_rx_bytes_per_s);
    opt(r, "gpu_nvlink_tx_bytes_per_s", g.bus_id, g.nvlink_tx_bytes_per_s);
  }
  return r;
}

// Subjects one sample may name (a recording is user input; each subject costs memory in every
// sample): more than any machine plumb watches has, far fewer than an allocation to fear.
constexpr std::size_t kMaxGpus = 1024;
constexpr std::size_t kMaxCpus = 8192;  // the kernel's largest NR_CPUS
constexpr std::size_t kMaxDisks = 4096;
constexpr std::size_t kMaxNets = 4096;

// Why a sample's subjects are over the limits, or "" when they are within them.
std::string subjects_over_limit(const WatchSample& s) {
  auto over = [](const char* what, std::size_t n, std::size_t max) {
    return n > max ? std::string("more than ") + std::to_string(max) + " " + what + " in one sample" : std::string();
  };
  for (auto m : {over("GPUs", s.gpus.size(), kMaxGpus), over("CPUs", s.core_busy_pct.size(), kMaxCpus),
                 over("disks", s.disks.size(), kMaxDisks), over("network interfaces", s.nets.size(), kMaxNets)}) {
    if (!m.empty()) return m;
  }
  return {};
}

// Where each subject of the sample being read sits, so a row finds it without a scan.
struct SampleIndex {
  std::map<std::string, std::size_t, std::less<>> gpus, disks, nets;
  std::size_t cpu_rows = 0;
};

// Puts one CSV value back into the sample. Returns "" or why the row is refused.
std::string apply_row(WatchSample& s, SampleIndex& ix, const std::string& metric, const std::string& subject, double v) {
  std::string refused;
  // The subject's entry in `list`, added when new; a spare (and `refused` set) past `max`.
  auto slot = [&](auto& list, auto& index, auto& spare, std::size_t max, const char* what) -> auto& {
    auto it = index.find(subject);
    if (it != index.end()) return list[it->second];
    if (list.size() >= max) {
      refused = "more than " + std::to_string(max) + " " + what + " in one sample";
      return spare;
    }
    index.emplace(subject, list.size());
    list.push_back({});
    return list.back();
  };
  WatchGpu spare_gpu;
  WatchDisk spare_disk;
  WatchNet spare_net;
  auto gpu = [&]() -> WatchGpu& {
    auto& g = slot(s.gpus, ix.gpus, spare_gpu, kMaxGpus, "GPUs");
    g.bus_id = subject;
    return g;
  };
  auto disk = [&]() -> WatchDisk& {
    auto& d = slot(s.disks, ix.disks, spare_disk, kMaxDisks, "disks");
    d.name = subject;
    return d;
  };
  auto net = [&]() -> WatchNet& {
    auto& n = slot(s.nets, ix.nets, spare_net, kMaxNets, "network interfaces");
    n.name = subject;
    return n;
  };
  // Clamped before the cast: a float outside the target type's range is undefined behaviour.
  auto u64 = [](double x) { return x > 0 ? static_cast<std::uint64_t>(std::min(x, 1.8e19)) : std::uint64_t{0}; };
  if (metric == "cpu_busy_pct") s.cpu_busy_pct = v;
  else if (metric == "cpu_iowait_pct") s.cpu_iowait_pct = v;
  else if (metric == "core_busy_pct") {
    auto n = parse_uint(subject.size() > 3 ? std::string_view(subject).substr(3) : std::string_view{});
    if (!n || subject.compare(0, 3, "cpu") != 0) return "bad CPU " + subject;
    // Rows come cpu0, cpu1, ...: an index far past the rows before it would allocate for nothing.
    if (*n >= kMaxCpus || *n > ix.cpu_rows + 64) {
      return subject + ": more than " + std::to_string(kMaxCpus) + " CPUs, or past the " + std::to_string(ix.cpu_rows) +
             " CPU rows before it in this sample";
    }
    ++ix.cpu_rows;
    if (s.core_busy_pct.size() <= *n) s.core_busy_pct.resize(*n + 1, 0.0);
    s.core_busy_pct[*n] = v;
  } else if (metric == "mem_used_bytes") s.mem_used_bytes = u64(v);
  else if (metric == "mem_total_bytes") s.mem_total_bytes = u64(v);
  else if (metric == "psi_cpu_some_pct") s.psi_cpu_some_pct = v;
  else if (metric == "psi_mem_some_pct") s.psi_mem_some_pct = v;
  else if (metric == "psi_mem_full_pct") s.psi_mem_full_pct = v;
  else if (metric == "psi_io_some_pct") s.psi_io_some_pct = v;
  else if (metric == "psi_io_full_pct") s.psi_io_full_pct = v;
  else if (metric == "disk_read_bytes_per_s") disk().read_bytes_per_s = v;
  else if (metric == "disk_write_bytes_per_s") disk().write_bytes_per_s = v;
  else if (metric == "net_rx_bytes_per_s") net().rx_bytes_per_s = v;
  else if (metric == "net_tx_bytes_per_s") net().tx_bytes_per_s = v;
  else if (metric == "proc_running") s.proc_running = v != 0;
  else if (metric == "proc_cpu_pct") s.proc_cpu_pct = v;
  else if (metric == "proc_rss_bytes") s.proc_rss_bytes = u64(v);
  else if (metric == "proc_threads") s.proc_threads = static_cast<int>(std::clamp(v, 0.0, 1e9));
  else if (metric == "gpu_busy_pct") gpu().busy_pct = v;
  else if (metric == "gpu_mem_busy_pct") gpu().mem_busy_pct = v;
  else if (metric == "gpu_mem_used_bytes") gpu().mem_used_bytes = u64(v);
  else if (metric == "gpu_mem_total_bytes") gpu().mem_total_bytes = u64(v);
  else if (metric == "gpu_temperature_c") gpu().temperature_c = v;
  else if (metric == "gpu_power_w") gpu().power_w = v;
  else if (metric == "gpu_sm_clock_mhz") gpu().sm_clock_mhz = v;
  else if (metric == "gpu_clock_event_reasons") gpu().clock_event_reasons = u64(v);
  else if (metric == "gpu_pcie_rx_bytes_per_s") gpu().pcie_rx_bytes_per_s = v;
  else if (metric == "gpu_pcie_tx_bytes_per_s") gpu().pcie_tx_bytes_per_s = v;
  else if (metric == "gpu_nvlink_rx_bytes_per_s") gpu().nvlink_rx_bytes_per_s = v;
  else if (metric == "gpu_nvlink_tx_bytes_per_s") gpu().nvlink_tx_bytes_per_s = v;
  else return "unknown metric " + metric;
  return refused;
}

// Integer fields must hold integers in range before nlohmann converts them (a cast of 1e300 or
// -1.5 to an integer type is undefined behaviour); floats must be finite.
bool numbers_fit(const json& j, const std::string& key = {}) {
  static const std::set<std::string> kUnsigned{"mem_used_bytes", "mem_total_bytes", "proc_rss_bytes", "clock_event_reasons"};
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!numbers_fit(it.value(), it.key())) return false;
    }
    return true;
  }
  if (j.is_array()) {
    for (const auto& v : j) {
      if (!numbers_fit(v, key)) return false;
    }
    return true;
  }
  if (!j.is_number()) return true;
  if (kUnsigned.count(key) != 0) return j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0);
  if (key == "proc_threads") return j.is_number_integer() && j.get<std::int64_t>() >= 0 && j.get<std::int64_t>() < (1 << 30);
  if (j.is_number_float()) return std::fabs(j.get<double>()) < 1e300;
  return true;
}

Facts facts_shell(const std::string& hostname) {
  Facts f;
  f.meta.tool_version = plumb_version();
  f.meta.command = "watch";
  f.meta.hostname = hostname;
  f.watch.collected = true;
  return f;
}

Result<Facts> read_jsonl(std::string_view text, const std::string& origin) {
  auto lines = split_lines(text);
  Facts f;
  std::size_t n = 0;
  for (auto line : lines) {
    ++n;
    if (trim(line).empty()) continue;
    json j = parse_outside_json(line).value_or(json());
    if (!j.is_object()) {
      // A recording cut by a crash may end in half a line: keep what came before it.
      if (n == lines.size()) break;
      return line_error(origin, n, "not a JSON object");
    }
    try {
      if (n == 1) {
        if (!j.contains(kJsonMagic)) return make_error(ErrorKind::invalid, origin + ": not a plumb watch recording");
        f = facts_shell(j.value("hostname", std::string("unknown")));
        f.meta.started_at = j.value("started_at", std::string());
        std::int64_t pid = j.contains("target_pid") && j["target_pid"].is_number_integer() ? j["target_pid"].get<std::int64_t>() : 0;
        f.meta.target_pid = pid > 0 && pid < (1 << 30) ? static_cast<int>(pid) : 0;
        f.watch.interval_s = j.contains("interval_s") && j["interval_s"].is_number() ? j["interval_s"].get<double>() : 0.0;
        f.watch.started_at = f.meta.started_at;
        f.watch.target_pid = f.meta.target_pid;
        f.watch.gpu_source = j.value("gpu_source", std::string());
        f.watch.gpu_unavailable = j.value("gpu_unavailable", std::string());
        continue;
      }
      if (j.contains("plumb_watch_end")) {
        const json& e = j["plumb_watch_end"];
        f.watch.unreadable = e.value("unreadable", std::vector<std::string>{});
        f.watch.samples_dropped = e.value("samples_dropped", std::uint64_t{0});
        continue;
      }
      if (!numbers_fit(j)) return line_error(origin, n, "a value is out of range");
      f.watch.samples.push_back(j.get<WatchSample>());
      if (auto why = subjects_over_limit(f.watch.samples.back()); !why.empty()) {
        return line_error(origin, n, why);
      }
    } catch (const std::exception& e) {
      return line_error(origin, n, std::string("malformed sample (") + e.what() + ")");
    }
  }
  if (n == 0) return make_error(ErrorKind::invalid, origin + ": empty recording");
  return f;
}

Result<Facts> read_csv(std::string_view text, const std::string& origin) {
  Facts f = facts_shell("unknown");
  std::size_t n = 0;
  std::string current_t;
  bool header_seen = false;
  SampleIndex index;
  std::map<std::string, std::pair<std::string, std::string>> gpu_ids;  // bus id -> uuid, name
  for (auto line : split_lines(text)) {
    ++n;
    if (trim(line).empty()) continue;
    if (line.front() == '#') {
      std::string_view body = trim(line.substr(1));
      auto comma = body.find(',');
      if (comma == std::string_view::npos) continue;
      std::string key(body.substr(0, comma));
      std::string value(body.substr(comma + 1));
      if (key == "interval_s") f.watch.interval_s = parse_double(value).value_or(0);
      else if (key == "started_at") f.watch.started_at = f.meta.started_at = value;
      else if (key == "target_pid") {
        auto pid = parse_int(value).value_or(0);
        f.watch.target_pid = f.meta.target_pid = pid > 0 && pid < (1 << 30) ? static_cast<int>(pid) : 0;
      }
      else if (key == "gpu_source") f.watch.gpu_source = value;
      else if (key == "gpu_unavailable") f.watch.gpu_unavailable = value;
      else if (key == "hostname") f.meta.hostname = value;
      else if (key == "unreadable") f.watch.unreadable.push_back(value);
      else if (key == "samples_dropped") f.watch.samples_dropped = parse_uint(value).value_or(0);
      else if (key == "gpu") {
        // gpu,<bus_id>,<uuid>,<name with possible commas>: applied to every sample at the end.
        auto parts = split(value, ',');
        if (parts.size() >= 3) {
          std::string name = value.substr(parts[0].size() + parts[1].size() + 2);
          gpu_ids[std::string(parts[0])] = {std::string(parts[1]), name};
        }
      }
      continue;
    }
    if (!header_seen) {
      if (trim(line) != "t_s,metric,subject,value") return line_error(origin, n, "expected the header t_s,metric,subject,value");
      header_seen = true;
      continue;
    }
    auto parts = split(line, ',');
    if (parts.size() != 4) return line_error(origin, n, "expected 4 fields");
    auto t = parse_double(parts[0]);
    auto v = parse_double(parts[3]);
    if (!t || !v) return line_error(origin, n, "bad number");
    if (f.watch.samples.empty() || std::string(parts[0]) != current_t) {
      index = SampleIndex{};
      f.watch.samples.push_back({});
      f.watch.samples.back().t_s = *t;
      current_t = std::string(parts[0]);
    }
    if (auto why = apply_row(f.watch.samples.back(), index, std::string(parts[1]), std::string(parts[2]), *v); !why.empty()) {
      return line_error(origin, n, why);
    }
  }
  if (!header_seen) return make_error(ErrorKind::invalid, origin + ": no t_s,metric,subject,value header");
  for (auto& s : f.watch.samples) {
    for (auto& g : s.gpus) {
      auto it = gpu_ids.find(g.bus_id);
      if (it != gpu_ids.end()) std::tie(g.uuid, g.name) = it->second;
    }
  }
  return f;
}

}  // namespace

RecordFormat record_format_for(const std::string& path) {
  auto dot = path.rfind('.');
  if (dot != std::string::npos) {
    std::string ext = path.substr(dot + 1);
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == "csv") return RecordFormat::csv;
  }
  return RecordFormat::jsonl;
}

std::string sample_to_jsonl(const WatchSample& s) { return json(s).dump() + "\n"; }

std::string sample_to_csv_rows(const WatchSample& s) {
  std::string out;
  std::string t = shortest_text(s.t_s);
  for (const auto& r : rows_of(s)) out += t + "," + r.metric + "," + r.subject + "," + shortest_text(r.value) + "\n";
  return out;
}

Result<std::unique_ptr<Recorder>> Recorder::open(const std::string& path, const WatchFacts& h, const std::string& hostname) {
  auto fd = open_growing_file(path);
  if (!fd) return fd.error();
  std::FILE* f = ::fdopen(*fd, "we");
  if (f == nullptr) {
    int e = errno;
    ::close(*fd);
    return make_error(error_kind_from_errno(e), "cannot write " + path + " (" + errno_text(e) + ")");
  }
  std::unique_ptr<Recorder> r(new Recorder(f, path, record_format_for(path)));
  std::string head;
  if (r->fmt_ == RecordFormat::jsonl) {
    json j{{"tool_version", plumb_version()}, {"hostname", hostname},     {"started_at", h.started_at},
           {"interval_s", h.interval_s},     {"target_pid", h.target_pid}, {"gpu_source", h.gpu_source},
           {"gpu_unavailable", h.gpu_unavailable}};
    // The magic key first, so a reader can recognise a recording from its first bytes.
    head = std::string("{\"") + kJsonMagic + "\":1," + j.dump().substr(1) + "\n";
  } else {
    head = std::string(kCsvMagic) + "\n# hostname," + hostname + "\n# started_at," + h.started_at + "\n# interval_s," +
           shortest_text(h.interval_s) + "\n# target_pid," + std::to_string(h.target_pid) + "\n# gpu_source," + h.gpu_source +
           "\n# gpu_unavailable," + h.gpu_unavailable + "\nt_s,metric,subject,value\n";
  }
  auto w = r->put(head);
  if (!w) return w.error();
  return r;
}

Recorder::~Recorder() {
  if (f_ != nullptr) std::fclose(f_);
}

Result<bool> Recorder::put(const std::string& text) {
  if (f_ == nullptr) return make_error(ErrorKind::io, path_ + " is closed");
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size() || std::fflush(f_) != 0) {
    return make_error(ErrorKind::io, "cannot write " + path_ + " (" + errno_text(errno) + ")");
  }
  return true;
}

Result<bool> Recorder::write(const WatchSample& s) {
  if (fmt_ == RecordFormat::jsonl) return put(sample_to_jsonl(s));
  std::string text;
  for (const auto& g : s.gpus) {
    // Identity of a GPU once, the first time it appears (CSV rows carry only the bus id).
    if (gpus_seen_.insert(g.bus_id).second) text += "# gpu," + g.bus_id + "," + g.uuid + "," + g.name + "\n";
  }
  return put(text + sample_to_csv_rows(s));
}

Result<bool> Recorder::finish(const WatchFacts& w) {
  std::string tail;
  if (fmt_ == RecordFormat::jsonl) {
    tail = json{{"plumb_watch_end", {{"unreadable", w.unreadable}, {"samples_dropped", w.samples_dropped}}}}.dump() + "\n";
  } else {
    for (const auto& u : w.unreadable) tail += "# unreadable," + u + "\n";
    tail += "# samples_dropped," + std::to_string(w.samples_dropped) + "\n";
  }
  auto r = put(tail);
  std::fclose(f_);
  f_ = nullptr;
  return r;
}

bool looks_like_recording(std::string_view text) {
  std::string_view first = text.substr(0, text.find('\n'));
  if (starts_with(first, kCsvMagic)) return true;
  return starts_with(trim(first), "{\"plumb_watch\":");
}

Result<Facts> facts_from_recording(std::string_view text, const std::string& origin) {
  if (starts_with(text, kCsvMagic)) return read_csv(text, origin);
  return read_jsonl(text, origin);
}

}  // namespace plumb::watch
