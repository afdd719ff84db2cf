// Memory entry points: device allocations, copies in every direction,
// symbols, host memory the device shares (managed, pinned and mapped), and
// stream-ordered allocation. Every copy completes before the call returns
// (the model has one engine; a legal schedule of CUDA's asynchronous copies).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cudart/cuda_runtime_state.h"

using tlmgpu::cudart::api_call;
using tlmgpu::cudart::CudaFailure;
using tlmgpu::cudart::CudaRuntime;

namespace {

/// Where a pointer of a copy lives: host memory the device does not know,
/// device memory, or host memory the device shares at the same address.
enum class Side { Host, Device };

Side side_of(CudaRuntime& rt, const void* p, size_t bytes) {
  if (rt.shared_block_containing(p)) return Side::Host;  // the host reaches it directly
  return rt.is_device_range(reinterpret_cast<uint64_t>(p), bytes) ? Side::Device : Side::Host;
}

/// One linear copy of `bytes` from `src` to `dst` as `kind` says.
void copy(CudaRuntime& rt, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (bytes == 0) return;
  if (!dst || !src) throw CudaFailure(cudaErrorInvalidValue, "null pointer");
  tlmgpu::platform::GpuDevice& dev = rt.device();
  const auto d = reinterpret_cast<uint64_t>(dst), s = reinterpret_cast<uint64_t>(src);
  Side from, to;
  switch (kind) {
    case cudaMemcpyHostToHost: from = to = Side::Host; break;
    case cudaMemcpyHostToDevice: from = Side::Host, to = Side::Device; break;
    case cudaMemcpyDeviceToHost: from = Side::Device, to = Side::Host; break;
    case cudaMemcpyDeviceToDevice: from = to = Side::Device; break;
    case cudaMemcpyDefault:
      from = side_of(rt, src, bytes);
      to = side_of(rt, dst, bytes);
      break;
    default: throw CudaFailure(cudaErrorInvalidMemcpyDirection, "copy kind " + std::to_string(int(kind)));
  }
  // Memory the host and device share is reached from the host side.
  if (from == Side::Device && rt.shared_block_containing(src)) from = Side::Host;
  if (to == Side::Device && rt.shared_block_containing(dst)) to = Side::Host;
  auto invalid = [&](const char* which, uint64_t a) {
    return CudaFailure(cudaErrorInvalidValue, std::string(which) + " " + std::to_string(bytes) + " bytes at 0x" +
                                                  [&] {
                                                    char buf[32];
                                                    std::snprintf(buf, sizeof buf, "%llx", (unsigned long long)a);
                                                    return std::string(buf);
                                                  }() +
                                                  " are not device memory");
  };
  if (from == Side::Device && !rt.is_device_range(s, bytes)) throw invalid("source:", s);
  if (to == Side::Device && !rt.is_device_range(d, bytes)) throw invalid("destination:", d);
  if (from == Side::Host && to == Side::Host) std::memmove(dst, src, bytes);
  else if (to == Side::Device && from == Side::Host) dev.copy_to_device(d, src, bytes);
  else if (to == Side::Host) dev.copy_from_device(dst, s, bytes);
  else {
    std::vector<uint8_t> staging(bytes);
    dev.copy_from_device(staging.data(), s, bytes);
    dev.copy_to_device(d, staging.data(), bytes);
  }
}

/// A pitched 2-D copy: `height` rows of `width` bytes.
void copy_2d(CudaRuntime& rt, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
             cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch)
    throw CudaFailure(cudaErrorInvalidPitchValue, "width " + std::to_string(width) + " exceeds a pitch");
  for (size_t row = 0; row < height; ++row)
    copy(rt, static_cast<uint8_t*>(dst) + row * dpitch, static_cast<const uint8_t*>(src) + row * spitch, width, kind);
}

