// Texture sampling and surface access, per the CUDA programming guide's
// "Texture Fetching" appendix and the PTX ISA's tex / tld4 / suld / sust.
//
// What is modelled and what is not:
// - Addressing is applied to texel indices: wrap = index mod N, mirror =
//   reflection with period 2N, clamp = nearest edge texel, border = a zero
//   texel. As in CUDA, wrap and mirror need normalized coordinates; with
//   unnormalized ones they behave as clamp.
// - Linear filtering weights are CUDA's 9-bit fixed point with 8 fraction
//   bits: frac(x - 0.5) rounded to a multiple of 1/256.
// - Missing channels read as 0, except the fourth (alpha), which reads as 1.
// - There are no mipmapped arrays: tex.level and tex.grad sample level 0.
// - Cubemaps select the face by the major axis as the guide's table says and
//   clamp the footprint at the face edge (no seamless filtering).
// - The layer index of a layered texture is clamped to the layers present.
#include "model/exec/texture_unit.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "model/exec/warp.h"
#include "model/ptx/float_ops.h"

namespace tlmgpu::exec {

using ptx::DataType;
using ptx::Instruction;
using ptx::OperandKind;
using ptx::TexGeom;

unsigned texel_format_bytes(TexelFormat f) {
  switch (f) {
    case TexelFormat::U8: case TexelFormat::S8: return 1;
    case TexelFormat::U16: case TexelFormat::S16: case TexelFormat::F16: return 2;
    default: return 4;
  }
}

const char* texel_format_name(TexelFormat f) {
  static const char* const names[] = {"u8", "s8", "u16", "s16", "u32", "s32", "f16", "f32"};
  return names[unsigned(f)];
}

void validate_tex_resource(const TexResource& r) {
  auto bad = [](const std::string& m) { throw std::invalid_argument("texture/surface resource: " + m); };
  if (r.channels != 1 && r.channels != 2 && r.channels != 4) bad("channels must be 1, 2 or 4");
  if (r.width == 0 || r.height == 0 || r.depth == 0) bad("width, height and depth must be at least 1");
  if (r.kind == TexResourceKind::Linear && (r.height != 1 || r.depth != 1 || r.layers || r.cubemap))
    bad("a linear resource is one-dimensional");
  if (r.kind == TexResourceKind::Pitch2D && (r.depth != 1 || r.layers || r.cubemap))
    bad("a pitch-2D resource is two-dimensional");
  if (r.pitch_bytes && r.pitch_bytes < r.width * r.element_bytes()) bad("pitch is smaller than a row");
  if (r.cubemap && (r.width != r.height || r.depth != 6 || r.layers)) bad("a cubemap has six square faces");
  if (r.layers && r.depth != 1) bad("a layered array has depth 1");
}

uint64_t TextureTable::create_texture(const TextureObject& t) {
  validate_tex_resource(t.resource);
  const TexelFormat f = t.resource.format;
  const bool is_int = f != TexelFormat::F16 && f != TexelFormat::F32;
  const bool small_int = is_int && texel_format_bytes(f) < 4;
  if (t.sampler.read_mode == TexReadMode::NormalizedFloat && !small_int && is_int)
    throw std::invalid_argument("texture: normalized-float read mode needs an 8- or 16-bit integer format");
  const bool float_result = !is_int || t.sampler.read_mode == TexReadMode::NormalizedFloat;
  if (t.sampler.filter == TexFilterMode::Linear && !float_result)
    throw std::invalid_argument("texture: linear filtering needs a floating-point result (float format or "
                                "normalized-float read mode)");
  if (t.resource.kind == TexResourceKind::Linear && t.sampler.normalized_coords)
    throw std::invalid_argument("texture: a linear resource (tex1Dfetch) takes unnormalized coordinates");
  entries_.push_back(Entry{Entry::Texture, t});
  return entries_.size();
}

uint64_t TextureTable::create_surface(const TexResource& r) {
  validate_tex_resource(r);
  entries_.push_back(Entry{Entry::Surface, TextureObject{r, TexSampler{}}});
  return entries_.size();
}

void TextureTable::destroy(uint64_t handle) {
  if (handle == 0 || handle > entries_.size() || entries_[handle - 1].kind == Entry::Free)
    throw std::invalid_argument("no texture or surface object with handle " + std::to_string(handle));
  entries_[handle - 1].kind = Entry::Free;
}

const TextureObject* TextureTable::texture(uint64_t handle) const {
  if (handle == 0 || handle > entries_.size() || entries_[handle - 1].kind != Entry::Texture) return nullptr;
  return &entries_[handle - 1].object;
}

const TexResource* TextureTable::surface(uint64_t handle) const {
  if (handle == 0 || handle > entries_.size() || entries_[handle - 1].kind != Entry::Surface) return nullptr;
  return &entries_[handle - 1].object.resource;
}

namespace {

constexpr unsigned kLanes = ptx::kWarpSize;

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

/// One lane's sampling: the object, where its texels are, and the lane's
/// first texel address (what the timing model's memory access records).
class TexelReader {
 public:
  TexelReader(const TextureObject& t, Warp& w, unsigned lane) : t_(t), r_(t.resource), w_(w), lane_(lane) {}

