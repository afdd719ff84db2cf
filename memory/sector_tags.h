// Tag array of a sectored, set-associative cache with LRU replacement, and a
// table of miss status holding registers keyed by line; shared by L1 and L2.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "platform/gpu_config.h"

namespace tlmgpu::memory {

/// Sector masks throughout the memory system count 32-byte units of a line
/// (bit i = bytes [32 i, 32 i + 32)); a cache with larger sectors widens a
/// mask to whole sectors with SectorTags::expand.
constexpr uint32_t kSectorUnitBytes = 32;

struct CacheLine {
  uint64_t line = 0;       ///< line address (the tag together with the set)
  bool present = false;
  uint32_t valid = 0;      ///< 32-byte units holding data
  uint32_t dirty = 0;
  uint64_t last_use = 0;   ///< LRU stamp
};

class SectorTags {
 public:
  explicit SectorTags(const platform::CacheConfig& config)
      : ways_(config.ways), line_bytes_(config.line_bytes) {
    const uint32_t units = config.line_bytes / kSectorUnitBytes;
    line_mask_ = units >= 32 ? 0xffffffffu : (1u << units) - 1;
    units_per_sector_ = config.sector_bytes >= kSectorUnitBytes ? config.sector_bytes / kSectorUnitBytes : 1;
    sets_ = config.size_bytes / (config.ways * config.line_bytes);
    if (sets_ == 0) sets_ = 1;
    lines_.resize(size_t(sets_) * ways_);
  }

  uint32_t line_bytes() const { return line_bytes_; }
  uint32_t sets() const { return sets_; }
  /// Every unit of a line.
  uint32_t line_mask() const { return line_mask_; }

  /// Widens a 32-byte-unit mask to whole cache sectors, clipped to the line.
  uint32_t expand(uint32_t units) const {
    units &= line_mask_;
    if (units_per_sector_ == 1) return units;
    const uint32_t group = units_per_sector_ >= 32 ? 0xffffffffu : (1u << units_per_sector_) - 1;
    uint32_t out = 0;
    for (uint32_t first = 0; first < 32; first += units_per_sector_)
      if (units & (group << first)) out |= group << first;
    return out & line_mask_;
  }

  CacheLine* find(uint64_t line) {
    CacheLine* set = set_of(line);
    for (uint32_t w = 0; w < ways_; ++w)
      if (set[w].present && set[w].line == line) return &set[w];
    return nullptr;
  }

  /// The way a new line goes into: an empty way, else the least recently used.
  CacheLine& victim(uint64_t line) {
    CacheLine* set = set_of(line);
    CacheLine* best = &set[0];
    for (uint32_t w = 0; w < ways_; ++w) {
      if (!set[w].present) return set[w];
      if (set[w].last_use < best->last_use) best = &set[w];
    }
    return *best;
  }

  void install(CacheLine& way, uint64_t line) {
    way = CacheLine{};
    way.line = line;
    way.present = true;
    touch(way);
  }
  void touch(CacheLine& way) { way.last_use = ++use_clock_; }
  void invalidate(CacheLine& way) { way = CacheLine{}; }

 private:
  CacheLine* set_of(uint64_t line) { return &lines_[size_t((line / line_bytes_) % sets_) * ways_]; }

  uint32_t sets_ = 1, ways_ = 1, line_bytes_ = 128, units_per_sector_ = 1, line_mask_ = 0xf;
  std::vector<CacheLine> lines_;
  uint64_t use_clock_ = 0;
};

/// Outstanding line misses. An entry remembers which units were requested,
/// how many requests below are still out, and who waits for the line.
template <class Waiter>
class MshrTable {
 public:
  struct Entry {
    uint32_t requested = 0;
    uint32_t outstanding = 0;
    std::vector<Waiter> waiters;
  };

  Entry* find(uint64_t line) {
    auto it = entries_.find(line);
    return it == entries_.end() ? nullptr : &it->second;
  }
  Entry& allocate(uint64_t line) { return entries_[line]; }
  void release(uint64_t line) { entries_.erase(line); }
  size_t size() const { return entries_.size(); }

 private:
  std::unordered_map<uint64_t, Entry> entries_;
};

}  // namespace tlmgpu::memory