void set_memory(CudaRuntime& rt, void* dst, int value, size_t bytes) {
  if (bytes == 0) return;
  if (rt.shared_block_containing(dst)) {
    std::memset(dst, value, bytes);
    return;
  }
  const auto d = reinterpret_cast<uint64_t>(dst);
  if (!rt.is_device_range(d, bytes)) throw CudaFailure(cudaErrorInvalidValue, "memset outside device memory");
  rt.device().memset(d, uint8_t(value), bytes);
}

void allocate(CudaRuntime& rt, void** p, size_t bytes) {
  if (!p) throw CudaFailure(cudaErrorInvalidValue);
  rt.check_sticky();
  *p = reinterpret_cast<void*>(rt.device().allocate(bytes));
}

void release(CudaRuntime& rt, void* p) {
  if (!p) return;
  rt.check_sticky();
  if (rt.free_shared_host(p)) return;
  try {
    rt.device().free(reinterpret_cast<uint64_t>(p));
  } catch (const std::exception&) {
    throw CudaFailure(cudaErrorInvalidValue, "cudaFree of a pointer that is no allocation's start");
  }
}

void symbol_copy(CudaRuntime& rt, const void* symbol, void* host, size_t bytes, size_t offset, bool to_symbol,
                 cudaMemcpyKind kind) {
  rt.check_sticky();
  auto& v = rt.variable_for(symbol);
  if (offset + bytes > v.bytes)
    throw CudaFailure(cudaErrorInvalidValue, "copy of " + std::to_string(bytes) + " bytes at offset " +
                                                 std::to_string(offset) + " into '" + v.name + "' of " +
                                                 std::to_string(v.bytes) + " bytes");
  tlmgpu::platform::GpuDevice& dev = rt.device();
  const tlmgpu::platform::ModuleHandle m = rt.module_of(v);
  const bool device_side = kind == cudaMemcpyDeviceToDevice ||
                           (kind == cudaMemcpyDefault && side_of(rt, host, bytes) == Side::Device &&
                            !rt.shared_block_containing(host));
  std::vector<uint8_t> staging(bytes);
  if (to_symbol) {
    if (device_side) dev.copy_from_device(staging.data(), reinterpret_cast<uint64_t>(host), bytes);
    else std::memcpy(staging.data(), host, bytes);
    dev.write_symbol(m, v.name, staging.data(), bytes, offset);
  } else {
    dev.read_symbol(m, v.name, staging.data(), bytes, offset);
    if (device_side) dev.copy_to_device(reinterpret_cast<uint64_t>(host), staging.data(), bytes);
    else std::memcpy(host, staging.data(), bytes);
  }
}

}  // namespace

// The device's default memory pool: stream-ordered allocations come from
// device memory as cudaMalloc's do; its release threshold is kept and
// reported (the model returns freed memory at once).
namespace {
struct DefaultMemPool {
  uint64_t release_threshold = 0;
};
DefaultMemPool& default_pool() {
  static DefaultMemPool pool;
  return pool;
}
cudaMemPool_t default_pool_handle() { return reinterpret_cast<cudaMemPool_t>(&default_pool()); }
void check_pool(cudaMemPool_t pool) {
  if (pool != default_pool_handle()) throw CudaFailure(cudaErrorInvalidValue, "not the device's default memory pool");
}
}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** p, size_t bytes) {
  return api_call("cudaMalloc", [&](CudaRuntime& rt) { allocate(rt, p, bytes); });
}

cudaError_t cudaFree(void* p) {
  return api_call("cudaFree", [&](CudaRuntime& rt) { release(rt, p); });
}

cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t stream) {
  return api_call("cudaMallocAsync", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    allocate(rt, p, bytes);
  });
}

cudaError_t cudaFreeAsync(void* p, cudaStream_t stream) {
  return api_call("cudaFreeAsync", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    release(rt, p);
  });
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  return api_call("cudaDeviceGetDefaultMemPool", [&](CudaRuntime&) {
    if (!pool || device != 0) throw CudaFailure(device != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
    *pool = default_pool_handle();
  });
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) { return cudaDeviceGetDefaultMemPool(pool, device); }

