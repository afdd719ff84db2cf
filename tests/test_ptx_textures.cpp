// Texture and surface objects (issue 18): the kernels of
// tests/ptx/breadth/textures.cu (nvcc's PTX for tex1Dfetch, tex1D/2D/3D,
// layered, cubemap, tex2Dgather, tex2DLod/Grad and surf*Dread/write) run on
// the device and are compared with a CPU sampler written here from the CUDA
// programming guide's texture-fetching rules (9-bit linear-filter weights
// included), in functional and timing mode; timing mode must give the same
// bits. Bad handles and .trap surface stores are device faults.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/ptx/ptx_parser.h"
#include "platform/gpu_device.h"
#include "platform/launch_file.h"
#include "platform/timing_gpu.h"

namespace tlmgpu {
namespace {

using exec::TexAddressMode;
using exec::TexelFormat;
using exec::TexFilterMode;
using exec::TexReadMode;
using exec::TexResource;
using exec::TexResourceKind;
using exec::TexSampler;
using platform::GpuDevice;
using platform::KernelArgs;

std::string read_textures_ptx() {
  std::ifstream f(std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth/textures.ptx");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct F4 {
  float v[4];
};
struct I4 {
  int32_t v[4];
};

// ------------------------------------------------------------ CPU reference

/// Host-side image: channel values as doubles (after any normalized-float
/// conversion), indexed [slice][y][x][channel].
struct RefImage {
  int w = 1, h = 1, slices = 1, channels = 1;
  std::vector<double> data;
  double at(int x, int y, int s, int c) const {
    if (c >= channels) return c == 3 ? 1.0 : 0.0;
    return data[((size_t(s) * h + y) * w + x) * channels + c];
  }
};

/// Wrap / mirror / clamp / border of one texel index (-1: border).
int ref_index(long i, int n, TexAddressMode m, bool normalized) {
  if (!normalized && (m == TexAddressMode::Wrap || m == TexAddressMode::Mirror)) m = TexAddressMode::Clamp;
  if (m == TexAddressMode::Wrap) {
    long r = i % n;
    return int(r < 0 ? r + n : r);
  }
  if (m == TexAddressMode::Mirror) {
    long p = i % (2L * n);
    if (p < 0) p += 2L * n;
    return int(p < n ? p : 2L * n - 1 - p);
  }
  if (m == TexAddressMode::Border) return i < 0 || i >= n ? -1 : int(i);
  return int(i < 0 ? 0 : i >= n ? n - 1 : i);
}

struct RefSampler {
  TexAddressMode mode[3] = {TexAddressMode::Clamp, TexAddressMode::Clamp, TexAddressMode::Clamp};
  bool linear = false, normalized = false;
};

double ref_texel(const RefImage& img, const RefSampler& s, long x, long y, long z, bool three_d, int slice, int c) {
  const int ix = ref_index(x, img.w, s.mode[0], s.normalized);
  const int iy = ref_index(y, img.h, s.mode[1], s.normalized);
  const int iz = three_d ? ref_index(z, img.slices, s.mode[2], s.normalized) : slice;
  if (ix < 0 || iy < 0 || iz < 0) return 0.0;
  return img.at(ix, iy, iz, c);
}

/// 9-bit fixed point, 8 fraction bits (CUDA programming guide, linear filtering).
double weight9(double frac) { return std::round(frac * 256.0) / 256.0; }  // frac >= 0: halves round up

/// tex1D/2D/3D (dims 1..3) at float coordinates, channel c, on `slice` for 1-D/2-D.
double ref_sample(const RefImage& img, const RefSampler& s, int dims, const float* coord, int slice, int c) {
  const int size[3] = {img.w, img.h, img.slices};
  double u[3] = {0, 0, 0};
  for (int a = 0; a < dims; ++a) u[a] = s.normalized ? double(coord[a]) * size[a] : double(coord[a]);
  const bool three_d = dims == 3;
  if (!s.linear) {
    return ref_texel(img, s, long(std::floor(u[0])), long(std::floor(u[1])), long(std::floor(u[2])), three_d, slice, c);
  }
  long i0[3] = {0, 0, 0};
  double a[3] = {0, 0, 0};
  for (int k = 0; k < dims; ++k) {
    const double b = u[k] - 0.5;
    i0[k] = long(std::floor(b));
    a[k] = weight9(b - std::floor(b));
  }
  double sum = 0;
  for (int dz = 0; dz <= (dims > 2); ++dz)
    for (int dy = 0; dy <= (dims > 1); ++dy)
      for (int dx = 0; dx <= 1; ++dx) {
        double wgt = dx ? a[0] : 1 - a[0];
        if (dims > 1) wgt *= dy ? a[1] : 1 - a[1];
        if (dims > 2) wgt *= dz ? a[2] : 1 - a[2];
        sum += wgt * ref_texel(img, s, i0[0] + dx, i0[1] + dy, i0[2] + dz, three_d, slice, c);
      }
  return sum;
}

// ------------------------------------------------------------ fixture

class Textures : public ::testing::TestWithParam<platform::SimulationMode> {
 protected:
  Textures() : dev(options()) { m = dev.load_module(read_textures_ptx(), "textures.ptx"); }
  static platform::DeviceOptions options() {
    platform::DeviceOptions o;
    o.mode = GetParam();
    return o;
  }
  static TexSampler sampler(TexAddressMode mode, bool linear, bool normalized,
                            TexReadMode read = TexReadMode::ElementType) {
    TexSampler s;
    s.address[0] = s.address[1] = s.address[2] = mode;
    s.filter = linear ? TexFilterMode::Linear : TexFilterMode::Point;
    s.normalized_coords = normalized;
    s.read_mode = read;
    return s;
  }
  static RefSampler ref(TexAddressMode mode, bool linear, bool normalized) {
    RefSampler r;
    r.mode[0] = r.mode[1] = r.mode[2] = mode;
    r.linear = linear;
    r.normalized = normalized;
    return r;
  }
  /// A float image of `channels` channels with random values, uploaded as an array.
  uint64_t float_array(RefImage& img, int w, int h, int slices, int channels, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-4.0f, 4.0f);
    img = RefImage{w, h, slices, channels, {}};
    std::vector<float> host(size_t(w) * h * slices * channels);
    for (auto& v : host) v = d(rng);
    img.data.assign(host.begin(), host.end());
    return dev.upload(host, "image");
  }
  static TexResource array(uint64_t base, TexelFormat f, int channels, int w, int h = 1, int depth = 1) {
    TexResource r;
    r.kind = TexResourceKind::Array;
    r.base = base;
    r.format = f;
    r.channels = uint8_t(channels);
    r.width = uint32_t(w);
    r.height = uint32_t(h);
    r.depth = uint32_t(depth);
    return r;
  }
  std::vector<F4> launch_f4(const std::string& kernel, uint64_t handle, uint64_t din, size_t n, size_t per = 1) {
    const uint64_t dout = dev.allocate(n * per * sizeof(F4));
    dev.launch(m, kernel, {uint32_t((n + 63) / 64), 1, 1}, {64, 1, 1}, 0,
               KernelArgs().add<uint64_t>(handle).ptr(din).ptr(dout).add<int32_t>(int32_t(n)));
    return dev.download<F4>(dout, n * per);
  }
  static std::vector<float> coords(size_t n, float lo, float hi, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  }
  static void expect_near4(const F4& got, const double want[4], const std::string& what) {
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(got.v[c], want[c], 1e-5 * (1 + std::fabs(want[c]))) << what << " channel " << c;
  }

  GpuDevice dev;
  platform::ModuleHandle m;
};

const TexAddressMode kModes[] = {TexAddressMode::Wrap, TexAddressMode::Clamp, TexAddressMode::Mirror,
                                 TexAddressMode::Border};
const char* const kModeNames[] = {"wrap", "clamp", "mirror", "border"};

TEST_P(Textures, Fetch1DLinearBufferClampAndBorder) {
  std::vector<float> buf(4 * 40);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = float(i) * 0.25f - 7.0f;
  const uint64_t dbuf = dev.upload(buf);
  std::vector<int32_t> idx;
  for (int i = -5; i < 45; ++i) idx.push_back(i);
  idx.push_back(-2147483647);
  idx.push_back(2147483647);
  const uint64_t didx = dev.upload(idx);
  for (TexAddressMode mode : {TexAddressMode::Clamp, TexAddressMode::Border}) {
    TexResource r;
    r.kind = TexResourceKind::Linear;
    r.base = dbuf;
    r.format = TexelFormat::F32;
    r.channels = 4;
    r.width = 40;
    const uint64_t h = dev.create_texture_object(r, sampler(mode, false, false));
    const auto out = launch_f4("fetch1d", h, didx, idx.size());
    for (size_t t = 0; t < idx.size(); ++t) {
      const long i = idx[t];
      double want[4];
      for (int c = 0; c < 4; ++c) {
        if (mode == TexAddressMode::Border && (i < 0 || i >= 40)) want[c] = 0;
        else want[c] = buf[size_t(i < 0 ? 0 : i >= 40 ? 39 : i) * 4 + c];
      }
      expect_near4(out[t], want, "index " + std::to_string(i));
    }
  }
}

TEST_P(Textures, Fetch1DIntegerElements) {
  // short4 elements read as integers (sign-extended), then uchar1 (missing channels: 0, 0, 1).
  std::vector<int16_t> s16(4 * 16);
  for (size_t i = 0; i < s16.size(); ++i) s16[i] = int16_t(int(i * 2731) - 30000);
  std::vector<uint8_t> u8(16);
  for (size_t i = 0; i < u8.size(); ++i) u8[i] = uint8_t(i * 37 + 200);
  std::vector<int32_t> idx;
  for (int i = -2; i < 18; ++i) idx.push_back(i);
  const uint64_t didx = dev.upload(idx);
  for (int pass = 0; pass < 2; ++pass) {
    TexResource r;
    r.kind = TexResourceKind::Linear;
    r.base = pass == 0 ? dev.upload(s16) : dev.upload(u8);
    r.format = pass == 0 ? TexelFormat::S16 : TexelFormat::U8;
    r.channels = pass == 0 ? 4 : 1;
    r.width = 16;
    const uint64_t h = dev.create_texture_object(r, sampler(TexAddressMode::Clamp, false, false));
    const uint64_t dout = dev.allocate(idx.size() * 16);
    dev.launch(m, "fetch1d_int", {1, 1, 1}, {64, 1, 1}, 0,
               KernelArgs().add<uint64_t>(h).ptr(didx).ptr(dout).add<int32_t>(int32_t(idx.size())));
    const auto out = dev.download<I4>(dout, idx.size());
    for (size_t t = 0; t < idx.size(); ++t) {
      const int i = idx[t] < 0 ? 0 : idx[t] > 15 ? 15 : idx[t];
      for (int c = 0; c < 4; ++c) {
        const int32_t want = pass == 0 ? s16[size_t(i) * 4 + c] : c == 0 ? u8[size_t(i)] : c == 3 ? 1 : 0;
        EXPECT_EQ(out[t].v[c], want) << "pass " << pass << " index " << idx[t] << " channel " << c;
      }
    }
  }
}

TEST_P(Textures, Sample1DEveryAddressModeAndFilter) {
  RefImage img;
  const uint64_t base = float_array(img, 16, 1, 1, 1, 11);
  for (int normalized = 0; normalized < 2; ++normalized) {
    const auto x = normalized ? coords(200, -1.7f, 2.6f, 5) : coords(200, -20.0f, 36.0f, 6);
    const uint64_t dx = dev.upload(x);
    for (int mi = 0; mi < 4; ++mi)
      for (int linear = 0; linear < 2; ++linear) {
        const uint64_t h = dev.create_texture_object(array(base, TexelFormat::F32, 1, 16),
                                                     sampler(kModes[mi], linear, normalized));
        const auto out = launch_f4("sample1d", h, dx, x.size());
        const RefSampler rs = ref(kModes[mi], linear, normalized);
        for (size_t t = 0; t < x.size(); ++t) {
          double want[4];
          for (int c = 0; c < 4; ++c) want[c] = ref_sample(img, rs, 1, &x[t], 0, c);
          expect_near4(out[t], want,
                       std::string(kModeNames[mi]) + (linear ? " linear" : " point") +
                           (normalized ? " normalized" : "") + " x=" + std::to_string(x[t]));
        }
      }
  }
}

TEST_P(Textures, Sample2DNormalizedFloatReadOfUchar4) {
  // uchar4 texels read as [0,1] floats, every address mode, both filters, normalized coordinates.
  const int w = 8, h = 6;
  std::vector<uint8_t> host(size_t(w) * h * 4);
  std::mt19937 rng(3);
  for (auto& b : host) b = uint8_t(rng());
  RefImage img{w, h, 1, 4, {}};
  for (uint8_t b : host) img.data.push_back(b / 255.0);
  const uint64_t base = dev.upload(host);
  const auto c = coords(2 * 150, -1.3f, 2.2f, 9);
  const uint64_t dxy = dev.upload(c);
  for (int mi = 0; mi < 4; ++mi)
    for (int linear = 0; linear < 2; ++linear) {
      const uint64_t tex = dev.create_texture_object(array(base, TexelFormat::U8, 4, w, h),
                                                     sampler(kModes[mi], linear, true, TexReadMode::NormalizedFloat));
      const auto out = launch_f4("sample2d", tex, dxy, 150);
      const RefSampler rs = ref(kModes[mi], linear, true);
      for (size_t t = 0; t < 150; ++t) {
        double want[4];
        for (int ch = 0; ch < 4; ++ch) want[ch] = ref_sample(img, rs, 2, &c[2 * t], 0, ch);
        expect_near4(out[t], want, std::string(kModeNames[mi]) + (linear ? " linear" : " point"));
      }
    }
}

TEST_P(Textures, Sample2DUnsignedElementsPointPitch2D) {
  // ushort2 texels in a pitch-2D resource whose rows are 64 bytes apart; tex2D<uint4>.
  const int w = 7, h = 5, pitch = 64;
  std::vector<uint8_t> host(size_t(pitch) * h, 0xee);
  RefImage img{w, h, 1, 2, {}};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < 2; ++ch) {
        const uint16_t v = uint16_t(y * 9000 + x * 700 + ch * 13);
        std::memcpy(&host[size_t(y) * pitch + size_t(x) * 4 + ch * 2], &v, 2);
        img.data.push_back(v);
      }
  TexResource r = array(dev.upload(host), TexelFormat::U16, 2, w, h);
  r.kind = TexResourceKind::Pitch2D;
  r.pitch_bytes = pitch;
  const uint64_t tex = dev.create_texture_object(r, sampler(TexAddressMode::Border, false, false));
  const auto c = coords(2 * 100, -2.0f, 9.0f, 21);
  const uint64_t dout = dev.allocate(100 * 16);
  dev.launch(m, "sample2d_uint", {2, 1, 1}, {64, 1, 1}, 0,
             KernelArgs().add<uint64_t>(tex).ptr(dev.upload(c)).ptr(dout).add<int32_t>(100));
  const auto out = dev.download<I4>(dout, 100);
  const RefSampler rs = ref(TexAddressMode::Border, false, false);
  for (size_t t = 0; t < 100; ++t)
    for (int ch = 0; ch < 4; ++ch) {
      const double want = ref_sample(img, rs, 2, &c[2 * t], 0, ch);
      // Border texels are all zero, alpha included.
      const bool border = ref_index(long(std::floor(c[2 * t])), w, TexAddressMode::Border, false) < 0 ||
                          ref_index(long(std::floor(c[2 * t + 1])), h, TexAddressMode::Border, false) < 0;
      EXPECT_EQ(uint32_t(out[t].v[ch]), uint32_t(border ? 0 : want)) << t << " channel " << ch;
    }
}

TEST_P(Textures, Sample3DLinearWrapNormalized) {
  RefImage img;
  const uint64_t base = float_array(img, 4, 3, 5, 1, 17);
  const auto c = coords(4 * 128, -1.5f, 2.5f, 23);
  const uint64_t d = dev.upload(c);
  for (int linear = 0; linear < 2; ++linear) {
    const uint64_t tex = dev.create_texture_object(array(base, TexelFormat::F32, 1, 4, 3, 5),
                                                   sampler(TexAddressMode::Wrap, linear, true));
    const auto out = launch_f4("sample3d", tex, d, 128);
    for (size_t t = 0; t < 128; ++t) {
      double want[4];
      for (int ch = 0; ch < 4; ++ch) want[ch] = ref_sample(img, ref(TexAddressMode::Wrap, linear, true), 3, &c[4 * t], 0, ch);
      expect_near4(out[t], want, linear ? "linear" : "point");
    }
  }
}

TEST_P(Textures, LayeredArrays1DAnd2D) {
  RefImage img1, img2;
  const uint64_t b1 = float_array(img1, 8, 1, 4, 1, 31);   // 4 layers of 8
  const uint64_t b2 = float_array(img2, 5, 4, 3, 2, 32);   // 3 layers of 5x4, float2
  TexResource r1 = array(b1, TexelFormat::F32, 1, 8);
  r1.layers = 4;
  TexResource r2 = array(b2, TexelFormat::F32, 2, 5, 4);
  r2.layers = 3;
  std::vector<float> xl, xyl;
  std::mt19937 rng(5);
  for (int t = 0; t < 96; ++t) {
    xl.push_back(float(rng() % 1000) / 50.0f - 6.0f);
    xl.push_back(float(int(rng() % 6) - 1));  // layers -1..4: clamped to those present
    xyl.push_back(float(rng() % 1000) / 100.0f - 2.0f);
    xyl.push_back(float(rng() % 1000) / 100.0f - 3.0f);
    xyl.push_back(float(int(rng() % 5) - 1));
    xyl.push_back(0.0f);
  }
  const uint64_t t1 = dev.create_texture_object(r1, sampler(TexAddressMode::Clamp, true, false));
  const uint64_t t2 = dev.create_texture_object(r2, sampler(TexAddressMode::Border, true, false));
  const auto o1 = launch_f4("sample1d_layered", t1, dev.upload(xl), 96);
  const auto o2 = launch_f4("sample2d_layered", t2, dev.upload(xyl), 96);
  for (size_t t = 0; t < 96; ++t) {
    const int l1 = std::min(3, std::max(0, int(xl[2 * t + 1])));
    const int l2 = std::min(2, std::max(0, int(xyl[4 * t + 2])));
    double w1[4], w2[4];
    for (int ch = 0; ch < 4; ++ch) {
      w1[ch] = ref_sample(img1, ref(TexAddressMode::Clamp, true, false), 1, &xl[2 * t], l1, ch);
      w2[ch] = ref_sample(img2, ref(TexAddressMode::Border, true, false), 2, &xyl[4 * t], l2, ch);
    }
    expect_near4(o1[t], w1, "1-D layered");
    expect_near4(o2[t], w2, "2-D layered");
  }
}

TEST_P(Textures, CubemapFaceSelection) {
  RefImage img;
  const uint64_t base = float_array(img, 4, 4, 6, 1, 41);
  TexResource r = array(base, TexelFormat::F32, 1, 4, 4, 6);
  r.cubemap = true;
  std::vector<float> dir;
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (int t = 0; t < 128; ++t) {
    dir.push_back(d(rng));
    dir.push_back(d(rng));
    dir.push_back(d(rng));
    dir.push_back(0.0f);
  }
  for (int linear = 0; linear < 2; ++linear) {
    const uint64_t tex = dev.create_texture_object(r, sampler(TexAddressMode::Clamp, linear, true));
    const auto out = launch_f4("sample_cube", tex, dev.upload(dir), 128);
    for (size_t t = 0; t < 128; ++t) {
      const float x = dir[4 * t], y = dir[4 * t + 1], z = dir[4 * t + 2];
      // The programming guide's table: major axis picks the face and (s, t, m).
      int face;
      float sc, tc, ma;
      if (std::fabs(x) >= std::fabs(y) && std::fabs(x) >= std::fabs(z)) {
        face = x >= 0 ? 0 : 1, sc = x >= 0 ? -z : z, tc = -y, ma = std::fabs(x);
      } else if (std::fabs(y) >= std::fabs(z)) {
        face = y >= 0 ? 2 : 3, sc = x, tc = y >= 0 ? z : -z, ma = std::fabs(y);
      } else {
        face = z >= 0 ? 4 : 5, sc = z >= 0 ? x : -x, tc = -y, ma = std::fabs(z);
      }
      const float st[2] = {(sc / ma + 1.0f) * 0.5f, (tc / ma + 1.0f) * 0.5f};
      double want[4];
      for (int ch = 0; ch < 4; ++ch) want[ch] = ref_sample(img, ref(TexAddressMode::Clamp, linear, true), 2, st, face, ch);
      expect_near4(out[t], want, "cube face " + std::to_string(face));
    }
  }
}

TEST_P(Textures, Gather2DFourTexelsCounterClockwise) {
  RefImage img;
  const uint64_t base = float_array(img, 6, 5, 1, 4, 51);
  const auto c = coords(2 * 64, -2.0f, 8.0f, 52);
  for (TexAddressMode mode : {TexAddressMode::Clamp, TexAddressMode::Border}) {
    const uint64_t tex = dev.create_texture_object(array(base, TexelFormat::F32, 4, 6, 5), sampler(mode, false, false));
    const auto out = launch_f4("gather2d", tex, dev.upload(c), 64, 4);
    const RefSampler rs = ref(mode, false, false);
    for (size_t t = 0; t < 64; ++t) {
      const long i0 = long(std::floor(c[2 * t] - 0.5)), j0 = long(std::floor(c[2 * t + 1] - 0.5));
      for (int comp = 0; comp < 4; ++comp) {
        // Lower left, lower right, upper right, upper left (y grows downwards).
        const double want[4] = {ref_texel(img, rs, i0, j0 + 1, 0, false, 0, comp),
                                ref_texel(img, rs, i0 + 1, j0 + 1, 0, false, 0, comp),
                                ref_texel(img, rs, i0 + 1, j0, 0, false, 0, comp),
                                ref_texel(img, rs, i0, j0, 0, false, 0, comp)};
        expect_near4(out[4 * t + comp], want, "gather component " + std::to_string(comp));
      }
    }
  }
}

TEST_P(Textures, LodAndGradSampleLevelZero) {
  RefImage img;
  const uint64_t base = float_array(img, 8, 8, 1, 1, 61);
  const uint64_t tex = dev.create_texture_object(array(base, TexelFormat::F32, 1, 8, 8),
                                                 sampler(TexAddressMode::Wrap, true, true));
  std::vector<float> xyl;
  const auto c = coords(3 * 64, -1.0f, 2.0f, 62);
  for (int t = 0; t < 64; ++t) {
    xyl.push_back(c[3 * t]);
    xyl.push_back(c[3 * t + 1]);
    xyl.push_back(std::fabs(c[3 * t + 2]) * 3);  // a level: no mipmaps, so level 0
    xyl.push_back(0.0f);
  }
  std::vector<float> xy(c.begin(), c.begin() + 128);
  const auto lod = launch_f4("sample2d_lod", tex, dev.upload(xyl), 64);
  const auto grad = launch_f4("sample2d_grad", tex, dev.upload(xy), 64);
  for (size_t t = 0; t < 64; ++t) {
    double w1[4], w2[4];
    for (int ch = 0; ch < 4; ++ch) {
      w1[ch] = ref_sample(img, ref(TexAddressMode::Wrap, true, true), 2, &xyl[4 * t], 0, ch);
      w2[ch] = ref_sample(img, ref(TexAddressMode::Wrap, true, true), 2, &xy[2 * t], 0, ch);
    }
    expect_near4(lod[t], w1, "tex.level");
    expect_near4(grad[t], w2, "tex.grad");
  }
}

// ------------------------------------------------------------ surfaces

TEST_P(Textures, Surface2DClampReadAndWrite) {
  const int w = 10, h = 7;
  std::vector<float> src(size_t(w) * h);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(i) * 0.5f - 3.0f;
  const uint64_t s = dev.create_surface_object(array(dev.upload(src), TexelFormat::F32, 1, w, h));
  const uint64_t dst_mem = dev.allocate(src.size() * 4);
  const uint64_t d = dev.create_surface_object(array(dst_mem, TexelFormat::F32, 1, w, h));
  const uint64_t out = dev.allocate(size_t(w + 4) * (h + 4) * 4);
  dev.launch(m, "surf_copy_clamp", {1, 1, 1}, {uint32_t(w + 4), uint32_t(h + 4), 1}, 0,
             KernelArgs().add<uint64_t>(s).add<uint64_t>(d).ptr(out).add<int32_t>(w).add<int32_t>(h));
  const auto read = dev.download<float>(out, size_t(w + 4) * (h + 4));
  const auto written = dev.download<float>(dst_mem, src.size());
  for (int y = -2; y < h + 2; ++y)
    for (int x = -2; x < w + 2; ++x) {
      const int cx = std::min(w - 1, std::max(0, x)), cy = std::min(h - 1, std::max(0, y));
      EXPECT_EQ(read[size_t(y + 2) * (w + 4) + size_t(x + 2)], src[size_t(cy) * w + cx]) << x << "," << y;
      if (x >= 0 && y >= 0 && x < w && y < h) {
        EXPECT_EQ(written[size_t(y) * w + x], src[size_t(y) * w + x] * 2.0f + 1.0f) << x << "," << y;
      }
    }
}

TEST_P(Textures, Surface2DZeroModeReadsZeroAndDropsStores) {
  const int w = 6, h = 5;
  std::vector<int32_t> src(size_t(w) * h);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int32_t(i * 11 + 1);
  const uint64_t mem = dev.upload(src);
  const uint64_t s = dev.create_surface_object(array(mem, TexelFormat::S32, 1, w, h));
  const uint64_t out = dev.allocate(size_t(w + 4) * (h + 4) * 4);
  dev.launch(m, "surf_read_zero", {1, 1, 1}, {uint32_t(w + 4), uint32_t(h + 4), 1}, 0,
             KernelArgs().add<uint64_t>(s).ptr(out).add<int32_t>(w));
  const auto read = dev.download<int32_t>(out, size_t(w + 4) * (h + 4));
  for (int y = -2; y < h + 2; ++y)
    for (int x = -2; x < w + 2; ++x) {
      const bool in = x >= 0 && y >= 0 && x < w && y < h;
      EXPECT_EQ(read[size_t(y + 2) * (w + 4) + size_t(x + 2)], in ? src[size_t(y) * w + x] : 0) << x << "," << y;
    }
  dev.launch(m, "surf_write_zero", {1, 1, 1}, {uint32_t(w + 4), uint32_t(h + 4), 1}, 0,
             KernelArgs().add<uint64_t>(s).add<int32_t>(w));
  const auto after = dev.download<int32_t>(mem, src.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) EXPECT_EQ(after[size_t(y) * w + x], x * 100 + y) << x << "," << y;
}

TEST_P(Textures, SurfaceUchar4And1DAnd3D) {
  const int w = 8, h = 3;
  std::vector<uint8_t> rgba(size_t(w) * h * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = uint8_t(i * 7 + 3);
  const uint64_t s = dev.create_surface_object(array(dev.upload(rgba), TexelFormat::U8, 4, w, h));
  const uint64_t line = dev.allocate(rgba.size());
  const uint64_t d = dev.create_surface_object(array(line, TexelFormat::U8, 4, w * h));
  dev.launch(m, "surf_rgba", {1, uint32_t(h), 1}, {uint32_t(w), 1, 1}, 0,
             KernelArgs().add<uint64_t>(s).add<uint64_t>(d).add<int32_t>(w));
  const auto got = dev.download<uint8_t>(line, rgba.size());
  for (size_t p = 0; p < size_t(w) * h; ++p)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(got[4 * p + c], rgba[4 * p + 3 - c]) << p << " " << c;

  // short2 3-D surface: 4 x 3 x 2, components swapped.
  std::vector<int16_t> vol(4 * 3 * 2 * 2);
  for (size_t i = 0; i < vol.size(); ++i) vol[i] = int16_t(int(i) * 1000 - 20000);
  const uint64_t vs = dev.create_surface_object(array(dev.upload(vol), TexelFormat::S16, 2, 4, 3, 2));
  const uint64_t vmem = dev.allocate(vol.size() * 2);
  const uint64_t vd = dev.create_surface_object(array(vmem, TexelFormat::S16, 2, 4, 3, 2));
  dev.launch(m, "surf3d_copy", {2, 1, 1}, {4, 3, 1}, 0, KernelArgs().add<uint64_t>(vs).add<uint64_t>(vd));
  const auto vout = dev.download<int16_t>(vmem, vol.size());
  for (size_t e = 0; e < vol.size() / 2; ++e) {
    EXPECT_EQ(vout[2 * e], vol[2 * e + 1]) << e;
    EXPECT_EQ(vout[2 * e + 1], vol[2 * e]) << e;
  }
}

TEST_P(Textures, LayeredSurfaces1DAnd2D) {
  // surf_layered: 6 layers of 8 s32 into a 2-D layered surface of 3 layers
  // of 8 x 2; layer L's elements reversed into row L % 2 of layer L / 2, + L.
  const int w = 8, layers = 6, h = 2;
  std::vector<int32_t> src(size_t(w) * layers);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int32_t(i * 37 % 101) - 50;
  TexResource r1 = array(dev.upload(src), TexelFormat::S32, 1, w);
  r1.layers = layers;
  const uint64_t dst_mem = dev.allocate(src.size() * 4);
  TexResource r2 = array(dst_mem, TexelFormat::S32, 1, w, h);
  r2.layers = layers / h;
  const uint64_t s1 = dev.create_surface_object(r1), s2 = dev.create_surface_object(r2);
  dev.launch(m, "surf_layered", {uint32_t(layers), 1, 1}, {uint32_t(w), 1, 1}, 0,
             KernelArgs().add<uint64_t>(s1).add<uint64_t>(s2).add<int32_t>(h));
  std::vector<int32_t> want(src.size());
  for (int layer = 0; layer < layers; ++layer)
    for (int x = 0; x < w; ++x)
      want[size_t((layer / h) * h + layer % h) * w + size_t(w - 1 - x)] = src[size_t(layer) * w + x] + layer;
  EXPECT_EQ(dev.download<int32_t>(dst_mem, want.size()), want);

  // surf_layered_read2d: ushort2 elements of 2 layers of 4 x 3, halves swapped.
  const int w3 = 4, h3 = 3, l3 = 2;
  std::vector<uint16_t> pairs(size_t(w3) * h3 * l3 * 2);
  for (size_t i = 0; i < pairs.size(); ++i) pairs[i] = uint16_t(i * 1009 + 7);
  TexResource r3 = array(dev.upload(pairs), TexelFormat::U16, 2, w3, h3);
  r3.layers = l3;
  const uint64_t out = dev.allocate(pairs.size() * 2);
  dev.launch(m, "surf_layered_read2d", {uint32_t(l3), 1, 1}, {uint32_t(w3), uint32_t(h3), 1}, 0,
             KernelArgs().add<uint64_t>(dev.create_surface_object(r3)).ptr(out).add<int32_t>(w3).add<int32_t>(h3));
  const auto got = dev.download<uint16_t>(out, pairs.size());
  for (size_t e = 0; e < pairs.size() / 2; ++e) {
    EXPECT_EQ(got[2 * e], pairs[2 * e + 1]) << e;
    EXPECT_EQ(got[2 * e + 1], pairs[2 * e]) << e;
  }

  // .trap: the last element of the last layer is in range, one layer more is not.
  dev.launch(m, "surf_layered_write_trap", {1, 1, 1}, {1, 1, 1}, 0,
             KernelArgs().add<uint64_t>(s1).add<int32_t>(w - 1).add<int32_t>(layers - 1));
  EXPECT_EQ(dev.download<int32_t>(r1.base, src.size()).back(), 5);
  try {
    dev.launch(m, "surf_layered_write_trap", {1, 1, 1}, {1, 1, 1}, 0,
               KernelArgs().add<uint64_t>(s1).add<int32_t>(0).add<int32_t>(layers));
    FAIL() << "no fault";
  } catch (const exec::DeviceFault& f) {
    EXPECT_EQ(f.kind(), exec::FaultKind::OutOfBounds);
    EXPECT_NE(std::string(f.what()).find("surface store out of range (.trap) at coordinates (0) of layer 6 of a 8x1x6 surface"),
              std::string::npos)
        << f.what();
  }
}

TEST_P(Textures, TrapModeSurfaceStoreOutOfRangeIsADeviceFault) {
  const uint64_t mem = dev.allocate(4 * 4 * 4);
  const uint64_t s = dev.create_surface_object(array(mem, TexelFormat::S32, 1, 4, 4));
  dev.launch(m, "surf_write_trap", {1, 1, 1}, {1, 1, 1}, 0,
             KernelArgs().add<uint64_t>(s).add<int32_t>(3).add<int32_t>(3));
  EXPECT_EQ(dev.download<int32_t>(mem, 16)[15], 7);
  try {
    dev.launch(m, "surf_write_trap", {1, 1, 1}, {1, 1, 1}, 0,
               KernelArgs().add<uint64_t>(s).add<int32_t>(4).add<int32_t>(1));
    FAIL() << "no fault";
  } catch (const exec::DeviceFault& f) {
    EXPECT_NE(std::string(f.what()).find("surface store out of range (.trap) at coordinates (16, 1)"),
              std::string::npos)
        << f.what();
  }
}

TEST_P(Textures, UnknownHandleIsADeviceFaultNamingIt) {
  const uint64_t din = dev.upload(std::vector<int32_t>(4, 0));
  try {
    launch_f4("fetch1d", 0x3e7, din, 4);
    FAIL() << "no fault";
  } catch (const exec::DeviceFault& f) {
    EXPECT_NE(std::string(f.what()).find("handle 0x3e7 names no texture object"), std::string::npos) << f.what();
  }
  // A surface handle is not a texture, and a destroyed texture is gone.
  const uint64_t mem = dev.allocate(64);
  const uint64_t s = dev.create_surface_object(array(mem, TexelFormat::F32, 1, 4, 4));
  EXPECT_THROW(launch_f4("fetch1d", s, din, 4), exec::DeviceFault);
  TexResource r;
  r.base = mem;
  r.width = 16;
  const uint64_t t = dev.create_texture_object(r, TexSampler{});
  dev.destroy_texture_object(t);
  EXPECT_THROW(launch_f4("fetch1d", t, din, 4), exec::DeviceFault);
  EXPECT_THROW(dev.destroy_texture_object(t), platform::LaunchError);
}

INSTANTIATE_TEST_SUITE_P(Modes, Textures,
                         ::testing::Values(platform::SimulationMode::Functional, platform::SimulationMode::Timing,
                                           platform::SimulationMode::Lt),
                         [](const ::testing::TestParamInfo<platform::SimulationMode>& param_info) {
                           return std::string(param_info.param == platform::SimulationMode::Timing ? "Timing"
                                              : param_info.param == platform::SimulationMode::Lt ? "Lt"
                                                                                                 : "Functional");
                         });

// ------------------------------------------------------------ host API and parse errors

TEST(TextureObjects, InvalidDescriptionsAreLaunchErrors) {
  GpuDevice dev;
  const uint64_t mem = dev.allocate(256);
  TexResource r;
  r.base = mem;
  r.width = 64;
  r.format = TexelFormat::S32;
  TexSampler s;
  s.filter = TexFilterMode::Linear;
  EXPECT_THROW(dev.create_texture_object(r, s), platform::LaunchError);  // linear filtering of integers
  r.width = 65;
  EXPECT_THROW(dev.create_texture_object(r, TexSampler{}), platform::LaunchError);  // past the allocation
  r.width = 64;
  r.channels = 3;
  EXPECT_THROW(dev.create_texture_object(r, TexSampler{}), platform::LaunchError);
  r.channels = 1;
  EXPECT_THROW(dev.create_surface_object(r), platform::LaunchError);  // linear resources are not surfaces
}

/// Sum of the timing GPU's statistics whose key ends in `suffix`.
double stat_sum(const std::string& suffix) {
  double sum = 0;
  for (const auto& [k, v] : platform::timing_stats())
    if (k.size() >= suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0) sum += v;
  return sum;
}

/// Same bits in functional and timing mode, and in timing mode the fetches
/// go through the per-SM texture caches (the L1Ds see none of them).
TEST(TextureObjects, TimingModeGivesTheFunctionalResultsThroughTheTextureCache) {
  std::vector<std::vector<float>> results;
  double tex_accesses = 0, tex_reuse = 0, tex_misses = 0, l1d_accesses = 0;
  for (auto mode : {platform::SimulationMode::Functional, platform::SimulationMode::Timing}) {
    platform::DeviceOptions o;
    o.mode = mode;
    GpuDevice dev(o);
    auto m = dev.load_module(read_textures_ptx(), "textures.ptx");
    std::vector<float> img(32 * 32);
    for (size_t i = 0; i < img.size(); ++i) img[i] = std::sin(float(i));
    TexResource r;
    r.kind = TexResourceKind::Array;
    r.base = dev.upload(img);
    r.width = r.height = 32;
    TexSampler s;
    s.filter = TexFilterMode::Linear;
    s.normalized_coords = true;
    s.address[0] = s.address[1] = TexAddressMode::Wrap;
    const uint64_t tex = dev.create_texture_object(r, s);
    std::vector<float> xy(2 * 512);
    for (size_t i = 0; i < xy.size(); ++i) xy[i] = float(i % 97) / 41.0f - 0.7f;
    const uint64_t dout = dev.allocate(512 * 16);
    const double a0 = stat_sum(".tex.accesses"), h0 = stat_sum(".tex.hits") + stat_sum(".tex.mshr_merges"),
                 m0 = stat_sum(".tex.misses"), d0 = stat_sum(".l1d.accesses");
    // One CTA of 16 warps: they share one SM's texture cache.
    dev.launch(m, "sample2d", {1, 1, 1}, {512, 1, 1}, 0,
               KernelArgs().add<uint64_t>(tex).ptr(dev.upload(xy)).ptr(dout).add<int32_t>(512));
    results.push_back(dev.download<float>(dout, 512 * 4));
    if (mode == platform::SimulationMode::Timing) {
      EXPECT_GT(dev.stats().sim_cycles, 0u);
      tex_accesses = stat_sum(".tex.accesses") - a0;
      tex_reuse = stat_sum(".tex.hits") + stat_sum(".tex.mshr_merges") - h0;
      tex_misses = stat_sum(".tex.misses") - m0;
      l1d_accesses = stat_sum(".l1d.accesses") - d0;
    }
  }
  EXPECT_GT(tex_accesses, 0);
  EXPECT_GT(tex_reuse, 0);    // 4 KB of texels read by 512 threads: hits or merges into pending fills
  EXPECT_GT(tex_misses, 0);   // cold at the launch
  EXPECT_GT(l1d_accesses, 0); // the coordinate loads and result stores
  ASSERT_EQ(results[0].size(), results[1].size());
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * 4), 0);
}

