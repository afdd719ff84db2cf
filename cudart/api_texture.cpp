// CUDA arrays, texture and surface objects, on the model's texture unit
// (model/exec/texture_unit.h). An array is a device allocation holding its
// elements row after row, then slice after slice (the layout the texture
// unit reads); copies into and out of it are pitched copies.
#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "cudart/cuda_runtime_state.h"

using tlmgpu::cudart::api_call;
using tlmgpu::cudart::CudaFailure;
using tlmgpu::cudart::CudaRuntime;
namespace exec = tlmgpu::exec;

/// What a cudaArray_t points at.
struct cudaArray {
  uint64_t address = 0;
  exec::TexResource layout;  ///< kind Array; base = address
  cudaChannelFormatDesc desc{};
  unsigned int flags = 0;
};

namespace {

std::set<cudaArray*>& live_arrays() {
  static std::set<cudaArray*> arrays;
  return arrays;
}

cudaArray& array_of(cudaArray_const_t a) {
  auto* p = const_cast<cudaArray*>(a);
  if (!p || !live_arrays().count(p)) throw CudaFailure(cudaErrorInvalidResourceHandle, "unknown CUDA array");
  return *p;
}

/// The texel format and channel count of a channel descriptor: 1, 2 or 4
/// channels of one width (the formats the texture unit samples).
void texel_format(const cudaChannelFormatDesc& d, exec::TexResource& r) {
  const int bits[4] = {d.x, d.y, d.z, d.w};
  int channels = 0;
  for (int b : bits) {
    if (b == 0) break;
    if (b != d.x) throw CudaFailure(cudaErrorInvalidChannelDescriptor, "channels of different widths");
    ++channels;
  }
  if (channels != 1 && channels != 2 && channels != 4)
    throw CudaFailure(cudaErrorInvalidChannelDescriptor, std::to_string(channels) + " channels (1, 2 or 4 are modelled)");
  r.channels = uint8_t(channels);
  using F = exec::TexelFormat;
  switch (d.f) {
    case cudaChannelFormatKindFloat:
      if (d.x == 32) r.format = F::F32;
      else if (d.x == 16) r.format = F::F16;
      else throw CudaFailure(cudaErrorInvalidChannelDescriptor, std::to_string(d.x) + "-bit float channels");
      return;
    case cudaChannelFormatKindSigned:
    case cudaChannelFormatKindUnsigned: {
      const bool s = d.f == cudaChannelFormatKindSigned;
      if (d.x == 8) r.format = s ? F::S8 : F::U8;
      else if (d.x == 16) r.format = s ? F::S16 : F::U16;
      else if (d.x == 32) r.format = s ? F::S32 : F::U32;
      else throw CudaFailure(cudaErrorInvalidChannelDescriptor, std::to_string(d.x) + "-bit integer channels");
      return;
    }
    default: throw CudaFailure(cudaErrorInvalidChannelDescriptor, "channel kind " + std::to_string(int(d.f)));
  }
}

cudaArray* make_array(CudaRuntime& rt, const cudaChannelFormatDesc* desc, cudaExtent extent, unsigned int flags) {
  if (!desc || extent.width == 0) throw CudaFailure(cudaErrorInvalidValue, "an array needs a format and a width");
  auto a = std::make_unique<cudaArray>();
  a->desc = *desc;
  a->flags = flags;
  exec::TexResource& r = a->layout;
  r.kind = exec::TexResourceKind::Array;
  texel_format(*desc, r);
  r.width = uint32_t(extent.width);
  r.height = uint32_t(std::max<size_t>(extent.height, 1));
  if (flags & cudaArrayCubemap) {
    r.cubemap = true;
    r.depth = 6;
  } else if (flags & cudaArrayLayered) {
    r.layers = uint32_t(std::max<size_t>(extent.depth, 1));
    if (extent.height == 0) r.height = 1;
  } else {
    r.depth = uint32_t(std::max<size_t>(extent.depth, 1));
  }
  a->address = rt.device().allocate(r.size_bytes(), "CUDA array");
  r.base = a->address;
  live_arrays().insert(a.get());
  return a.release();
}

/// Copies `height` rows of `width_bytes` between host or device memory
/// (`ptr`, `pitch`) and the array at (x_bytes, y, z).
void array_rows(CudaRuntime& rt, cudaArray& a, size_t x_bytes, size_t y, size_t z, void* ptr, size_t pitch,
                size_t width_bytes, size_t height, size_t depth, size_t ptr_height, bool into_array,
                cudaMemcpyKind kind) {
  const exec::TexResource& r = a.layout;
  const size_t row = r.row_bytes();
  if (x_bytes + width_bytes > row || y + height > r.height || z + depth > r.slices())
    throw CudaFailure(cudaErrorInvalidValue, "the copy reaches outside the array");
  if (width_bytes > pitch) throw CudaFailure(cudaErrorInvalidPitchValue, "width exceeds the pitch");
  tlmgpu::platform::GpuDevice& dev = rt.device();
  const bool ptr_on_device =
      kind == cudaMemcpyDeviceToDevice ||
      (kind == cudaMemcpyDefault && !rt.shared_block_containing(ptr) &&
       rt.is_device_range(reinterpret_cast<uint64_t>(ptr), width_bytes));
  std::vector<uint8_t> staging(width_bytes);
  for (size_t slice = 0; slice < depth; ++slice) {
    for (size_t i = 0; i < height; ++i) {
      const uint64_t in_array = a.address + ((z + slice) * r.height + y + i) * row + x_bytes;
      uint8_t* outside = static_cast<uint8_t*>(ptr) + (slice * ptr_height + i) * pitch;
      if (into_array) {
        if (ptr_on_device) dev.copy_from_device(staging.data(), reinterpret_cast<uint64_t>(outside), width_bytes);
        else std::memcpy(staging.data(), outside, width_bytes);
        dev.copy_to_device(in_array, staging.data(), width_bytes);
      } else {
        dev.copy_from_device(staging.data(), in_array, width_bytes);
        if (ptr_on_device) dev.copy_to_device(reinterpret_cast<uint64_t>(outside), staging.data(), width_bytes);
        else std::memcpy(outside, staging.data(), width_bytes);
      }
    }
  }
}

exec::TexResource resource_of(CudaRuntime& rt, const cudaResourceDesc& d) {
  exec::TexResource r;
  switch (d.resType) {
    case cudaResourceTypeArray: return array_of(d.res.array.array).layout;
    case cudaResourceTypeLinear:
      r.kind = exec::TexResourceKind::Linear;
      r.base = reinterpret_cast<uint64_t>(d.res.linear.devPtr);
      texel_format(d.res.linear.desc, r);
      r.width = uint32_t(d.res.linear.sizeInBytes / r.element_bytes());
      return r;
    case cudaResourceTypePitch2D:
      r.kind = exec::TexResourceKind::Pitch2D;
      r.base = reinterpret_cast<uint64_t>(d.res.pitch2D.devPtr);
      texel_format(d.res.pitch2D.desc, r);
      r.width = uint32_t(d.res.pitch2D.width);
      r.height = uint32_t(d.res.pitch2D.height);
      r.pitch_bytes = uint32_t(d.res.pitch2D.pitchInBytes);
      return r;
    default: break;
  }
  (void)rt;
  throw CudaFailure(cudaErrorNotSupported, "resource type " + std::to_string(int(d.resType)) +
                                               " (mipmapped arrays are not modelled)");
}

exec::TexAddressMode address_mode(cudaTextureAddressMode m) {
  switch (m) {
    case cudaAddressModeWrap: return exec::TexAddressMode::Wrap;
    case cudaAddressModeClamp: return exec::TexAddressMode::Clamp;
    case cudaAddressModeMirror: return exec::TexAddressMode::Mirror;
    case cudaAddressModeBorder: return exec::TexAddressMode::Border;
  }
  throw CudaFailure(cudaErrorInvalidValue, "address mode " + std::to_string(int(m)));
}

}  // namespace

