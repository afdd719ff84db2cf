// Launch files: the checked plan a launch file parses into and the runner
// executes: buffers with their initialisers, textures, symbols, the launch
// steps (launches, host copies, fills, swaps, repeat groups), dumps and
// expectations. Indices refer into the plan's own tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "model/exec/texture_unit.h"
#include "platform/launch_file_structs.h"
#include "platform/launch_file_values.h"

namespace tlmgpu::platform::launch_file {

// One field's initialiser in a buffer of structs.
struct FieldInit {
  FieldLeaf leaf;
  Source source;
};

// What a buffer is filled with: `source` for scalar elements (or a raw file
// for structs), `fields` per field for structs (unnamed fields and padding 0).
struct InitSpec {
  Source source;
  std::vector<FieldInit> fields;
};

struct BufferSpec {
  std::string name;
  Elem type = Elem::U8;
  int struct_type = -1;     // a buffer of structs of this declared type
  uint64_t elem_bytes = 1;  // bytes per element (the struct size for structs)
  uint64_t count = 0;
  InitSpec init;
  std::string path;
};

struct SymbolSpec {
  std::string symbol;
  uint64_t offset = 0;
  int buffer = -1;            // write this buffer's device address
  std::vector<uint8_t> bytes;  // or these bytes
  std::string path;
};

struct ArgSpec {
  enum class Kind { Buffer, Scalar, Bytes, Texture } kind = Kind::Scalar;
  size_t buffer = 0;  ///< Buffer: buffers index; Texture: textures index
  uint64_t offset = 0;  ///< Buffer: the address of this element (&buffer[offset])
  Elem type = Elem::U32;
  int struct_type = -1;  // Bytes: a struct passed by value, laid out as this declared type
  uint64_t bits = 0;
  std::vector<uint8_t> bytes;
  std::string path;
};

// An expected device fault: its kind (any when unset) and a piece of its report.
struct FaultExpect {
  std::optional<exec::FaultKind> kind;
  std::string message_contains;
  std::string path;
};

/// A texture or surface object over a buffer (docs/LAUNCH_FILE.md, "Textures and surfaces").
struct TextureSpec {
  std::string name;
  bool surface = false;
  size_t buffer = 0;
  exec::TexResource resource;  ///< base filled in at run time from the buffer
  exec::TexSampler sampler;
  std::string path;
};

struct LaunchSpec {
  std::string kernel;
  exec::Dim3 grid, block;
  uint32_t shared_bytes = 0;
  uint32_t regs_per_thread = 0;  ///< 0: the PTX register estimate
  int preferred_shared_carveout = -1;  ///< percent of the largest carve-out (unified L1D / shared); -1: none
  bool cooperative = false;      ///< cudaLaunchCooperativeKernel (grid barrier)
  std::vector<ArgSpec> args;
  std::optional<FaultExpect> expect_fault;  // the launch must end in this fault
  std::string path;
};

struct ResetSpec {
  size_t buffer = 0;
  bool fill = false;  // every element, else only the first
  uint64_t bits = 0;
};

struct RepeatSpec {
  std::optional<size_t> flag;  // until_zero; unset: a fixed number of iterations
  uint64_t times = 0;
  uint64_t max_iterations = 10000;
  std::vector<ResetSpec> resets;
  std::string path;
};

struct Group;

// Host-side copy between buffers of the same element type, in elements; or
// between a buffer and a module variable (cudaMemcpyFromSymbol /
// cudaMemcpyToSymbol), the variable's side at byte offset symbol_offset.
struct CopySpec {
  enum class Kind { Buffers, FromSymbol, ToSymbol } kind = Kind::Buffers;
  size_t from = 0, to = 0;    ///< buffers; the symbol's side unused
  std::string symbol;         ///< FromSymbol, ToSymbol
  uint64_t symbol_offset = 0;
  uint64_t from_offset = 0, to_offset = 0;
  uint64_t count = 0;         ///< elements; 0 with a symbol: as many as fit (known once the PTX is loaded)
};

struct FillSpec {
  size_t buffer = 0;
  InitSpec init;
};

struct Step {
  enum class Kind { Launch, Group, Copy, Fill, Swap } kind = Kind::Launch;
  LaunchSpec launch;
  std::unique_ptr<Group> group;  // Kind::Group: a nested repeat group
  CopySpec copy;
  FillSpec fill;
  size_t swap[2] = {0, 0};       // Kind::Swap: exchange which storage these two names refer to
  std::string path;
};

struct Group {
  std::optional<RepeatSpec> repeat;
  std::vector<Step> steps;
  std::string path;
};

struct DumpSpec {
  size_t buffer = 0;
  std::string file;
  bool text = false;
  std::string path;
};

struct ExpectSpec {
  size_t buffer = 0;
  // Which values: elements start, start + stride, ... (count of them), of the
  // buffer or, for structs, of one field.
  uint64_t start = 0, count = 0, stride = 1;
  std::optional<FieldLeaf> field;
  Elem type = Elem::U8;  // of the checked values
  // How they are checked.
  enum class Check { Elementwise, Sorted, Range, Sum } check = Check::Elementwise;
  Source want;                             // Elementwise, Sorted
  std::optional<uint64_t> min, max;        // Range: bits
  uint64_t sum = 0;                        // Sum: bits (in the checked type; s64/u64/f64 for the total)
  double tolerance = 0, relative_tolerance = 0;
  std::string path;
};

struct LaunchPlan {
  std::string display_name;
  std::string base_dir;
  std::string ptx_path;
  std::optional<exec::DivergenceMode> divergence;
  std::vector<BufferSpec> buffers;
  std::map<std::string, size_t> buffer_index;
  std::vector<TextureSpec> textures;
  std::map<std::string, size_t> texture_index;
  std::vector<SymbolSpec> symbols;
  Group root;
  std::vector<DumpSpec> dumps;
  std::vector<ExpectSpec> expects;
  StructTable types;
  std::optional<FaultExpect> expect_fault;  // the run must end in this fault
};

// The buffer's bytes as `init` describes them.
std::vector<uint8_t> materialise_buffer(const BufferSpec& b, const InitSpec& init);

}  // namespace tlmgpu::platform::launch_file
