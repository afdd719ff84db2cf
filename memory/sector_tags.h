// Tag array of a sectored, set-associative cache with LRU replacement, and a
// table of miss status holding registers keyed by line; shared by L1 and L2.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "core/gpu_config.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tlmgpu::memory {

/// Sector masks throughout the memory system count 32-byte units of a line
/// (bit i = bytes [32 i, 32 i + 32)); a cache with larger sectors widens a
/// mask to whole sectors with SectorTags::expand.
constexpr uint32_t kSectorUnitBytes = 32;

struct CacheLine {
  /// Line address (the tag together with the set); kNoLine, which no aligned
  /// line equals, while not present, so a lookup compares only this.
  static constexpr uint64_t kNoLine = ~uint64_t(0);
  uint64_t line = kNoLine;
  bool present = false;
  uint32_t valid = 0;      ///< 32-byte units holding data
  uint32_t dirty = 0;
  uint64_t last_use = 0;   ///< LRU stamp
};

class SectorTags {
 public:
  explicit SectorTags(const core::CacheConfig& config)
      : ways_(config.ways), line_bytes_(config.line_bytes) {
    const uint32_t units = config.line_bytes / kSectorUnitBytes;
    line_mask_ = units >= 32 ? 0xffffffffu : (1u << units) - 1;
    units_per_sector_ = config.sector_bytes >= kSectorUnitBytes ? config.sector_bytes / kSectorUnitBytes : 1;
    sets_ = config.size_bytes / (config.ways * config.line_bytes);
    if (sets_ == 0) sets_ = 1;
    lines_.resize(size_t(sets_) * ways_);
    // Power-of-two geometry (the usual case) indexes without dividing.
    pow2_ = (line_bytes_ & (line_bytes_ - 1)) == 0 && (sets_ & (sets_ - 1)) == 0;
    while ((1u << line_shift_) < line_bytes_) ++line_shift_;
    keys_.assign(lines_.size(), key_of(CacheLine::kNoLine));
    // Lines of up to 8 units (every preset) widen a mask by table look-up.
    if (units <= 8) {
      expand_table_.resize(size_t(1) << units);
      for (uint32_t m = 0; m < expand_table_.size(); ++m) expand_table_[m] = expand_slow(m);
    }
  }

  uint32_t line_bytes() const { return line_bytes_; }
  /// The line an address belongs to.
  uint64_t line_of(uint64_t addr) const {
    return pow2_ ? addr & ~uint64_t(line_bytes_ - 1) : addr - addr % line_bytes_;
  }
  uint32_t sets() const { return sets_; }
  /// Every unit of a line.
  uint32_t line_mask() const { return line_mask_; }

  /// Widens a 32-byte-unit mask to whole cache sectors, clipped to the line.
  uint32_t expand(uint32_t units) const {
    units &= line_mask_;
    if (units < expand_table_.size()) return expand_table_[units];
    return expand_slow(units);
  }
  /// The sectors all of whose units are in `units` (a write that covers
  /// them whole), as units.
  uint32_t whole_sectors(uint32_t units) const {
    units &= line_mask_;
    if (units_per_sector_ == 1) return units;
    const uint32_t group = units_per_sector_ >= 32 ? 0xffffffffu : (1u << units_per_sector_) - 1;
    uint32_t out = 0;
    for (uint32_t first = 0; first < 32; first += units_per_sector_)
      if ((units & (group << first)) == (group << first)) out |= group << first;
    return out & line_mask_;
  }
  /// expand() without the table (`units` already clipped to the line).
  uint32_t expand_slow(uint32_t units) const {
    if (units_per_sector_ == 1) return units;
    const uint32_t group = units_per_sector_ >= 32 ? 0xffffffffu : (1u << units_per_sector_) - 1;
    uint32_t out = 0;
    for (uint32_t first = 0; first < 32; first += units_per_sector_)
      if (units & (group << first)) out |= group << first;
    return out & line_mask_;
  }