cudaError_t cudaMallocFromPoolAsync(void** p, size_t bytes, cudaMemPool_t pool, cudaStream_t stream) {
  return api_call("cudaMallocFromPoolAsync", [&](CudaRuntime& rt) {
    check_pool(pool);
    rt.stream_id(stream);
    allocate(rt, p, bytes);
  });
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, int attr, void* value) {
  return api_call("cudaMemPoolSetAttribute", [&](CudaRuntime&) {
    check_pool(pool);
    constexpr int kReleaseThreshold = 4;  // cudaMemPoolAttrReleaseThreshold
    if (attr != kReleaseThreshold || !value)
      throw CudaFailure(cudaErrorNotSupported, "memory pool attribute " + std::to_string(attr));
    default_pool().release_threshold = *static_cast<const uint64_t*>(value);
  });
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, int attr, void* value) {
  return api_call("cudaMemPoolGetAttribute", [&](CudaRuntime&) {
    check_pool(pool);
    constexpr int kReleaseThreshold = 4;
    if (attr != kReleaseThreshold || !value)
      throw CudaFailure(cudaErrorNotSupported, "memory pool attribute " + std::to_string(attr));
    *static_cast<uint64_t*>(value) = default_pool().release_threshold;
  });
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
  return api_call("cudaMemPoolTrimTo", [&](CudaRuntime&) { check_pool(pool); });
}

cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  return api_call("cudaMallocPitch", [&](CudaRuntime& rt) {
    if (!pitch) throw CudaFailure(cudaErrorInvalidValue);
    // Rows aligned as the hardware's texture pitch alignment asks (512 bytes on Fermi to Turing).
    *pitch = (std::max<size_t>(width, 1) + 511) / 512 * 512;
    allocate(rt, p, *pitch * std::max<size_t>(height, 1));
  });
}

cudaError_t cudaMallocManaged(void** p, size_t bytes, unsigned int /*flags*/) {
  return api_call("cudaMallocManaged", [&](CudaRuntime& rt) {
    if (!p) throw CudaFailure(cudaErrorInvalidValue);
    rt.check_sticky();
    *p = rt.allocate_shared_host(bytes, true);
  });
}

cudaError_t cudaMallocHost(void** p, size_t bytes) {
  return api_call("cudaMallocHost", [&](CudaRuntime& rt) {
    if (!p) throw CudaFailure(cudaErrorInvalidValue);
    rt.check_sticky();
    *p = rt.allocate_shared_host(bytes, false);
  });
}

cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned int /*flags*/) {
  // Pinned host memory is mapped into the device's address space whatever
  // the flags (unified addressing, as on every 64-bit GPU CUDA 13 supports).
  return api_call("cudaHostAlloc", [&](CudaRuntime& rt) {
    if (!p) throw CudaFailure(cudaErrorInvalidValue);
    rt.check_sticky();
    *p = rt.allocate_shared_host(bytes, false);
  });
}

cudaError_t cudaFreeHost(void* p) {
  return api_call("cudaFreeHost", [&](CudaRuntime& rt) {
    if (p && !rt.free_shared_host(p))
      throw CudaFailure(cudaErrorInvalidValue, "cudaFreeHost of memory cudaMallocHost/cudaHostAlloc did not return");
  });
}

