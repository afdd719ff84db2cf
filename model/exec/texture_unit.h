// Texture and surface objects: the descriptor table a device owns (a
// cudaTextureObject_t / cudaSurfaceObject_t handle indexes it) and the
// functional semantics of tex, tld4, suld.b and sust.b on those objects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::exec {

class Warp;

/// Element channel format (cudaChannelFormatKind x bits per channel).
enum class TexelFormat : uint8_t { U8, S8, U16, S16, U32, S32, F16, F32 };
unsigned texel_format_bytes(TexelFormat f);
const char* texel_format_name(TexelFormat f);

/// What memory a texture or surface reads (cudaResourceDesc).
enum class TexResourceKind : uint8_t {
  Linear,   ///< a buffer of width elements (tex1Dfetch)
  Pitch2D,  ///< width x height rows, pitch_bytes apart
  Array,    ///< CUDA-array-like: 1-D/2-D/3-D, layered or cubemap, rows packed
};

/// A resource in device memory. Arrays are stored row after row (width
/// elements each, or pitch_bytes when non-zero), then height rows per slice,
/// then slices: depth slices for 3-D, one per layer for layered arrays and
/// six faces (+x, -x, +y, -y, +z, -z) for cubemaps.
struct TexResource {
  TexResourceKind kind = TexResourceKind::Linear;
  uint64_t base = 0;               ///< device address
  TexelFormat format = TexelFormat::F32;
  uint8_t channels = 1;            ///< 1, 2 or 4
  uint32_t width = 0, height = 1, depth = 1;
  uint32_t pitch_bytes = 0;        ///< row pitch; 0: width * element size
  uint32_t layers = 0;             ///< layered arrays: layer count (0: not layered)
  bool cubemap = false;            ///< six square faces (depth must be 6)
  uint32_t element_bytes() const { return texel_format_bytes(format) * channels; }
  uint32_t row_bytes() const { return pitch_bytes ? pitch_bytes : width * element_bytes(); }
  uint32_t slices() const { return cubemap ? 6 : layers ? layers : depth; }
  uint64_t size_bytes() const { return uint64_t(row_bytes()) * height * slices(); }
};

enum class TexAddressMode : uint8_t { Wrap, Clamp, Mirror, Border };
enum class TexFilterMode : uint8_t { Point, Linear };
enum class TexReadMode : uint8_t { ElementType, NormalizedFloat };

/// Sampling state (cudaTextureDesc).
struct TexSampler {
  TexAddressMode address[3] = {TexAddressMode::Clamp, TexAddressMode::Clamp, TexAddressMode::Clamp};
  TexFilterMode filter = TexFilterMode::Point;
  TexReadMode read_mode = TexReadMode::ElementType;
  bool normalized_coords = false;
};

struct TextureObject {
  TexResource resource;
  TexSampler sampler;
};

/// Texture and surface objects of one device. A handle is 1 + the entry's
/// index (0 is never valid, as in CUDA); destroyed entries stay as holes.
class TextureTable {
 public:
  /// Checks the descriptors (throws std::invalid_argument naming the problem).
  uint64_t create_texture(const TextureObject& t);
  uint64_t create_surface(const TexResource& r);
  void destroy(uint64_t handle);
  /// nullptr when the handle names no live texture (resp. surface).
  const TextureObject* texture(uint64_t handle) const;
  const TexResource* surface(uint64_t handle) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    enum Kind : uint8_t { Free, Texture, Surface } kind = Free;
    TextureObject object;
  };
  std::vector<Entry> entries_;
};

/// Checks a resource's shape (throws std::invalid_argument).
void validate_tex_resource(const TexResource& r);

/// tex / tld4 / suld / sust for the lanes in `mask`; faults (DeviceFault) for
/// a handle that names no object and for trap-mode surface accesses out of range.
void execute_texture_instruction(const ptx::Instruction& in, uint32_t mask, Warp& w);

}  // namespace tlmgpu::exec
