// Turns the stream of events of one file into compact records (TraceRecords).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyze/trace/event.h"
#include "analyze/trace/records.h"

namespace plumb::trace {

class RecordBuilder : public EventConsumer {
 public:
  RecordBuilder(std::string name, TraceRecords& out) : name_(std::move(name)), out_(out) {}
  Result<bool> on_event(const RawEvent& e) override;
  // distributedInfo, deviceProperties: raw JSON values of top-level keys.
  void on_header(std::string_view key, std::string_view value);
  [[nodiscard]] std::int64_t events() const { return events_; }
  // Appends what `later` built from the events that follow this builder's in the file: the result
  // equals one builder fed all the events in order (names and threads keep their first-seen order).
  void append(RecordBuilder& later);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::uint32_t intern(std::string_view name);
  // In front of names_: a direct-mapped cache of recent names by a cheap hash of their length and
  // first and last bytes, each hit checked against the interned text (a trace repeats a few thousand
  // names; hashing each in full and the table's lookup were 5 % of the reader's time in `perf`).
  static constexpr std::size_t kNameCache = 4096;
  std::vector<std::uint32_t> name_cache_ = std::vector<std::uint32_t>(kNameCache, ~std::uint32_t{0});
  struct Thread {  // the event's thread's record arrays
    PodVector<CpuRec>& cpu;
    PodVector<CpuRec>& runtime;
  };
  Thread thread_of(const RawEvent& e);
  std::int64_t id_key(const TraceId& id);
  Error bad(const RawEvent& e, const std::string& what) const;

  std::string name_;
  TraceRecords& out_;
  std::int64_t events_ = 0;
  bool seen_step_ = false;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> names_;
  std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> id_strings_;
  std::unordered_map<std::uint64_t, std::uint32_t> threads_;
  struct OwnedId {
    std::int64_t num = 0;
    std::string str;
    bool is_str = false;
    [[nodiscard]] TraceId view() const { return {num, str, is_str}; }
  };
  std::vector<std::pair<OwnedId, OwnedId>> thread_ids_;  // (pid, tid) of each thread, by index
  std::uint64_t thread_key(const TraceId& pid, const TraceId& tid);
  std::uint64_t last_thread_key_ = 0;
  std::int64_t last_thread_ = -1;  // index of the thread of last_thread_key_
  std::unordered_map<std::string, bool, Hash, std::equal_to<>> hta_steps_;
  // What a GPU row's name says (kernel type, copy direction, HTA's sync names), by interned name id
  // (worked out once per name): each classification searches the name for several patterns, and a
  // trace repeats a few hundred kernel names millions of times.
  struct GpuClass {
    KernelType type = KernelType::other;
    CopyKind copy;
    bool sync_name = false;  // "Event Sync" or "Context Sync"
    bool known = false;
  };
  GpuClass gpu_class(std::uint32_t id, std::string_view name);
  std::vector<GpuClass> gpu_classes_;
  // What a runtime call's name says, by interned name id (worked out once per name).
  static constexpr std::uint8_t kLaunchCall = 1, kHostQueryCall = 2, kSyncCall = 4, kHipCall = 8,
                                kUnclassified = 0xff;
  std::uint8_t runtime_call(std::uint32_t id, std::string_view name);
  std::vector<std::uint8_t> runtime_calls_;
};

}  // namespace plumb::trace
