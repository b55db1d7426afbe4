// A table that many translation units fill during static initialisation (the finding catalogue,
// interface words, phrases, thresholds), built on its first read instead of at process start.
//
// A translation unit registers a function that returns its rows (`register_ui([] { return
// std::vector<UiString>{...}; })`); the rows are built and inserted when a command first reads the
// table. A command that never reads a table (`plumb --version`, an English report never reading the
// zh-CN phrases) never builds it, and `plumb check` builds what the report needs while its collectors
// run (warm_tables() in core/registry.h) instead of before it can start them.
//
// Rows given directly (a vector, not a function) are inserted at once: tests use that to register a
// row inside a test body. Reads from several threads build the table once.
#pragma once

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

namespace plumb {

template <class Table, class Row>
class LazyTable {
 public:
  using RowsFn = std::vector<Row> (*)();
  using Insert = void (*)(Table&, std::vector<Row>&&);

  explicit LazyTable(Insert insert) : insert_(insert) {}

  bool defer(RowsFn fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(fn);
    ready_.store(false, std::memory_order_release);
    return true;
  }

  // Inserts now (after every deferred row, so a duplicate is reported against the first one).
  bool add(std::vector<Row> rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    drain();
    insert_(table_, std::move(rows));
    return true;
  }

  Table& get() {
    if (!ready_.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mutex_);
      drain();
      ready_.store(true, std::memory_order_release);
    }
    return table_;
  }

 private:
  // A function is taken off the list before it runs, so a duplicate row (a logic_error from
  // insert_) is reported once and the table stays usable for the rest.
  void drain() {
    while (!pending_.empty()) {
      RowsFn fn = pending_.front();
      pending_.erase(pending_.begin());
      insert_(table_, fn());
    }
  }

  Insert insert_;
  std::mutex mutex_;
  std::vector<RowsFn> pending_;
  std::atomic<bool> ready_{true};
  Table table_;
};

}  // namespace plumb