extern "C" {

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int flags) {
  return api_call("cudaMallocArray", [&](CudaRuntime& rt) {
    if (!array) throw CudaFailure(cudaErrorInvalidValue);
    rt.check_sticky();
    *array = make_array(rt, desc, cudaExtent{width, height, 0}, flags & ~unsigned(cudaArrayLayered));
  });
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned int flags) {
  return api_call("cudaMalloc3DArray", [&](CudaRuntime& rt) {
    if (!array) throw CudaFailure(cudaErrorInvalidValue);
    rt.check_sticky();
    *array = make_array(rt, desc, extent, flags);
  });
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  return api_call("cudaFreeArray", [&](CudaRuntime& rt) {
    if (!array) return;
    cudaArray& a = array_of(array);
    rt.device().free(a.address);
    live_arrays().erase(&a);
    delete &a;
  });
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
  return api_call("cudaArrayGetInfo", [&](CudaRuntime&) {
    const cudaArray& a = array_of(array);
    if (desc) *desc = a.desc;
    if (extent) *extent = {a.layout.width, a.layout.height, a.layout.layers ? a.layout.layers : a.layout.depth};
    if (flags) *flags = a.flags;
  });
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  return api_call("cudaGetChannelDesc", [&](CudaRuntime&) {
    if (!desc) throw CudaFailure(cudaErrorInvalidValue);
    *desc = array_of(array).desc;
  });
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind) {
  return api_call("cudaMemcpy2DToArray", [&](CudaRuntime& rt) {
    rt.check_sticky();
    array_rows(rt, array_of(dst), w_offset, h_offset, 0, const_cast<void*>(src), spitch, width, height, 1, height,
               true, kind);
  });
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width, size_t height, cudaMemcpyKind kind) {
  return api_call("cudaMemcpy2DFromArray", [&](CudaRuntime& rt) {
    rt.check_sticky();
    array_rows(rt, array_of(src), w_offset, h_offset, 0, dst, dpitch, width, height, 1, height, false, kind);
  });
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                                     size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t) {
  return cudaMemcpy2DToArray(dst, w_offset, h_offset, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, w_offset, h_offset, width, height, kind);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return api_call("cudaMemcpy3D", [&](CudaRuntime& rt) {
    rt.check_sticky();
    if (!p) throw CudaFailure(cudaErrorInvalidValue);
    if (bool(p->srcArray) == bool(p->dstArray))
      throw CudaFailure(cudaErrorNotSupported, "cudaMemcpy3D between two arrays or two pitched pointers");
    const bool into = p->dstArray != nullptr;
    cudaArray& a = array_of(into ? p->dstArray : p->srcArray);
    const cudaPos& pos = into ? p->dstPos : p->srcPos;
    const cudaPitchedPtr& ptr = into ? p->srcPtr : p->dstPtr;
    const cudaPos& ptr_pos = into ? p->srcPos : p->dstPos;
    const size_t elem = a.layout.element_bytes();
    auto* base = static_cast<uint8_t*>(ptr.ptr) + (ptr_pos.z * ptr.ysize + ptr_pos.y) * ptr.pitch + ptr_pos.x;
    // For arrays the extent's width and positions count elements; for pointers, bytes.
    array_rows(rt, a, pos.x * elem, pos.y, pos.z, base, ptr.pitch, p->extent.width * elem,
               std::max<size_t>(p->extent.height, 1), std::max<size_t>(p->extent.depth, 1),
               std::max<size_t>(ptr.ysize, 1), into, p->kind);
  });
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t) { return cudaMemcpy3D(p); }

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* res,
                                    const cudaTextureDesc* tex, const cudaResourceViewDesc* view) {
  return api_call("cudaCreateTextureObject", [&](CudaRuntime& rt) {
    if (!object || !res || !tex) throw CudaFailure(cudaErrorInvalidValue);
    if (view) throw CudaFailure(cudaErrorNotSupported, "resource views are not modelled");
    exec::TexSampler s;
    for (int i = 0; i < 3; ++i) s.address[i] = address_mode(tex->addressMode[i]);
    s.filter = tex->filterMode == cudaFilterModeLinear ? exec::TexFilterMode::Linear : exec::TexFilterMode::Point;
    s.read_mode = tex->readMode == cudaReadModeNormalizedFloat ? exec::TexReadMode::NormalizedFloat
                                                              : exec::TexReadMode::ElementType;
    s.normalized_coords = tex->normalizedCoords != 0;
    try {
      *object = rt.device().create_texture_object(resource_of(rt, *res), s);
    } catch (const tlmgpu::platform::LaunchError& e) {
      throw CudaFailure(cudaErrorInvalidValue, e.what());
    }
  });
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) {
  return api_call("cudaDestroyTextureObject", [&](CudaRuntime& rt) {
    try {
      rt.device().destroy_texture_object(object);
    } catch (const tlmgpu::platform::LaunchError& e) {
      throw CudaFailure(cudaErrorInvalidValue, e.what());
    }
  });
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* res) {
  return api_call("cudaCreateSurfaceObject", [&](CudaRuntime& rt) {
    if (!object || !res) throw CudaFailure(cudaErrorInvalidValue);
    try {
      *object = rt.device().create_surface_object(resource_of(rt, *res));
    } catch (const tlmgpu::platform::LaunchError& e) {
      throw CudaFailure(cudaErrorInvalidValue, e.what());
    }
  });
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) {
  return api_call("cudaDestroySurfaceObject", [&](CudaRuntime& rt) {
    try {
      rt.device().destroy_surface_object(object);
    } catch (const tlmgpu::platform::LaunchError& e) {
      throw CudaFailure(cudaErrorInvalidValue, e.what());
    }
  });
}

}  // extern "C"
