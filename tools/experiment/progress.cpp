#include "tools/experiment/progress.h"

#include <unistd.h>

#include <cstdio>

namespace experiment {

Progress::Progress(std::size_t total, std::ostream& out, bool terminal, bool clock)
    : total_(total), out_(out), terminal_(terminal), start_(std::chrono::steady_clock::now()) {
  if (terminal_ && total_ > 0) {
    redraw();
    if (clock) clock_ = std::thread([this] { tick(); });
  }
}

void Progress::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!closed_) {
    wake_.wait_for(lock, std::chrono::seconds(1));
    if (!closed_) redraw();
  }
}

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

std::string Progress::format_duration(double seconds) {
  const long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

std::string Progress::status_line() const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string s = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + std::to_string(failures_) +
                  (failures_ == 1 ? " failure" : " failures") + ", elapsed " + format_duration(elapsed);
  // The runs are alike enough that the mean so far predicts the rest; the
  // time since the last run ended already counts towards the next ones.
  if (done_ > 0 && done_ < total_) {
    const double at_last = std::chrono::duration<double>(last_done_ - start_).count();
    const double left =
        at_last / static_cast<double>(done_) * static_cast<double>(total_ - done_) - (elapsed - at_last);
    s += ", about " + format_duration(left < 1.0 ? 1.0 : left) + " left";
  } else if (done_ == 0)
    s += ", estimating time left after the first run";
  return s;
}

void Progress::redraw() {
  out_ << "\r\033[K" << status_line() << std::flush;
  drawn_ = true;
}

void Progress::note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (terminal_ && drawn_) out_ << "\r\033[K";
  out_ << line << '\n';
  if (terminal_) redraw();
}

void Progress::finished(bool failed, const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  last_done_ = std::chrono::steady_clock::now();
  if (failed) ++failures_;
  if (!terminal_) {
    out_ << "[" << done_ << "/" << total_ << "] " << text << '\n';
    return;
  }
  if (failed) {
    out_ << "\r\033[K" << text << '\n';
  }
  redraw();
}

void Progress::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return;
    closed_ = true;
    if (terminal_ && drawn_) out_ << '\n' << std::flush;
    drawn_ = false;
  }
  wake_.notify_all();
  if (clock_.joinable()) clock_.join();
}

}  // namespace experiment