cudaError_t cudaHostGetDevicePointer(void** device_pointer, void* host, unsigned int /*flags*/) {
  return api_call("cudaHostGetDevicePointer", [&](CudaRuntime& rt) {
    if (!device_pointer || !rt.shared_block_containing(host))
      throw CudaFailure(cudaErrorInvalidValue, "not host memory from cudaHostAlloc / cudaMallocHost");
    *device_pointer = host;  // the device sees it at the host's address
  });
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host) {
  return api_call("cudaHostGetFlags", [&](CudaRuntime& rt) {
    if (!flags || !rt.shared_block_containing(host)) throw CudaFailure(cudaErrorInvalidValue);
    *flags = 0x02;  // cudaHostAllocMapped
  });
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  return api_call("cudaPointerGetAttributes", [&](CudaRuntime& rt) {
    if (!a) throw CudaFailure(cudaErrorInvalidValue);
    std::memset(a, 0, sizeof(*a));
    if (const auto* block = rt.shared_block_containing(p)) {
      a->type = block->managed ? cudaMemoryTypeManaged : cudaMemoryTypeHost;
      a->devicePointer = const_cast<void*>(p);
      a->hostPointer = const_cast<void*>(p);
    } else if (rt.is_device_range(reinterpret_cast<uint64_t>(p), 1)) {
      a->type = cudaMemoryTypeDevice;
      a->devicePointer = const_cast<void*>(p);
    } else {
      a->type = cudaMemoryTypeUnregistered;
      a->device = -2;
      a->hostPointer = const_cast<void*>(p);
    }
  });
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  return api_call("cudaMemcpy", [&](CudaRuntime& rt) {
    rt.check_sticky();
    copy(rt, dst, src, bytes, kind);
    rt.flush_device_output();  // a blocking copy synchronises
  });
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call("cudaMemcpyAsync", [&](CudaRuntime& rt) {
    rt.check_sticky();
    rt.stream_id(stream);
    copy(rt, dst, src, bytes, kind);
  });
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  return api_call("cudaMemcpy2D", [&](CudaRuntime& rt) {
    rt.check_sticky();
    copy_2d(rt, dst, dpitch, src, spitch, width, height, kind);
  });
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call("cudaMemcpy2DAsync", [&](CudaRuntime& rt) {
    rt.check_sticky();
    rt.stream_id(stream);
    copy_2d(rt, dst, dpitch, src, spitch, width, height, kind);
  });
}

cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
  return api_call("cudaMemset", [&](CudaRuntime& rt) {
    rt.check_sticky();
    set_memory(rt, dst, value, bytes);
  });
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  return api_call("cudaMemsetAsync", [&](CudaRuntime& rt) {
    rt.check_sticky();
    rt.stream_id(stream);
    set_memory(rt, dst, value, bytes);
  });
}

cudaError_t cudaMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  return api_call("cudaMemset2D", [&](CudaRuntime& rt) {
    rt.check_sticky();
    for (size_t row = 0; row < height; ++row) set_memory(rt, static_cast<uint8_t*>(dst) + row * pitch, value, width);
  });
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t bytes, size_t offset, cudaMemcpyKind kind) {
  return api_call("cudaMemcpyToSymbol", [&](CudaRuntime& rt) {
    symbol_copy(rt, symbol, const_cast<void*>(src), bytes, offset, true, kind);
  });
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset, cudaMemcpyKind kind) {
  return api_call("cudaMemcpyFromSymbol", [&](CudaRuntime& rt) {
    symbol_copy(rt, symbol, dst, bytes, offset, false, kind);
    rt.flush_device_output();
  });
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t bytes, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call("cudaMemcpyToSymbolAsync", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    symbol_copy(rt, symbol, const_cast<void*>(src), bytes, offset, true, kind);
  });
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call("cudaMemcpyFromSymbolAsync", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    symbol_copy(rt, symbol, dst, bytes, offset, false, kind);
  });
}

cudaError_t cudaGetSymbolAddress(void** address, const void* symbol) {
  return api_call("cudaGetSymbolAddress", [&](CudaRuntime& rt) {
    if (!address) throw CudaFailure(cudaErrorInvalidValue);
    auto& v = rt.variable_for(symbol);
    try {
      *address = reinterpret_cast<void*>(rt.variable_address(v));
    } catch (const tlmgpu::platform::LaunchError& e) {
      throw CudaFailure(cudaErrorInvalidSymbol, e.what());
    }
  });
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  return api_call("cudaGetSymbolSize", [&](CudaRuntime& rt) {
    if (!size) throw CudaFailure(cudaErrorInvalidValue);
    *size = rt.variable_for(symbol).bytes;
  });
}

}  // extern "C"