  /// Channel values of the texel (i, j) of slice k after address mode
  /// (out of range under border: all zero); floats as read (normalized-float
  /// conversion applied), integers exactly.
  void texel(int64_t i, int64_t j, int64_t k, double out[4]) {
    int64_t c[3] = {i, j, k};
    const int64_t n[3] = {r_.width, r_.height, r_.slices()};
    for (int a = 0; a < 3; ++a) {
      const int64_t m = n[a];
      // The third axis of 2-D/layered/cube reads is the slice, addressed by clamping.
      const TexAddressMode mode = a == 2 && !three_d_ ? TexAddressMode::Clamp : t_.sampler.address[a];
      c[a] = address(c[a], m, mode);
      if (c[a] < 0) {
        for (int q = 0; q < 4; ++q) out[q] = 0.0;
        return;
      }
    }
    const uint64_t addr = r_.base + uint64_t(c[2]) * r_.row_bytes() * r_.height + uint64_t(c[1]) * r_.row_bytes() +
                          uint64_t(c[0]) * r_.element_bytes();
    if (!have_first_) {
      first_addr_ = addr;
      have_first_ = true;
    }
    const uint8_t* p = w_.resolve(ptx::StateSpace::Global, addr, r_.element_bytes(), 1, lane_);
    const unsigned cb = texel_format_bytes(r_.format);
    for (unsigned q = 0; q < 4; ++q) {
      if (q >= r_.channels) {
        out[q] = q == 3 ? 1.0 : 0.0;
        continue;
      }
      out[q] = channel(p + q * cb);
    }
  }

  void set_three_d(bool v) { three_d_ = v; }
  bool have_first() const { return have_first_; }
  uint64_t first_addr() const { return first_addr_; }

 private:
  /// Texel index after the address mode; -1 for a border texel.
  int64_t address(int64_t i, int64_t n, TexAddressMode mode) const {
    if (!t_.sampler.normalized_coords && (mode == TexAddressMode::Wrap || mode == TexAddressMode::Mirror))
      mode = TexAddressMode::Clamp;
    switch (mode) {
      case TexAddressMode::Wrap: return ((i % n) + n) % n;
      case TexAddressMode::Mirror: {
        const int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
      }
      case TexAddressMode::Clamp: return std::clamp<int64_t>(i, 0, n - 1);
      case TexAddressMode::Border: return i < 0 || i >= n ? -1 : i;
    }
    return i;
  }

