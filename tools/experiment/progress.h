// What the experiment programs print while their runs go: on a terminal one
// status line rewritten in place (runs done / total, failures so far, elapsed,
// estimated time left), with failures kept above it as lines of their own;
// elsewhere (a log file, CI) one plain line per finished run.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace experiment {

class Progress {
 public:
  // `total` counts the runs this invocation starts (not those resumed). On a
  // terminal a thread redraws the line every second (`clock`) so the elapsed
  // time moves during long runs.
  Progress(std::size_t total, std::ostream& out, bool terminal, bool clock = true);
  ~Progress() { close(); }  // also when a launcher throws: the next message starts on a new line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // stderr, rewritten in place when it is a terminal.
  static bool stderr_is_terminal();

  // A run ended; `text` describes it ("ok  gtx480|histogram|small|pro|").
  void finished(bool failed, const std::string& text);
  // A line to keep (e.g. a command line in --verbose) without breaking the status line.
  void note(const std::string& line);
  // Ends the status line.
  void close();

  std::size_t done() const { return done_; }
  std::size_t failures() const { return failures_; }

  // "1h02m", "3m05s", "12s"
  static std::string format_duration(double seconds);

 private:
  std::string status_line() const;
  void redraw();  // with mutex_ held
  void tick();    // the clock thread: elapsed time moves between runs too

  std::size_t total_, done_ = 0, failures_ = 0;
  std::ostream& out_;
  bool terminal_;
  bool drawn_ = false;
  bool closed_ = false;
  std::chrono::steady_clock::time_point start_, last_done_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread clock_;  // terminal only
};

}  // namespace experiment
