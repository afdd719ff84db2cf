// Launch files: the element types buffers hold (u8 ... f64) and the value
// sources that fill and check them (constants, seeded random data,
// sequences, literal bytes), shared by the parser and the runner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"

namespace tlmgpu::platform::launch_file {

enum class Elem : uint8_t { U8, S8, U16, S16, U32, S32, U64, S64, F32, F64 };

struct ElemInfo {
  const char* name;
  unsigned bytes;
  bool is_signed;
  bool is_float;
};

// Indexed by Elem.
inline constexpr ElemInfo kElems[] = {
    {"u8", 1, false, false},  {"s8", 1, true, false},  {"u16", 2, false, false},
    {"s16", 2, true, false},  {"u32", 4, false, false}, {"s32", 4, true, false},
    {"u64", 8, false, false}, {"s64", 8, true, false},  {"f32", 4, false, true},
    {"f64", 8, false, true},
};

inline const ElemInfo& info(Elem e) { return kElems[static_cast<size_t>(e)]; }

/// "u8, s8, ..., f64", for messages.
std::string elem_names();

uint64_t width_mask(Elem e);

// Little-endian element access, independent of the host's byte order.
uint64_t load_bits(const uint8_t* p, unsigned bytes);
void store_bits(uint8_t* p, unsigned bytes, uint64_t v);

int64_t to_signed(Elem e, uint64_t bits);
double to_double(Elem e, uint64_t bits);
/// Bits of `d` as an f32 (rounded) or an f64.
uint64_t from_double(Elem e, double d);
/// Enough digits to read the same value back.
std::string to_text(Elem e, uint64_t bits);
bool is_zero(Elem e, uint64_t bits);

/// Numeric order of two values of type e (-1, 0, 1); NaN sorts after everything.
int compare_values(Elem e, uint64_t a, uint64_t b);

/// The type a sum of elements of type e is taken in: f64, s64 or u64.
Elem sum_type(Elem e);

// Fault kinds as launch files name them ("out_of_bounds", ...).
std::optional<exec::FaultKind> fault_kind_from_name(const std::string& s);
const char* fault_kind_name(exec::FaultKind k);
std::string fault_kind_names();

// Where element values come from: a buffer's init, an expectation, a symbol.
struct Source {
  enum class Kind { Zeros, Constant, Random, Sequence, Bytes } kind = Kind::Zeros;
  uint64_t constant = 0;           // bits
  uint64_t seed = 1, lo = 0, hi = 0;  // random: bits of min and max
  uint64_t start = 0, step = 0;    // sequence: bits of the first element and the increment
  std::vector<uint8_t> bytes;      // values or file contents
  std::optional<uint64_t> count;   // implied by values or a file
};

/// `count` elements of type `e` as `src` describes them (Bytes: its bytes as given).
std::vector<uint8_t> materialise(const Source& src, Elem e, uint64_t count);

}  // namespace tlmgpu::platform::launch_file