  double channel(const uint8_t* p) const {
    const bool norm = t_.sampler.read_mode == TexReadMode::NormalizedFloat;
    switch (r_.format) {
      case TexelFormat::U8: return norm ? p[0] / 255.0 : p[0];
      case TexelFormat::S8: {
        const int8_t v = int8_t(p[0]);
        return norm ? std::max(v / 127.0, -1.0) : v;
      }
      case TexelFormat::U16: case TexelFormat::S16: case TexelFormat::F16: {
        uint16_t u;
        std::memcpy(&u, p, 2);
        if (r_.format == TexelFormat::F16) return fp::half_to_float(u);
        if (r_.format == TexelFormat::U16) return norm ? u / 65535.0 : u;
        return norm ? std::max(int16_t(u) / 32767.0, -1.0) : int16_t(u);
      }
      case TexelFormat::U32: case TexelFormat::S32: case TexelFormat::F32: {
        uint32_t u;
        std::memcpy(&u, p, 4);
        if (r_.format == TexelFormat::F32) return fp::f32(u);
        return r_.format == TexelFormat::U32 ? double(u) : double(int32_t(u));
      }
    }
    return 0.0;
  }

  const TextureObject& t_;
  const TexResource& r_;
  Warp& w_;
  unsigned lane_;
  bool three_d_ = false;
  bool have_first_ = false;
  uint64_t first_addr_ = 0;
};

/// Lower texel index and CUDA's 9-bit weight for linear filtering at texel-space u.
void linear_footprint(double u, int64_t& i0, double& alpha) {
  const double xb = u - 0.5;
  const double f = std::floor(xb);
  i0 = int64_t(f);
  alpha = std::floor((xb - f) * 256.0 + 0.5) / 256.0;  // to nearest, halves up (9 bits: 256/256 is 1)
}

/// Texel-space coordinate (normalized coordinates scaled by the size), kept
/// in a range where floor() converts to an integer safely.
double texel_space(float x, uint32_t n, bool normalized) {
  double u = normalized ? double(x) * n : double(x);
  if (std::isnan(u)) u = 0.0;
  return std::clamp(u, -1e9, 1e9);
}

/// Cubemap face and its normalized (s, t) per the CUDA programming guide's table.
void cube_face(float x, float y, float z, int& face, float& s, float& t) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  float m, sc, tc;
  if (ax >= ay && ax >= az) {
    m = ax;
    face = x >= 0 ? 0 : 1;
    sc = x >= 0 ? -z : z;
    tc = -y;
  } else if (ay >= az) {
    m = ay;
    face = y >= 0 ? 2 : 3;
    sc = x;
    tc = y >= 0 ? z : -z;
  } else {
    m = az;
    face = z >= 0 ? 4 : 5;
    sc = z >= 0 ? x : -x;
    tc = -y;
  }
  s = m == 0.0f ? 0.5f : (sc / m + 1.0f) * 0.5f;
  t = m == 0.0f ? 0.5f : (tc / m + 1.0f) * 0.5f;
}

/// Writes a fetched value in the destination type: floats as f32 bits,
/// integers as 32-bit words (the texture unit returns 32-bit values).
uint64_t result_bits(double v, DataType dtype, bool float_value) {
  if (dtype == DataType::F32) return fp::bits(float(v));
  if (float_value) return fp::bits(float(v));  // the word the unit returns, read as an integer
  return uint64_t(uint32_t(int64_t(v)));
}

[[noreturn]] void bad_handle(Warp& w, unsigned lane, uint64_t handle, const char* what) {
  w.fault(FaultKind::Trap, std::string("handle ") + hex(handle) + " names no " + what + " object", lane, handle);
}

void exec_tex(const Instruction& in, uint32_t mask, Warp& w) {
  const uint64_t* handle = w.reg(in.src[0].reg);
  const uint64_t* coord[4] = {nullptr, nullptr, nullptr, nullptr};
  for (unsigned k = 0; k < in.src[1].count; ++k) coord[k] = w.reg(in.src[1].vregs[k]);
  const TextureTable* table = w.context().textures;
  const bool int_coords = in.type2 == DataType::S32;
  uint64_t result[4][kLanes];
  MemAccess* rec = w.record_accesses() ? &w.access() : nullptr;
  uint32_t rec_mask = 0;
  unsigned rec_bytes = 4;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    const TextureObject* t = table ? table->texture(handle[l]) : nullptr;
    if (t == nullptr) bad_handle(w, l, handle[l], "texture");
    const TexResource& r = t->resource;
    const bool is_int = r.format != TexelFormat::F16 && r.format != TexelFormat::F32;
    const bool float_value = !is_int || t->sampler.read_mode == TexReadMode::NormalizedFloat;
    const bool linear = t->sampler.filter == TexFilterMode::Linear && !int_coords;
    TexelReader reader(*t, w, l);
    auto fcoord = [&](unsigned k) { return fp::f32(uint32_t(coord[k][l])); };
    auto icoord = [&](unsigned k) { return int64_t(int32_t(uint32_t(coord[k][l]))); };
    // Coordinates by geometry: (x, y, z-or-slice), how many filtered axes.
    unsigned dims = 1, first = 0;
    int64_t slice = 0;
    bool normalized = t->sampler.normalized_coords;
    float fx = 0, fy = 0, fz = 0;
    switch (in.tex_geom) {
      case TexGeom::D1: dims = 1; break;
      case TexGeom::D2: dims = 2; break;
      case TexGeom::D3: dims = 3; reader.set_three_d(true); break;
      case TexGeom::A1D: dims = 1; first = 1; break;
      case TexGeom::A2D: dims = 2; first = 1; break;
      case TexGeom::Cube: dims = 2; break;
    }
    if (in.tex_geom == TexGeom::A1D || in.tex_geom == TexGeom::A2D) {
      const int64_t layers = std::max<uint32_t>(r.layers, 1);
      slice = std::clamp<int64_t>(icoord(0), 0, layers - 1);
    }
    int64_t ii[3] = {0, 0, 0};
    double wgt[3] = {0, 0, 0};
    if (in.tex_geom == TexGeom::Cube) {
      int face = 0;
      cube_face(fcoord(0), fcoord(1), fcoord(2), face, fx, fy);
      slice = face;
      normalized = true;
    } else if (!int_coords) {
      fx = fcoord(first);
      if (dims > 1) fy = fcoord(first + 1);
      if (dims > 2) fz = fcoord(first + 2);
    }
    const uint32_t size[3] = {r.width, r.height, r.depth};
    const float fc[3] = {fx, fy, fz};
    for (unsigned a = 0; a < dims; ++a) {
      if (int_coords) {
        ii[a] = icoord(first + a);
        continue;
      }
      const double u = texel_space(fc[a], size[a], normalized);
      if (linear || in.op == ptx::Opcode::Tld4) linear_footprint(u, ii[a], wgt[a]);
      else ii[a] = int64_t(std::floor(u));
    }
    TexSampler cube_sampler = t->sampler;
    TextureObject cube_object{r, cube_sampler};
    if (in.tex_geom == TexGeom::Cube) {
      // Each face is sampled on its own (no seamless filtering): clamp at its edges.
      for (auto& a : cube_object.sampler.address) a = TexAddressMode::Clamp;
      cube_object.sampler.normalized_coords = true;
    }
    TexelReader cube_reader(cube_object, w, l);
    TexelReader& rd = in.tex_geom == TexGeom::Cube ? cube_reader : reader;
    auto fetch = [&](int64_t i, int64_t j, int64_t k, double out[4]) {
      if (in.tex_geom == TexGeom::D3) rd.texel(i, j, k, out);
      else rd.texel(i, dims > 1 ? j : 0, slice, out);
    };
    double v[4] = {0, 0, 0, 0};
    if (in.op == ptx::Opcode::Tld4) {
      // Counter-clockwise from the lower left: (i0, j0+1), (i0+1, j0+1), (i0+1, j0), (i0, j0).
      const int64_t di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
      for (unsigned q = 0; q < 4; ++q) {
        double tx[4];
        fetch(ii[0] + di[q], ii[1] + dj[q], 0, tx);
        v[q] = tx[in.tld4_comp];
      }
    } else if (!linear) {
      fetch(ii[0], ii[1], ii[2], v);
    } else {
      // CUDA's formula: sum over the 2^dims footprint texels of the product
      // of (1 - weight) or weight per axis.
      const unsigned corners = 1u << dims;
      for (unsigned c = 0; c < corners; ++c) {
        double f = 1.0;
        int64_t at[3] = {ii[0], ii[1], ii[2]};
        for (unsigned a = 0; a < dims; ++a) {
          const bool hi = (c >> a) & 1;
          f *= hi ? wgt[a] : 1.0 - wgt[a];
          at[a] += hi;
        }
        double tx[4];
        fetch(at[0], at[1], at[2], tx);
        for (unsigned q = 0; q < 4; ++q) v[q] += f * tx[q];
      }
    }
    for (unsigned q = 0; q < 4; ++q) result[q][l] = result_bits(v[q], in.type, float_value);
    if (rec && rd.have_first()) {
      rec->addr[l] = rd.first_addr();
      rec_mask |= 1u << l;
      rec_bytes = std::min(16u, r.element_bytes());
    }
  }
  for (unsigned q = 0; q < 4; ++q) {
    if (in.dst.vregs[q] == ptx::kNoReg) continue;
    uint64_t* d = w.reg(in.dst.vregs[q]);
    for (uint32_t m = mask; m; m &= m - 1) {
      const unsigned l = unsigned(__builtin_ctz(m));
      d[l] = result[q][l];
    }
  }
  if (rec) {
    rec->space = ptx::StateSpace::Global;
    rec->mask = rec_mask;
    rec->bytes = uint8_t(rec_bytes);
    rec->is_store = false;
    rec->is_atomic = false;
    rec->segments = 1;
  }
  w.end_global_access();
}

