#include "platform/timeline_recorder.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "platform/memory_system.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::platform {

namespace {

// Process ids: the GPU's launches first, then the SMs, then DRAM (sort
// indices keep that order in the viewers).
constexpr uint32_t kGpuPid = 1;
constexpr uint32_t kDramPid = 2;
constexpr uint32_t kFirstSmPid = 10;
constexpr uint32_t kLaunchTid = 1;

// The issue-slot classes in schedulers::StallClass order, named as in the
// statistics (gpu.smN.schedM.<name>).
constexpr const char* kSlotClassNames[4] = {"idle", "issued", "scoreboard", "pipeline"};

std::string quoted(const std::string& text) { return nlohmann::json(text).dump(); }

std::string dim3_text(const exec::Dim3& d) {
  return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

// One event per line: the file stays readable and diffable.
class EventWriter {
 public:
  explicit EventWriter(std::ostream& out) : out_(out) {}
  void event(const std::string& body) {
    out_ << (first_ ? "\n" : ",\n") << '{' << body << '}';
    first_ = false;
  }
  void metadata(const char* kind, uint32_t pid, uint32_t tid, const std::string& args) {
    event("\"name\":\"" + std::string(kind) + "\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":" + std::to_string(tid) + ",\"args\":{" + args + "}");
  }
  void process(uint32_t pid, const std::string& name, uint32_t sort_index) {
    metadata("process_name", pid, 0, "\"name\":" + quoted(name));
    metadata("process_sort_index", pid, 0, "\"sort_index\":" + std::to_string(sort_index));
  }
  void thread(uint32_t pid, uint32_t tid, const std::string& name) {
    metadata("thread_name", pid, tid, "\"name\":" + quoted(name));
    metadata("thread_sort_index", pid, tid, "\"sort_index\":" + std::to_string(tid));
  }
  void span(const std::string& name, const char* category, uint64_t ts, uint64_t dur, uint32_t pid, uint32_t tid,
            const std::string& args) {
    event("\"name\":" + quoted(name) + ",\"cat\":\"" + category + "\",\"ph\":\"X\",\"ts\":" + std::to_string(ts) +
          ",\"dur\":" + std::to_string(dur) + ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
          ",\"args\":{" + args + "}");
  }
  void counter(const std::string& name, uint64_t ts, uint32_t pid, const std::string& args) {
    event("\"name\":" + quoted(name) + ",\"ph\":\"C\",\"ts\":" + std::to_string(ts) + ",\"pid\":" +
          std::to_string(pid) + ",\"tid\":0,\"args\":{" + args + "}");
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

std::string field(const char* key, uint64_t value) { return "\"" + std::string(key) + "\":" + std::to_string(value); }
std::string field(const char* key, const std::string& value) { return "\"" + std::string(key) + "\":" + quoted(value); }

std::string slot_args(const std::array<uint64_t, 4>& counts) {
  std::string args;
  for (size_t c = 0; c < counts.size(); ++c) args += (c ? "," : "") + field(kSlotClassNames[c], counts[c]);
  return args;
}

std::string scheduler_counter_name(uint32_t scheduler) { return "sched" + std::to_string(scheduler) + " issue slots"; }
std::string channel_counter_name(uint32_t channel) { return "channel " + std::to_string(channel) + " queue depth"; }

}  // namespace

// ------------------------------------------------------------------ tracks

void TimelineRecorder::SchedulerTrack::begin(uint64_t start_cycle) {
  cursor = start_cycle;
  bins.clear();
}

void TimelineRecorder::SchedulerTrack::slots(uint8_t stall_class, uint64_t cycles) {
  // Outside a launch the SMs account nothing; a stray call must not index past the bins.
  if (!owner_.running_ || stall_class >= 4) return;
  const uint64_t interval = owner_.interval_;
  // The cycles may span several intervals (an SM that slept).
  while (cycles != 0) {
    const uint64_t offset = cursor - owner_.start_cycle_;
    const size_t bin = size_t(offset / interval);
    const uint64_t take = std::min(cycles, interval - offset % interval);
    if (bins.size() <= bin) bins.resize(bin + 1, SlotCounts{});
    bins[bin][stall_class] += take;
    cursor += take;
    cycles -= take;
  }
}

void TimelineRecorder::ChannelTrack::fill_to(size_t bin) {
  while (bins.size() <= bin) bins.push_back({current, current});
}

void TimelineRecorder::ChannelTrack::depth(uint64_t core_cycle, uint32_t requests) {
  // Between launches (a drain) and before the first cycle only the level carries on.
  if (owner_.running_ && core_cycle >= owner_.start_cycle_) {
    const size_t bin = size_t((core_cycle - owner_.start_cycle_) / owner_.interval_);
    fill_to(bin);
    bins[bin].max = std::max(bins[bin].max, requests);
  }
  current = requests;
}

// ---------------------------------------------------------------- recorder

TimelineRecorder::TimelineRecorder(uint64_t interval_cycles) : interval_(interval_cycles) {
  if (interval_ == 0) throw std::invalid_argument("timeline interval must be at least 1 cycle");
}

TimelineRecorder::~TimelineRecorder() { detach(); }

void TimelineRecorder::attach(GpuTop& top) {
  detach();
  top_ = &top;
  const core::GpuConfig& config = top.config();
  core_clock_mhz_ = config.core_clock_mhz;
  preset_ = config.preset;
  scheduler_policy_ = config.scheduler;
  num_sms_ = uint32_t(top.sms().size());
  schedulers_per_sm_ = 0;
  for (uint32_t s = 0; s < num_sms_; ++s) {
    const auto& scheds = top.sms()[s]->schedulers();
    schedulers_per_sm_ = std::max(schedulers_per_sm_, uint32_t(scheds.size()));
    for (uint32_t k = 0; k < scheds.size(); ++k) {
      schedulers_.push_back(std::make_unique<SchedulerTrack>(*this, s, k));
      scheds[k]->set_slot_sink(schedulers_.back().get());
    }
  }
  platform::MemorySystem& memory = top.memory_system();
  for (uint32_t c = 0; c < memory.dram_channels(); ++c) {
    channels_.push_back(std::make_unique<ChannelTrack>(*this));
    memory.dram_channel(c).set_depth_sink(channels_.back().get());
  }
  top.set_launch_observer(this);
}

void TimelineRecorder::detach() {
  if (!top_) return;
  for (const auto& sm : top_->sms())
    for (const auto& sched : sm->schedulers()) sched->set_slot_sink(nullptr);
  platform::MemorySystem& memory = top_->memory_system();
  for (uint32_t c = 0; c < memory.dram_channels(); ++c) memory.dram_channel(c).set_depth_sink(nullptr);
  top_->set_launch_observer(nullptr);
  top_ = nullptr;
  schedulers_.clear();
  channels_.clear();
  running_ = false;
}

void TimelineRecorder::launch_started(const std::string& kernel, const exec::Dim3& grid, uint32_t threads_per_cta,
                                      uint64_t start_cycle) {
  // A launch that faulted never finished: its samples are dropped here.
  running_ = true;
  start_cycle_ = start_cycle;
  kernel_ = kernel;
  grid_ = grid;
  threads_per_cta_ = threads_per_cta;
  for (auto& s : schedulers_) s->begin(start_cycle);
  for (auto& c : channels_) c->bins.clear();
}

void TimelineRecorder::launch_finished(const TimingLaunchRecord& record) {
  running_ = false;
  Launch l;
  l.kernel = kernel_;
  l.grid = grid_;
  l.threads_per_cta = threads_per_cta_;
  l.record = record;
  // Every interval of the launch has a sample, the last one possibly shorter.
  const size_t bins = size_t((record.cycles + interval_ - 1) / interval_);
  for (auto& s : schedulers_) {
    s->bins.resize(bins, SlotCounts{});
    l.scheduler_bins.push_back(std::move(s->bins));
    s->bins.clear();
  }
  for (auto& c : channels_) {
    if (bins) c->fill_to(bins - 1);
    c->bins.resize(bins);
    l.channel_bins.push_back(std::move(c->bins));
    c->bins.clear();
  }
  launches_.push_back(std::move(l));
}

void TimelineRecorder::write(std::ostream& out) const {
  out << "{\"displayTimeUnit\":\"ms\",\n\"otherData\":{"
      << field("generator", std::string("tlmgpu run --timeline")) << ","
      << field("time_unit", std::string("1 us of trace time = 1 GPU core cycle")) << ","
      << "\"core_clock_mhz\":" << nlohmann::json(core_clock_mhz_).dump() << "," << field("preset", preset_) << ","
      << field("scheduler", scheduler_policy_) << "," << field("interval_cycles", interval_) << ","
      << field("launches", uint64_t(launches_.size())) << "},\n\"traceEvents\":[";
  EventWriter w(out);

  w.process(kGpuPid, "GPU", 0);
  w.thread(kGpuPid, kLaunchTid, "launches");
  // CTA rows per SM: enough for the most CTAs any launch had resident at once.
  std::vector<uint32_t> sm_rows(num_sms_, 0);
  // Per launch and CTA (by linear id), the row its span goes on.
  std::vector<std::vector<uint32_t>> cta_rows(launches_.size());
  for (size_t li = 0; li < launches_.size(); ++li) {
    const auto& ctas = launches_[li].record.ctas;
    // The dispatcher starts CTAs in id order: the first row free at a CTA's
    // start (its previous CTA ended before) keeps overlapping CTAs apart.
    std::vector<std::vector<uint64_t>> row_free_at(num_sms_);
    cta_rows[li].resize(ctas.size());
    for (size_t i = 0; i < ctas.size(); ++i) {
      const auto& c = ctas[i];
      if (c.sm >= num_sms_) continue;
      auto& rows = row_free_at[c.sm];
      size_t r = 0;
      while (r < rows.size() && rows[r] > c.start) ++r;
      if (r == rows.size()) rows.push_back(0);
      rows[r] = c.end + 1;
      cta_rows[li][i] = uint32_t(r);
      sm_rows[c.sm] = std::max(sm_rows[c.sm], uint32_t(rows.size()));
    }
  }
  for (uint32_t s = 0; s < num_sms_; ++s) {
    w.process(kFirstSmPid + s, "SM " + std::to_string(s), kFirstSmPid + s);
    for (uint32_t r = 0; r < sm_rows[s]; ++r) w.thread(kFirstSmPid + s, r + 1, "CTAs " + std::to_string(r));
  }
  if (!channels_.empty()) w.process(kDramPid, "DRAM", kFirstSmPid + num_sms_);

  for (size_t li = 0; li < launches_.size(); ++li) {
    const Launch& l = launches_[li];
    const TimingLaunchRecord& rec = l.record;
    const uint64_t t0 = rec.start_cycle;
    const Occupancy& o = rec.occupancy;
    w.span(l.kernel, "launch", t0, rec.cycles, kGpuPid, kLaunchTid,
           field("launch", uint64_t(li)) + "," + field("kernel", l.kernel) + "," + field("grid", dim3_text(l.grid)) +
               "," + field("threads_per_cta", l.threads_per_cta) + "," + field("start_cycle", t0) + "," +
               field("cycles", rec.cycles) + "," + field("regs_per_thread", o.regs_per_thread) + "," +
               field("ctas_per_sm", o.ctas_per_sm) + "," + field("warps_per_sm", o.warps_per_sm) + "," +
               field("limited_by", o.limited_by));
    for (size_t i = 0; i < rec.ctas.size(); ++i) {
      const auto& c = rec.ctas[i];
      if (c.sm >= num_sms_) continue;
      const exec::Dim3 id{uint32_t(i % l.grid.x), uint32_t(i / l.grid.x % l.grid.y),
                          uint32_t(i / (uint64_t(l.grid.x) * l.grid.y))};
      // Cycles are inclusive: a CTA that starts and ends in one cycle lasts one.
      w.span(l.kernel + " cta " + std::to_string(i), "cta", t0 + c.start, c.end - c.start + 1, kFirstSmPid + c.sm,
             cta_rows[li][i] + 1,
             field("kernel", l.kernel) + "," + field("launch", uint64_t(li)) + "," + field("cta", dim3_text(id)) +
                 "," + field("cta_linear", uint64_t(i)) + "," + field("sm", uint64_t(c.sm)) + "," +
                 field("start_cycle", c.start) + "," + field("end_cycle", c.end));
    }
    // A counter holds its value until its next sample: after the launch
    // every track drops to zero, unless the next launch starts right there.
    const uint64_t end = t0 + rec.cycles;
    const bool close = li + 1 == launches_.size() || launches_[li + 1].record.start_cycle > end;
    for (size_t k = 0; k < l.scheduler_bins.size(); ++k) {
      const SchedulerTrack& track = *schedulers_[k];
      const std::string name = scheduler_counter_name(track.scheduler);
      const uint32_t pid = kFirstSmPid + track.sm;
      for (size_t b = 0; b < l.scheduler_bins[k].size(); ++b)
        w.counter(name, t0 + b * interval_, pid, slot_args(l.scheduler_bins[k][b]));
      if (close) w.counter(name, end, pid, slot_args(SlotCounts{}));
    }
    for (size_t ch = 0; ch < l.channel_bins.size(); ++ch) {
      const std::string name = channel_counter_name(uint32_t(ch));
      for (size_t b = 0; b < l.channel_bins[ch].size(); ++b) {
        const DepthSample& d = l.channel_bins[ch][b];
        w.counter(name, t0 + b * interval_, kDramPid, field("depth", d.at_start) + "," + field("max", d.max));
      }
      if (close) w.counter(name, end, kDramPid, field("depth", uint64_t(0)) + "," + field("max", uint64_t(0)));
    }
  }
  out << "\n]}\n";
}

void TimelineRecorder::write_file(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) write(out);
  out.flush();
  if (!out) throw std::runtime_error("--timeline: cannot write '" + path + "'");
}

}  // namespace tlmgpu::platform
