// Classifies each event once and keeps only what the step breakdown needs.
#include "analyze/trace/builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <type_traits>

#include "core/json.h"
#include "core/parallel.h"

namespace plumb::trace {

namespace {
constexpr double kMaxAbsUs = 1e17;  // ~3000 years in µs: anything larger is not a timestamp
}

Error RecordBuilder::bad(const RawEvent& e, const std::string& what) const {
  return make_error(ErrorKind::invalid, name_ + ": " + what + " in the event at byte " + std::to_string(e.offset));
}

namespace {
std::size_t name_slot(std::string_view s, std::size_t slots) {
  std::uint64_t head = 0, tail = 0;
  const std::size_t n = s.size();
  if (n >= 8) {
    std::memcpy(&head, s.data(), 8);
    std::memcpy(&tail, s.data() + n - 8, 8);
  } else if (n > 0) {
    std::memcpy(&head, s.data(), n);
  }
  std::uint64_t h = (head ^ (tail * 0x9e3779b97f4a7c15ULL) ^ n) * 0xff51afd7ed558ccdULL;
  return static_cast<std::size_t>(h >> 40) & (slots - 1);
}
}  // namespace

std::uint32_t RecordBuilder::intern(std::string_view name) {
  std::uint32_t& slot = name_cache_[name_slot(name, kNameCache)];
  if (slot < out_.names.size() && out_.names[slot] == name) return slot;
  auto it = names_.find(name);
  if (it != names_.end()) {
    slot = it->second;
    return it->second;
  }
  auto id = static_cast<std::uint32_t>(out_.names.size());
  out_.names.emplace_back(name);
  names_.emplace(std::string(name), id);
  slot = id;
  return id;
}

std::int64_t RecordBuilder::id_key(const TraceId& id) {
  if (!id.is_str) return id.num;
  auto it = id_strings_.find(id.str);
  if (it != id_strings_.end()) return it->second;
  std::int64_t k = (std::int64_t{1} << 62) + static_cast<std::int64_t>(id_strings_.size());
  id_strings_.emplace(std::string(id.str), k);
  return k;
}

std::uint64_t RecordBuilder::thread_key(const TraceId& pid, const TraceId& tid) {
  auto p = static_cast<std::uint64_t>(id_key(pid));
  return p * 1000003u ^ static_cast<std::uint64_t>(id_key(tid));
}

RecordBuilder::Thread RecordBuilder::thread_of(const RawEvent& e) {
  std::uint64_t key = thread_key(e.pid, e.tid);
  if (key != last_thread_key_ || last_thread_ < 0) {
    auto it = threads_.find(key);
    if (it != threads_.end()) {
      last_thread_ = it->second;
    } else {
      last_thread_ = static_cast<std::int64_t>(out_.cpu.size());
      threads_.emplace(key, static_cast<std::uint32_t>(last_thread_));
      out_.add_thread();
      auto own = [](const TraceId& id) { return OwnedId{id.num, std::string(id.str), id.is_str}; };
      thread_ids_.emplace_back(own(e.pid), own(e.tid));
    }
    last_thread_key_ = key;
  }
  auto i = static_cast<std::size_t>(last_thread_);
  return {out_.cpu[i], out_.runtime[i]};
}

void RecordBuilder::append(RecordBuilder& later) {
  TraceRecords& b = later.out_;
  events_ += later.events_;
  // Names in the later builder's first-seen order: interning them in that order gives the ids one
  // builder would have given.
  std::vector<std::uint32_t> name_map(b.names.size());
  for (std::size_t i = 0; i < b.names.size(); ++i) name_map[i] = intern(b.names[i]);
  // Every thread of the later builder gets its row here first (new ones appended now), so that no
  // array of arrays moves while the copies run.
  std::vector<std::size_t> dest(b.cpu.size());
  for (std::size_t t = 0; t < b.cpu.size(); ++t) {
    const auto& ids = later.thread_ids_[t];
    std::uint64_t key = thread_key(ids.first.view(), ids.second.view());
    if (auto it = threads_.find(key); it != threads_.end()) {
      dest[t] = it->second;
      continue;
    }
    dest[t] = out_.cpu.size();
    threads_.emplace(key, static_cast<std::uint32_t>(dest[t]));
    out_.add_thread();
    thread_ids_.push_back(ids);
  }
  last_thread_ = -1;
  // Then the copies, each into its own destination array: on two threads, the largest first, each
  // to the thread with fewer bytes so far (the merge is the serial step between the parts and the
  // analysis; a trace's rows may sit mostly in its GPU arrays or spread over many CPU threads).
  struct Job {
    std::size_t bytes;
    std::function<void()> run;
  };
  std::vector<Job> jobs;
  auto move_pod = [&jobs](auto& to, auto& from) {
    if (from.empty()) return;
    jobs.push_back({from.size() * sizeof(from[0]), [&to, &from] {
                      to.append(from.data(), from.size());
                      from = std::remove_reference_t<decltype(from)>();
                    }});
  };
  for (auto& s : b.syncs) s.name = name_map[s.name];
  move_pod(out_.dataloader, b.dataloader);
  move_pod(out_.optimizer, b.optimizer);
  move_pod(out_.cpu_copy, b.cpu_copy);
  if (!b.gpu.empty()) out_.gpu_later.push_back(std::move(b.gpu));  // handed over, not copied
  for (auto& rows : b.gpu_later) out_.gpu_later.push_back(std::move(rows));
  b.gpu_later.clear();  // a moved-from PodVector is empty
  // Handed over, not copied (TraceRecords::corr_later).
  if (!b.corr.empty()) out_.corr_later.push_back(std::move(b.corr));
  for (auto& rows : b.corr_later) out_.corr_later.push_back(std::move(rows));
  b.corr_later.clear();
  move_pod(out_.uncorrelated_launches, b.uncorrelated_launches);
  move_pod(out_.syncs, b.syncs);
  std::size_t rows = 0;
  for (std::size_t t = 0; t < b.cpu.size(); ++t) {
    rows += b.cpu[t].size() + b.runtime[t].size();
    // A thread's rows are renamed in place and handed over as arrays of their own, after the ones
    // it has: no copy (TraceRecords::cpu_later).
    jobs.push_back({(b.cpu[t].size() + b.runtime[t].size()) * sizeof(CpuRec) / 4, [this, &b, &name_map, &dest, t] {
                      auto hand_over = [&name_map](PodVector<CpuRec>& rows, std::vector<PodVector<CpuRec>>& to) {
                        if (rows.empty()) return;
                        for (auto& r : rows) r.name = name_map[r.name];
                        to.push_back(std::move(rows));
                      };
                      hand_over(b.cpu[t], out_.cpu_later[dest[t]]);
                      for (auto& rows : b.cpu_later[t]) hand_over(rows, out_.cpu_later[dest[t]]);
                      hand_over(b.runtime[t], out_.runtime_later[dest[t]]);
                      for (auto& rows : b.runtime_later[t]) hand_over(rows, out_.runtime_later[dest[t]]);
                    }});
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& x, const Job& y) { return x.bytes > y.bytes; });
  std::vector<const Job*> here, there;
  std::size_t here_bytes = 0, there_bytes = 0;
  constexpr std::size_t kParallelMergeRows = 1u << 14;
  for (const auto& j : jobs) {
    if (rows >= kParallelMergeRows && there_bytes < here_bytes) {
      there.push_back(&j);
      there_bytes += j.bytes;
    } else {
      here.push_back(&j);
      here_bytes += j.bytes;
    }
  }
  TaskGroup there_done;
  if (!there.empty()) {
    there_done.run([&there] {
      for (const Job* j : there) j->run();
    });
  }
  for (const Job* j : here) j->run();
  out_.steps.insert(out_.steps.end(), std::make_move_iterator(b.steps.begin()), std::make_move_iterator(b.steps.end()));
  there_done.wait();
  for (const auto& [k, m] : b.memory) {
    auto it = out_.memory.find(k);
    if (it == out_.memory.end()) {
      out_.memory.emplace(k, m);
      continue;
    }
    it->second.events += m.events;
    it->second.peak_allocated = std::max(it->second.peak_allocated, m.peak_allocated);
    it->second.peak_reserved = std::max(it->second.peak_reserved, m.peak_reserved);
  }
  for (const auto& n : b.hta_step_names) {
    if (!hta_steps_.count(n)) {
      hta_steps_.emplace(n, true);
      out_.hta_step_names.push_back(n);
    }
  }
  if (later.seen_step_) {
    out_.hta_last_step_ts = seen_step_ ? std::max(out_.hta_last_step_ts, b.hta_last_step_ts) : b.hta_last_step_ts;
    seen_step_ = true;
  }
  out_.any_fractional_ts = out_.any_fractional_ts || b.any_fractional_ts;
  if (b.any_x) {
    out_.first_ts = out_.any_x ? std::min(out_.first_ts, b.first_ts) : b.first_ts;
    out_.last_end = out_.any_x ? std::max(out_.last_end, b.last_end) : b.last_end;
    out_.any_x = true;
  }
  out_.n_kernel += b.n_kernel;
  out_.n_memcpy += b.n_memcpy;
  out_.n_memset += b.n_memset;
  out_.n_mtia += b.n_mtia;
  out_.n_profiler_range += b.n_profiler_range;
  out_.n_compute_rows += b.n_compute_rows;
  out_.n_comm_rows += b.n_comm_rows;
  out_.hip_runtime = out_.hip_runtime || b.hip_runtime;
}