void exec_surface(const Instruction& in, uint32_t mask, Warp& w) {
  const bool is_ld = in.op == ptx::Opcode::Suld;
  const uint64_t* handle = w.reg(in.src[0].reg);
  const uint64_t* coord[4] = {nullptr, nullptr, nullptr, nullptr};
  for (unsigned k = 0; k < in.src[1].count; ++k) coord[k] = w.reg(in.src[1].vregs[k]);
  const unsigned es = ptx::type_bytes(in.type), n = in.vec ? in.vec : 1, bytes = es * n;
  // Element coordinates (x in bytes, y, z-or-layer). A layered access's
  // vector starts with the layer index ({layer, x} or {layer, x, y, -}).
  const bool layered = in.tex_geom == TexGeom::A1D || in.tex_geom == TexGeom::A2D;
  const unsigned dims = in.tex_geom == TexGeom::D1 || in.tex_geom == TexGeom::A1D ? 1
                        : in.tex_geom == TexGeom::D2 || in.tex_geom == TexGeom::A2D ? 2 : 3;
  const unsigned checked_axes = layered ? 3 : dims;
  MemAccess* rec = w.record_accesses() ? &w.access() : nullptr;
  uint32_t rec_mask = 0;
  bool changed = false;
  uint64_t loaded[4][kLanes] = {};
  const uint64_t* value[4] = {nullptr, nullptr, nullptr, nullptr};
  uint64_t imm[kLanes];
  if (!is_ld) {
    if (in.src[2].kind == OperandKind::Vector) {
      for (unsigned q = 0; q < n; ++q) value[q] = w.reg(in.src[2].vregs[q]);
    } else if (in.src[2].kind == OperandKind::Imm) {
      std::fill(imm, imm + kLanes, in.src[2].imm);
      value[0] = imm;
    } else {
      value[0] = w.reg(in.src[2].reg);
    }
  }
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    const TexResource* r = w.context().textures ? w.context().textures->surface(handle[l]) : nullptr;
    if (r == nullptr) bad_handle(w, l, handle[l], "surface");
    int64_t c[3] = {0, 0, 0};
    auto word = [&](unsigned k) { return int64_t(int32_t(uint32_t(coord[k][l]))); };
    for (unsigned a = 0; a < dims; ++a) c[a] = word(layered ? a + 1 : a);
    if (layered) c[2] = word(0);
    const int64_t row = int64_t(r->width) * r->element_bytes();
    const int64_t lim[3] = {row - int64_t(bytes), int64_t(r->height) - 1, int64_t(r->slices()) - 1};
    bool out = false;
    for (unsigned a = 0; a < checked_axes; ++a) out |= c[a] < 0 || c[a] > lim[a];
    if (out) {
      if (in.surf_clamp == ptx::SurfClamp::Zero) continue;  // loads read 0, stores are dropped
      if (in.surf_clamp == ptx::SurfClamp::Trap) {
        const uint64_t at = r->base + uint64_t(c[2]) * r->row_bytes() * r->height + uint64_t(c[1]) * r->row_bytes() +
                            uint64_t(c[0]);
        std::ostringstream what;
        what << "surface " << (is_ld ? "load" : "store") << " out of range (.trap) at coordinates (" << c[0];
        if (dims > 1) what << ", " << c[1];
        if (dims > 2) what << ", " << c[2];
        what << ")";
        if (layered) what << " of layer " << c[2];
        what << " of a " << r->width << "x" << r->height << "x" << r->slices() << " surface, handle "
             << hex(handle[l]);
        w.fault(FaultKind::OutOfBounds, what.str(), l, at);
      }
      // .clamp: the nearest element in range (x stays aligned to the access).
      for (unsigned a = 0; a < checked_axes; ++a) c[a] = std::clamp<int64_t>(c[a], 0, std::max<int64_t>(lim[a], 0));
      c[0] -= c[0] % bytes;
    }
    const uint64_t addr =
        r->base + uint64_t(c[2]) * r->row_bytes() * r->height + uint64_t(c[1]) * r->row_bytes() + uint64_t(c[0]);
    uint8_t* p = w.resolve(ptx::StateSpace::Global, addr, bytes, es, l);
    if (rec) {
      rec->addr[l] = addr;
      rec_mask |= 1u << l;
    }
    for (unsigned q = 0; q < n; ++q) {
      if (is_ld) {
        uint64_t v = 0;
        std::memcpy(&v, p + q * es, es);
        loaded[q][l] = v;
      } else {
        const uint64_t v = value[q][l];
        if (std::memcmp(p + q * es, &v, es) != 0) {
          std::memcpy(p + q * es, &v, es);
          changed = true;
        }
      }
    }
  }
  if (is_ld) {
    for (unsigned q = 0; q < n; ++q) {
      const uint32_t reg = in.dst.kind == OperandKind::Vector ? in.dst.vregs[q] : in.dst.reg;
      if (reg == ptx::kNoReg) continue;
      uint64_t* d = w.reg(reg);
      for (uint32_t m = mask; m; m &= m - 1) {
        const unsigned l = unsigned(__builtin_ctz(m));
        d[l] = loaded[q][l];
      }
    }
  }
  if (rec) {
    rec->space = ptx::StateSpace::Global;
    rec->mask = rec_mask;
    rec->bytes = uint8_t(bytes);
    rec->is_store = !is_ld;
    rec->is_atomic = false;
    rec->segments = 1;
  }
  if (changed) w.note_progress();
  w.end_global_access();
}

}  // namespace

void execute_texture_instruction(const Instruction& in, uint32_t mask, Warp& w) {
  if (in.op == ptx::Opcode::Tex || in.op == ptx::Opcode::Tld4) exec_tex(in, mask, w);
  else exec_surface(in, mask, w);
}

}  // namespace tlmgpu::exec