/// A launch file declares a 2-D texture over a buffer and passes its handle to sample2d.
TEST(TextureObjects, LaunchFileTexture) {
  // 4 x 2 floats, clamp, linear filtering, unnormalized coordinates.
  const float img[8] = {1, 2, 4, 8, 16, 32, 64, 128};
  const float xy[6] = {0.5f, 0.5f, 1.25f, 1.0f, 3.9f, -3.0f};
  RefImage ref_img{4, 2, 1, 1, std::vector<double>(img, img + 8)};
  RefSampler rs;
  rs.linear = true;
  std::ostringstream want;
  for (int t = 0; t < 3; ++t)
    for (int c = 0; c < 4; ++c) want << (t || c ? ", " : "") << ref_sample(ref_img, rs, 2, &xy[2 * t], 0, c);
  const std::string text = R"({
    "ptx": "textures.ptx",
    "buffers": [
      {"name": "img", "type": "f32", "init": {"values": [1, 2, 4, 8, 16, 32, 64, 128]}},
      {"name": "xy", "type": "f32", "init": {"values": [0.5, 0.5, 1.25, 1.0, 3.9, -3.0]}},
      {"name": "out", "type": "f32", "count": 12}
    ],
    "textures": [
      {"name": "t", "buffer": "img", "format": "f32", "width": 4, "height": 2,
       "address": "clamp", "filter": "linear"}
    ],
    "launches": [
      {"kernel": "sample2d", "grid": 1, "block": 32,
       "args": [{"texture": "t"}, {"buffer": "xy"}, {"buffer": "out"}, {"type": "s32", "value": 3}]}
    ],
    "expect": [{"buffer": "out", "values": [)" + want.str() + R"(], "tolerance": 1e-5}]
  })";
  const auto file = platform::LaunchFile::parse(text, "tex.json", std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth");
  GpuDevice dev;
  const platform::LaunchFileResult r = file.run(dev);
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.expectations, 1u);
  // A texture over too small a buffer, and an unknown texture name, are launch-file errors.
  std::string small = text;
  small.replace(small.find("\"height\": 2"), 11, "\"height\": 3");
  EXPECT_THROW(platform::LaunchFile::parse(small, "tex.json", std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth")
                   .run(dev),
               platform::LaunchFileError);
  std::string unknown = text;
  unknown.replace(unknown.find("{\"texture\": \"t\"}"), 16, "{\"texture\": \"u\"}");
  EXPECT_THROW(platform::LaunchFile::parse(unknown, "tex.json", std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth"),
               platform::LaunchFileError);
}

std::string parse_error(const std::string& body, const std::string& decls = "") {
  try {
    ptx::parse_ptx(".version 8.0\n.target sm_75\n.address_size 64\n" + decls +
                       ".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<4>;\n" + body +
                       "  ret;\n}\n",
                   "t.ptx");
  } catch (const ptx::PtxError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TextureParse, ErrorsAreLocatedAndNamed) {
  EXPECT_EQ(parse_error("  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
                        "  suld.b.2d.v2.b32.zero {%r1, %r2}, [%rd1, {%r3, %r3}];\n"
                        "  sust.b.3d.b64.clamp [%rd1, {%r1, %r2, %r3, %r3}], %rd2;\n"
                        "  tld4.a.2d.v4.s32.f32 {%r1, %r2, %r3, %r0}, [%rd1, {%f5, %f6}];\n"),
            "no error");
  // Line 9 is the first body line.
  const std::string wrong_count = parse_error("  tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n");
  EXPECT_NE(wrong_count.find("t.ptx:9:"), std::string::npos) << wrong_count;
  EXPECT_NE(wrong_count.find("expects 4 coordinates"), std::string::npos) << wrong_count;
  EXPECT_NE(parse_error("  tex.2d.v4.f64.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n").find("t.ptx:9:"),
            std::string::npos);
  EXPECT_NE(parse_error("  suld.b.2d.b32.wrap %r1, [%rd1, {%r2, %r3}];\n").find("unsupported PTX instruction"),
            std::string::npos);
  // Layered surfaces: {layer, x} and {layer, x, y, unused}; cubemap surfaces are not in the ISA.
  EXPECT_EQ(parse_error("  suld.b.a1d.b32.trap {%r1}, [%rd1, {%r2, %r3}];\n"
                        "  sust.b.a2d.v2.b32.zero [%rd1, {%r1, %r2, %r3, %r3}], {%r0, %r1};\n"),
            "no error");
  EXPECT_NE(parse_error("  sust.b.a2d.b32.trap [%rd1, {%r1, %r2}], {%r3};\n").find("expects 4 coordinates"),
            std::string::npos);
  EXPECT_NE(parse_error("  suld.b.cube.b32.trap {%r1}, [%rd1, {%r1, %r2, %r3, %r3}];\n").find("unsupported PTX instruction"),
            std::string::npos);
  EXPECT_NE(parse_error("  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tr, {%f5, %f6}];\n")
                .find("unsupported: texture references"),
            std::string::npos);
  const std::string texref = parse_error("", ".global .texref tr;\n");
  EXPECT_NE(texref.find("t.ptx:4:"), std::string::npos) << texref;
  EXPECT_NE(texref.find("unsupported: texture references (.texref); use texture objects"), std::string::npos)
      << texref;
}

}  // namespace
}  // namespace tlmgpu