void RecordBuilder::on_header(std::string_view key, std::string_view value) {
  auto parsed = parse_outside_json(value);
  if (!parsed) return;
  const json& j = *parsed;
  if (key == "distributedInfo" && j.is_object()) {
    auto num = [&](const char* k) -> std::optional<std::int64_t> {
      if (!j.contains(k)) return std::nullopt;
      const auto& v = j.at(k);
      if (v.is_number_integer()) return v.get<std::int64_t>();
      if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        if (!s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos) return std::stoll(s);
      }
      return std::nullopt;
    };
    out_.rank = num("rank");
    out_.world_size = num("world_size");
  } else if (key == "baseTimeNanoseconds" && j.is_number() && j.get<double>() > 0) {
    out_.base_time_ns = j.get<double>();
  } else if (key == "deviceProperties" && j.is_array()) {
    for (const auto& d : j) {
      if (d.is_object() && d.contains("name") && d.at("name").is_string()) out_.devices.push_back(d.at("name").get<std::string>());
    }
  }
}

std::uint8_t RecordBuilder::runtime_call(std::uint32_t id, std::string_view name) {
  if (id >= runtime_calls_.size()) runtime_calls_.resize(out_.names.size(), kUnclassified);
  std::uint8_t& c = runtime_calls_[id];
  if (c == kUnclassified) {
    c = 0;
    if (is_launch_call(name)) c |= kLaunchCall;
    if (is_host_query_call(name)) c |= kHostQueryCall;
    if (is_sync_call(name)) c |= kSyncCall;
    if (name.substr(0, 3) == "hip") c |= kHipCall;
  }
  return c;
}