  CacheLine* find(uint64_t line) {
    const size_t first = set_index(line) * ways_;
#if defined(__SSE2__)
    // Four ways' keys in one compare; a matching key is only a candidate
    // (keys drop the line's high bits), the full line decides.
    if (ways_ % 4 == 0) {
      const __m128i want = _mm_set1_epi32(int(key_of(line)));
      for (size_t w = first, end = first + ways_; w < end; w += 4) {
        const __m128i have = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&keys_[w]));
        for (uint32_t m = uint32_t(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(have, want)))); m; m &= m - 1) {
          CacheLine& way = lines_[w + uint32_t(__builtin_ctz(m))];
          if (way.line == line) return &way;
        }
      }
      return nullptr;
    }
#endif
    CacheLine* set = &lines_[first];
    for (uint32_t w = 0; w < ways_; ++w)
      if (set[w].line == line) return &set[w];
    return nullptr;
  }

  /// The way a new line goes into: the first empty way, else the least
  /// recently used. One pass for both: an empty way's stamp is 0 and a
  /// present line's at least 1 (touch counts from 1), so the first way with
  /// the least stamp is the first empty one when there is one.
  CacheLine& victim(uint64_t line) {
    CacheLine* set = set_of(line);
    CacheLine* best = &set[0];
    for (uint32_t w = 1; w < ways_; ++w)
      if (set[w].last_use < best->last_use) best = &set[w];
    return *best;
  }

  bool set_has_dirty(uint64_t line) {
    CacheLine* set = set_of(line);
    for (uint32_t w = 0; w < ways_; ++w)
      if (set[w].present && set[w].dirty) return true;
    return false;
  }

  void install(CacheLine& way, uint64_t line) {
    way = CacheLine{};
    way.line = line;
    way.present = true;
    keys_[size_t(&way - lines_.data())] = key_of(line);
    touch(way);
  }
  void touch(CacheLine& way) { way.last_use = ++use_clock_; }
  void invalidate(CacheLine& way) {
    way = CacheLine{};
    keys_[size_t(&way - lines_.data())] = key_of(CacheLine::kNoLine);
  }
  /// Forgets every line (and LRU history).
  void invalidate_all() {
    for (CacheLine& l : lines_) l = CacheLine{};
    keys_.assign(lines_.size(), key_of(CacheLine::kNoLine));
    use_clock_ = 0;
  }

 private:
  size_t set_index(uint64_t line) const {
    return pow2_ ? size_t((line >> line_shift_) & (sets_ - 1)) : size_t((line / line_bytes_) % sets_);
  }
  CacheLine* set_of(uint64_t line) { return &lines_[set_index(line) * ways_]; }
  /// find()'s short key of a line: the low 32 bits of its line number (the
  /// bits that tell lines of one set apart, for the first 2^32 lines).
  uint32_t key_of(uint64_t line) const { return uint32_t(line >> line_shift_); }

  uint32_t sets_ = 1, ways_ = 1, line_bytes_ = 128, units_per_sector_ = 1, line_mask_ = 0xf;
  uint32_t line_shift_ = 0;
  bool pow2_ = false;
  std::vector<CacheLine> lines_;
  /// key_of(line) of every way, beside lines_ so that find() compares the
  /// keys of a set in a few wide instructions instead of way by way.
  std::vector<uint32_t> keys_;
  std::vector<uint32_t> expand_table_;  ///< expand() of every mask of the line's units, when few
  uint64_t use_clock_ = 0;
};

/// Outstanding line misses, few enough to search linearly (no hashing, no
/// allocation once warm). An entry remembers the units requested below, the
/// arrival cycle of those already answered, the transactions not yet applied
/// to the tags, the requests merged into it, and who still waits.
template <class Waiter>
class MshrTable {
 public:
  struct Entry {
    uint64_t line = 0;
    bool active = false;
    uint32_t requested = 0;
    uint32_t known = 0;
    uint32_t unapplied = 0;
    uint32_t requests = 0;
    uint32_t dirty = 0;  ///< units atomics modify (L2)
    /// Usually every known unit arrives in one cycle (one request below per
    /// line): then `ready` is not written and same_ready holds that cycle.
    bool all_same = false;
    uint64_t same_ready = 0;
    std::array<uint64_t, 32> ready{};  ///< per 32-byte unit, once arrivals differ
    std::vector<Waiter> waiters;

