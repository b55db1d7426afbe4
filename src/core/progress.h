// A status line on standard error for work that can take more than a couple of seconds (benches,
// large traces, large job logs, gathering a fleet's results). Drawn only when standard error is a
// terminal (and TERM is not "dumb"), only once the work has run for `delay`, redrawn at most every
// 200 ms by its own thread, and erased when the object is destroyed: reports on standard output
// and redirected standard error never see it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

namespace plumb {

class ProgressLine {
 public:
  // `label` starts the line ("plumb trace"); `poll`, when given, is called on the drawing thread
  // for the current text (it must be thread-safe), else the text is the last one set().
  ProgressLine(std::string label, std::chrono::milliseconds delay = std::chrono::seconds(2),
               std::function<std::string()> poll = {});
  // Tests: draw to `out` whatever the terminal, with a chosen delay.
  ProgressLine(std::string label, std::ostream& out, std::chrono::milliseconds delay, std::function<std::string()> poll = {});
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Thread-safe; cheap (no drawing here).
  void set(std::string text);
  [[nodiscard]] bool enabled() const { return out_ != nullptr; }

  // True when standard error is a terminal that takes carriage returns.
  static bool stderr_is_terminal();

 private:
  void run(std::chrono::milliseconds delay);
  void draw(const std::string& text);

  std::string label_;
  std::ostream* out_;
  std::function<std::string()> poll_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string text_;
  bool stop_ = false;
  std::size_t drawn_ = 0;  // width of the line on screen, to erase it
  std::thread thread_;
};

}  // namespace plumb
