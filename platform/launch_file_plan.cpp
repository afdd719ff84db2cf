#include "platform/launch_file_plan.h"

#include <cstring>

namespace tlmgpu::platform::launch_file {

std::vector<uint8_t> materialise_buffer(const BufferSpec& b, const InitSpec& init) {
  if (b.struct_type < 0) return materialise(init.source, b.type, b.count);
  if (init.source.kind == Source::Kind::Bytes) return init.source.bytes;
  std::vector<uint8_t> out(b.count * b.elem_bytes, 0);
  for (const FieldInit& f : init.fields) {
    const unsigned w = info(f.leaf.elem).bytes;
    std::vector<uint8_t> vals = materialise(f.source, f.leaf.elem, b.count * f.leaf.count);
    for (uint64_t i = 0; i < b.count; ++i)
      for (uint64_t k = 0; k < f.leaf.count; ++k)
        std::memcpy(&out[i * b.elem_bytes + f.leaf.offset + k * w], &vals[(i * f.leaf.count + k) * w], w);
  }
  return out;
}

}  // namespace tlmgpu::platform::launch_file