    /// Latest arrival among `units` (all known).
    uint64_t ready_of(uint32_t units) const {
      if (all_same) return units ? same_ready : 0;
      uint64_t r = 0;
      for (; units; units &= units - 1) r = std::max(r, ready[__builtin_ctz(units)]);
      return r;
    }
    void set_ready(uint32_t units, uint64_t cycle) {
      if (known == 0) {
        all_same = true;
        same_ready = cycle;
      } else if (all_same && cycle != same_ready) {
        // The first different arrival: give the known units their cycle.
        for (uint32_t k = known; k; k &= k - 1) ready[__builtin_ctz(k)] = same_ready;
        all_same = false;
      }
      known |= units;
      if (!all_same)
        for (; units; units &= units - 1) ready[__builtin_ctz(units)] = cycle;
    }
  };

  Entry* find(uint64_t line) {
    if (index_.empty()) return nullptr;
    for (size_t h = home(line);; h = (h + 1) & index_mask_) {
      const uint32_t e = index_[h];
      if (e == kNone) return nullptr;
      if (keys_[e] == line) return &entries_[e];
    }
  }
  Entry& allocate(uint64_t line) {
    size_t i;
    if (free_.empty()) {
      i = keys_.size();
      keys_.push_back(kFree);
      entries_.emplace_back();
      if (keys_.size() * 2 > index_.size()) rebuild_index(keys_.size() * 4);
    } else {
      i = free_.back();
      free_.pop_back();
    }
    // Reset field by field: `ready` is only read for `known` units, which
    // set_ready wrote, and the waiters keep their capacity.
    Entry& slot = entries_[i];
    slot.waiters.clear();
    slot.requested = slot.known = slot.unapplied = slot.requests = slot.dirty = 0;
    slot.line = line;
    slot.active = true;
    keys_[i] = line;
    insert_index(uint32_t(i));
    ++active_;
    return slot;
  }
  void release(Entry& e) {
    for (size_t h = home(e.line);; h = (h + 1) & index_mask_) {
      const uint32_t i = index_[h];
      if (i == kNone) break;
      if (keys_[i] == e.line) {
        erase_index(h);
        keys_[i] = kFree;
        free_.push_back(i);
        break;
      }
    }
    e.active = false;
    --active_;
  }
  size_t size() const { return active_; }

 private:
  static constexpr uint64_t kFree = ~uint64_t(0);  // never a line address (lines are aligned)
  static constexpr uint32_t kNone = ~uint32_t(0);

  // Lines are looked up on every miss, fill and answer: an open-addressing
  // index (linear probing, at most half full) instead of a walk over every
  // entry. Which entry a line gets never shows outside the table.
  size_t home(uint64_t line) const { return size_t((line * 0x9E3779B97F4A7C15ull) >> index_shift_); }
  void insert_index(uint32_t i) {
    size_t h = home(keys_[i]);
    while (index_[h] != kNone) h = (h + 1) & index_mask_;
    index_[h] = i;
  }
  /// Removes index_[hole], moving later entries of its probe run back.
  void erase_index(size_t hole) {
    for (size_t j = (hole + 1) & index_mask_; index_[j] != kNone; j = (j + 1) & index_mask_) {
      const size_t h = home(keys_[index_[j]]);
      if (((j - h) & index_mask_) >= ((j - hole) & index_mask_)) {
        index_[hole] = index_[j];
        hole = j;
      }
    }
    index_[hole] = kNone;
  }
  void rebuild_index(size_t at_least) {
    size_t size = 16;
    uint32_t bits = 4;
    while (size < at_least) {
      size *= 2;
      ++bits;
    }
    index_.assign(size, kNone);
    index_mask_ = size - 1;
    index_shift_ = 64 - bits;
    for (size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != kFree) insert_index(uint32_t(i));
  }

  std::vector<uint64_t> keys_;  ///< line of each entry, kFree when unused
  std::deque<Entry> entries_;  ///< stable addresses
  std::vector<uint32_t> free_;  ///< unused entries
  std::vector<uint32_t> index_;  ///< entry numbers by hashed line, kNone when empty
  size_t index_mask_ = 0;
  uint32_t index_shift_ = 63;
  size_t active_ = 0;
};

}  // namespace tlmgpu::memory
