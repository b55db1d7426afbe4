#include "core/progress.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "core/terminal_text.h"

namespace plumb {

bool ProgressLine::stderr_is_terminal() {
  if (::isatty(STDERR_FILENO) == 0) return false;
  const char* term = std::getenv("TERM");  // NOLINT(concurrency-mt-unsafe): read-only use
  return term == nullptr || std::string(term) != "dumb";
}

ProgressLine::ProgressLine(std::string label, std::chrono::milliseconds delay, std::function<std::string()> poll)
    : label_(std::move(label)), out_(stderr_is_terminal() ? &unfiltered_stderr() : nullptr), poll_(std::move(poll)) {
  // The spinner is a loop beside the work, not data-parallel work (core/parallel.h).
  if (out_ != nullptr) thread_ = std::thread([this, delay] { run(delay); });
}

ProgressLine::ProgressLine(std::string label, std::ostream& out, std::chrono::milliseconds delay, std::function<std::string()> poll)
    : label_(std::move(label)), out_(&out), poll_(std::move(poll)) {
  thread_ = std::thread([this, delay] { run(delay); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (drawn_ > 0) *out_ << '\r' << std::string(drawn_, ' ') << '\r' << std::flush;
}

void ProgressLine::set(std::string text) {
  if (out_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  text_ = std::move(text);
}

void ProgressLine::draw(const std::string& text) {
  // Drawn past the filter of standard error (it would show the carriage returns), so made safe here.
  std::string line = terminal_text(label_ + ": " + text);
  // Columns, not bytes: UTF-8 continuation bytes take no column.
  std::size_t width = 0;
  for (unsigned char c : line) width += (c & 0xC0U) != 0x80U ? 1 : 0;
  std::string pad = width < drawn_ ? std::string(drawn_ - width, ' ') : std::string();
  *out_ << '\r' << line << pad << std::flush;
  drawn_ = width;
}

void ProgressLine::run(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mu_);
  if (cv_.wait_for(lock, delay, [this] { return stop_; })) return;
  while (!stop_) {
    std::string text = text_;
    lock.unlock();
    if (poll_) text = poll_();
    if (!text.empty()) draw(text);
    lock.lock();
    cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; });
  }
}

}  // namespace plumb