RecordBuilder::GpuClass RecordBuilder::gpu_class(std::uint32_t id, std::string_view name) {
  if (id >= gpu_classes_.size()) gpu_classes_.resize(out_.names.size());
  GpuClass& c = gpu_classes_[id];
  if (!c.known) {
    c.type = kernel_type(name);
    c.copy = copy_kind(name);
    c.sync_name = name == "Event Sync" || name == "Context Sync";
    c.known = true;
  }
  return c;
}

Result<bool> RecordBuilder::on_event(const RawEvent& e) {
  ++events_;
  if (e.ph == 'i') {
    if (e.has_name && e.name == "[memory]" && (e.total_allocated >= 0 || e.total_reserved >= 0)) {
      auto& m = out_.memory[{e.mem_device_type, e.mem_device_id}];
      ++m.events;
      m.peak_allocated = std::max(m.peak_allocated, e.total_allocated);
      m.peak_reserved = std::max(m.peak_reserved, e.total_reserved);
    }
    return true;
  }
  if (e.ph != 'X') return true;  // metadata, flows, counters
  if (!e.has_name) return bad(e, "complete event (ph X) without \"name\"");
  if (!e.has_ts) return bad(e, "complete event (ph X) without \"ts\"");
  if (!e.has_dur) return bad(e, "complete event (ph X) without \"dur\"");
  if (e.dur < 0) return bad(e, "negative duration " + std::to_string(e.dur) + " µs");
  if (std::fabs(e.ts) > kMaxAbsUs || e.dur > kMaxAbsUs) return bad(e, "timestamp or duration out of range");
  if (e.cat == Cat::trace_span) return true;  // the profiler's own span
  const double ts = e.ts;
  const double end = e.ts + e.dur;
  if (e.ts_fractional) out_.any_fractional_ts = true;
  if (!out_.any_x) {
    out_.first_ts = ts;
    out_.last_end = end;
    out_.any_x = true;
  } else {
    out_.first_ts = std::min(out_.first_ts, ts);
    out_.last_end = std::max(out_.last_end, end);
  }
  const std::string_view name = e.name;
  if (is_profiler_step(name)) {
    if (!hta_steps_.count(name)) {
      hta_steps_.emplace(std::string(name), true);
      out_.hta_step_names.emplace_back(name);
    }
    out_.hta_last_step_ts = seen_step_ ? std::max(out_.hta_last_step_ts, ts) : ts;
    seen_step_ = true;
  }
  switch (e.cat) {
    case Cat::none:
    case Cat::cpu_op:
    case Cat::user_annotation: {
      bool annotation = false;
      if (is_profiler_step(name)) {
        out_.steps.push_back({ts, end, step_number(name), std::string(name)});
        annotation = true;
      } else if (is_dataloader(name)) {
        out_.dataloader.push_back({ts, end});
        annotation = true;
      } else if (is_optimizer(name)) {
        out_.optimizer.push_back({ts, end});
        annotation = true;
      } else if (is_cpu_copy(name)) {
        out_.cpu_copy.push_back({ts, end});
      }
      // Annotations (steps, data loader, optimizer) nest operators but are not operators themselves.
      bool op = !annotation && (e.cat == Cat::cpu_op || e.cat == Cat::none);
      thread_of(e).cpu.push_back({ts, end, intern(name), op});
      break;
    }
    case Cat::runtime: {
      const std::uint32_t id = intern(name);
      const std::uint8_t call = runtime_call(id, name);
      if ((call & kHipCall) != 0) out_.hip_runtime = true;
      const bool launch = (call & kLaunchCall) != 0;
      if (launch && e.correlation < 0) out_.uncorrelated_launches.push_back(ts);
      // Correlation rows are only ever looked up from GPU rows: host-side queries have none.
      if (e.correlation >= 0 && (launch || (call & kHostQueryCall) == 0)) out_.corr.push_back({static_cast<std::uint64_t>(e.correlation), launch ? 1u : 0u, ts, e.dur});
      if ((call & kSyncCall) != 0) out_.syncs.push_back({ts, end, id});
      thread_of(e).runtime.push_back({ts, end, id, false});
      break;
    }
    case Cat::kernel:
    case Cat::memcpy:
    case Cat::memset:
    case Cat::cuda_sync: {
      if (e.cat == Cat::kernel) ++out_.n_kernel;
      if (e.cat == Cat::memcpy) ++out_.n_memcpy;
      if (e.cat == Cat::memset) ++out_.n_memset;
      if (e.cat == Cat::cuda_sync && e.stream == -1) break;  // not on a stream: not GPU time for HTA
      GpuRec g;
      g.ts = ts;
      g.end = end;
      g.correlation = e.correlation;
      g.on_stream = e.stream != -1;
      g.cat = e.cat;
      const GpuClass c = gpu_class(intern(name), name);
      g.type = c.type;
      if (c.type == KernelType::computation) ++out_.n_compute_rows;
      if (c.type == KernelType::communication) ++out_.n_comm_rows;
      g.hta_gpu = (e.stream >= 0 && e.correlation >= 0) || c.sync_name;
      if (e.cat == Cat::memcpy) {
        g.dir = c.copy.dir;
        g.pageable = c.copy.pageable;
        g.bytes = e.bytes > 0 ? e.bytes : 0;
      }
      out_.gpu.push_back(g);
      break;
    }
    case Cat::mtia: ++out_.n_mtia; break;
    case Cat::profiler_range: ++out_.n_profiler_range; break;
    default: break;  // python frames, GPU annotations, overhead, flows
  }
  return true;
}

}  // namespace plumb::trace
