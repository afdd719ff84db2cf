// Instruction traces: a small text format giving each warp a list of
// instructions (class, latency, destination and source registers), for
// exact, hand-checkable scheduler tests and as the SM's second instruction
// source. Format (docs/SCHEDULERS.md, "Instruction traces"):
//
//   # seed 004 Fig. 1
//   latency long=10 short=1
//   warp 1,3,5,6: long r1 <- r0 ; long r2 <- r1 ; short r3 <- r2 ; long r4 <- r3
//   warp 2,4:     short r1 <- r0 ; short r2 <- r1 ; long r3 <- r2 ; long r4 <- r3
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/head_class.h"
#include "model/ptx/ptx_ir.h"

namespace tlmgpu::trace {

/// Instruction classes of the trace format; the text names are in
/// to_string() (e.g. "ld.global").
enum class TraceOp : uint8_t {
  Alu, Short, Long, Sfu, Dp,
  LdGlobal, StGlobal, LdLocal, StLocal, LdShared, StShared,
  Bar, Exit, Nop,
  Count_
};

const char* to_string(TraceOp op);
/// The execution unit an instruction class uses.
ptx::UnitClass unit_of(TraceOp op);
/// Global / local memory (or the generic `long`): the long-latency class.
bool is_long_memory(TraceOp op);
bool is_store(TraceOp op);
/// Latency an instruction class gets unless the trace sets another.
uint32_t default_latency(TraceOp op);
/// The class a warp scheduler policy sees when the instruction heads the buffer.
core::HeadClass head_class_of(TraceOp op);
/// The PTX opcode policies are told an instruction of this class issued as.
ptx::Opcode opcode_of(TraceOp op);

/// Registers: r<N> is N, p<N> is kPredicateRegister + N.
constexpr uint32_t kPredicateRegister = 1u << 20;

struct TraceInstruction {
  TraceOp op = TraceOp::Nop;
  uint32_t latency = 1;               ///< cycles from issue until its results are written
  ptx::UnitClass unit = ptx::UnitClass::SP;
  std::vector<uint32_t> dst;
  std::vector<uint32_t> src;
  uint32_t line = 0;                  ///< where it was written
  uint32_t column = 0;
};

struct TraceWarp {
  uint32_t id = 0;                    ///< the number after `warp`
  std::vector<TraceInstruction> instructions;
};

constexpr size_t kUnitClasses = 6;  ///< ptx::UnitClass SP .. BAR

struct WarpTrace {
  std::string source;                 ///< file name (or the name given to the parser)
  std::vector<TraceWarp> warps;       ///< ascending id
  /// Initiation interval per execution unit (indexed by ptx::UnitClass):
  /// a unit accepts one instruction every this many cycles (default 1).
  std::array<uint32_t, kUnitClasses> unit_interval{1, 1, 1, 1, 1, 1};
  size_t instruction_count() const;
};

/// A problem at a place in a trace: what() is "file:line:column: message".
class TraceError : public std::runtime_error {
 public:
  TraceError(const std::string& file, uint32_t line, uint32_t column, const std::string& message);
  uint32_t line() const { return line_; }
  uint32_t column() const { return column_; }

 private:
  uint32_t line_;
  uint32_t column_;
};

/// Parses trace text; `source_name` is used in error messages.
WarpTrace parse_warp_trace(const std::string& text, const std::string& source_name = "<trace>");
/// Reads and parses a file (an unreadable file is a TraceError at 0:0).
WarpTrace load_warp_trace(const std::string& path);

}  // namespace tlmgpu::trace
