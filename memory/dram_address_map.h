// Channel-local DRAM address -> (bank, row, column), from a bit pattern in
// GPGPU-Sim's notation (`-gpgpu_mem_addr_mapping` without its dramid part:
// here the L2 slice has already chosen the channel).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tlmgpu::memory {

/// The pattern lists the address bits most significant first: R (row),
/// B (bank), C or S (column; GPGPU-Sim's S marks the offset inside a burst),
/// 0 (a bit the address never sets; only before the first letter); '.', '|'
/// and ' ' only group. The last character is bit 0. Bits above the pattern
/// are the row's most significant bits, so no two addresses alias.
/// Each field packs its bits in address order (GPGPU-Sim's packbits).
class DramAddressMap {
 public:
  struct Location {
    uint32_t bank = 0;
    uint64_t row = 0;
    uint32_t column = 0;
  };

  /// Parses `pattern`; on an error returns false and says why in `error`.
  bool parse(const std::string& pattern, std::string& error) {
    bank_.clear();
    row_.clear();
    column_.clear();
    bank_bits_ = row_bits_ = column_bits_ = 0;
    std::vector<char> bits;  // least significant first
    bool letter_seen = false;
    for (auto it = pattern.begin(); it != pattern.end(); ++it) {
      const char c = *it;
      if (c == '.' || c == '|' || c == ' ') continue;
      if (c == 'R' || c == 'B' || c == 'C' || c == 'S') {
        letter_seen = true;
      } else if (c == '0') {
        if (letter_seen) {
          error = "'0' (an unused bit) may only lead the pattern";
          return false;
        }
      } else {
        error = std::string("unexpected character '") + c + "' (allowed: R B C S 0 . |)";
        return false;
      }
      bits.insert(bits.begin(), c);
    }
    if (bits.size() > 64) {
      error = "more than 64 bits";
      return false;
    }
    top_ = 0;
    while (top_ < bits.size() && bits[top_] != '0') ++top_;  // first unused bit
    for (uint32_t b = 0; b < top_; ++b) {
      const char c = bits[b];
      std::vector<Run>& runs = c == 'R' ? row_ : c == 'B' ? bank_ : column_;
      uint32_t& count = c == 'R' ? row_bits_ : c == 'B' ? bank_bits_ : column_bits_;
      // Extend the field's last run when this bit follows it in the address.
      if (!runs.empty() && runs.back().shift + runs.back().width == b)
        ++runs.back().width;
      else
        runs.push_back({uint8_t(b), 1, uint8_t(count)});
      ++count;
    }
    if (bank_bits_ > 32 || column_bits_ > 32) {
      error = "more than 32 bank or column bits";
      return false;
    }
    return true;
  }

  uint32_t bank_bits() const { return bank_bits_; }
  uint32_t column_bits() const { return column_bits_; }
  /// The lowest address bit that is not a column bit (a block below it lies
  /// in one row of one bank).
  uint32_t first_non_column_bit() const {
    return column_.empty() || column_[0].shift != 0 ? 0 : column_[0].width;
  }

  Location locate(uint64_t addr) const {
    Location l;
    l.bank = uint32_t(gather(bank_, addr));
    l.column = uint32_t(gather(column_, addr));
    // Bits above the pattern (and its unused leading bits) continue the row.
    l.row = gather(row_, addr) | (top_ >= 64 ? 0 : (addr >> top_) << row_bits_);
    return l;
  }

 private:
  struct Run {
    uint8_t shift;  ///< first address bit
    uint8_t width;
    uint8_t to;     ///< first field bit
  };
  static uint64_t gather(const std::vector<Run>& runs, uint64_t addr) {
    uint64_t v = 0;
    for (const Run& r : runs)
      v |= ((addr >> r.shift) & (r.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << r.width) - 1)) << r.to;
    return v;
  }
  std::vector<Run> bank_, row_, column_;
  uint32_t bank_bits_ = 0, row_bits_ = 0, column_bits_ = 0;
  uint32_t top_ = 0;
};

}  // namespace tlmgpu::memory
