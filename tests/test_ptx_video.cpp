// bmsk, szext and the PTX video instructions (issue 18): the forms nvcc emits
// for CUDA's SIMD intrinsics and inline asm (tests/ptx/breadth/video_bits.cu),
// and every selector / saturation / secondary-operation combination of each
// instruction, generated as PTX here, against a CPU reference written from the
// PTX ISA's pseudo-code. Also the inline-assembly register scopes and
// predicate second destinations (tests/ptx/breadth/inline_asm.cu).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "model/ptx/ptx_parser.h"
#include "platform/gpu_device.h"

namespace tlmgpu {
namespace {

using platform::GpuDevice;
using platform::KernelArgs;

std::string read_breadth_ptx(const std::string& name) {
  std::ifstream f(std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

constexpr uint32_t kThreads = 64;

/// Operand values: random words mixed with the edges of every byte and half-word range.
std::vector<uint32_t> operand_values(uint32_t seed) {
  static const uint32_t edges[] = {0u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x80808080u, 0x7f7f7f7fu,
                                   0x80007fffu, 0x00ff00ffu, 1u, 32u, 33u, 0xffu};
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(kThreads);
  for (uint32_t i = 0; i < kThreads; ++i) v[i] = (rng() % 3 == 0) ? edges[rng() % 12] : uint32_t(rng());
  return v;
}

// ------------------------------------------------------------ CPU reference

int64_t ref_part(uint32_t x, int sel, bool s) {  // sel: 0-3 bytes, 4-5 halves, 6 word
  if (sel < 4) {
    const uint8_t v = uint8_t(x >> (8 * sel));
    return s ? int64_t(int8_t(v)) : int64_t(v);
  }
  if (sel < 6) {
    const uint16_t v = uint16_t(x >> (16 * (sel - 4)));
    return s ? int64_t(int16_t(v)) : int64_t(v);
  }
  return s ? int64_t(int32_t(x)) : int64_t(x);
}

int64_t ref_clamp(int64_t v, int bits, bool s) {
  const int64_t lo = s ? -(int64_t(1) << (bits - 1)) : 0;
  const int64_t hi = s ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  return v < lo ? lo : v > hi ? hi : v;
}

bool ref_cmp(int cmp, int64_t a, int64_t b) {  // eq ne lt le gt ge
  switch (cmp) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

const char* const kCmpNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
const char* const kSelNames[] = {".b0", ".b1", ".b2", ".b3", ".h0", ".h1", ""};

uint32_t ref_bmsk(uint32_t a, uint32_t b, bool clamp) {
  // Bits [a, a+b) of the word; clamp: a >= 32 gives 0, b >= 32 reaches bit 31;
  // wrap: both taken mod 32.
  uint64_t pos = clamp ? a : (a & 31), width = clamp ? b : (b & 31);
  if (pos >= 32) return 0;
  uint64_t end = std::min<uint64_t>(pos + width, 32);
  uint32_t m = 0;
  for (uint64_t i = pos; i < end; ++i) m |= 1u << i;
  return m;
}

uint32_t ref_szext(uint32_t a, uint32_t b, bool clamp, bool s) {
  const uint32_t n = clamp ? std::min<uint32_t>(b, 32) : (b & 31);
  if (n == 0) return 0;
  if (n == 32) return a;
  const uint32_t low = a & ((1u << n) - 1);
  const bool neg = s && ((a >> (n - 1)) & 1);
  return neg ? (low | ~((1u << n) - 1)) : low;
}

/// Scalar video op: 0 add, 1 sub, 2 absdiff, 3 min, 4 max, 5 shl, 6 shr, 7 set.
struct ScalarForm {
  int op = 0;
  bool ds = false, as = false, bs = false;
  int asel = 6, bsel = 6, dsel = 6;  // dsel 6: none
  bool sat = false;
  int op2 = 0;  // 0 none, 1 add, 2 min, 3 max (merge when dsel != 6)
  bool clamp = false;
  int cmp = 0;
};

uint32_t ref_scalar(const ScalarForm& f, uint32_t a, uint32_t b, uint32_t c) {
  const int64_t ta = ref_part(a, f.asel, f.as);
  const int64_t tb = ref_part(b, f.bsel, f.op >= 5 && f.op <= 6 ? false : f.bs);
  int64_t t = 0;
  switch (f.op) {
    case 0: t = ta + tb; break;
    case 1: t = ta - tb; break;
    case 2: t = ta > tb ? ta - tb : tb - ta; break;
    case 3: t = std::min(ta, tb); break;
    case 4: t = std::max(ta, tb); break;
    case 5: case 6: {
      int64_t n = f.clamp ? std::min<int64_t>(tb, 32) : (tb & 31);
      if (f.op == 6) {
        t = ta >> n;
      } else {
        // The ISA's intermediate is a signed 34-bit value.
        const uint64_t u = uint64_t(ta) << n;
        const uint64_t low34 = u & ((uint64_t(1) << 34) - 1);
        t = (low34 >> 33) ? int64_t(low34) - (int64_t(1) << 34) : int64_t(low34);
      }
      break;
    }
    default: t = ref_cmp(f.cmp, ta, tb) ? 1 : 0; break;
  }
  if (f.sat) t = ref_clamp(t, f.dsel < 4 ? 8 : f.dsel < 6 ? 16 : 32, f.ds);
  if (f.dsel != 6) {
    const int shift = f.dsel < 4 ? 8 * f.dsel : 16 * (f.dsel - 4);
    const uint32_t m = (f.dsel < 4 ? 0xffu : 0xffffu) << shift;
    return ((uint32_t(t) << shift) & m) | (c & ~m);
  }
  const int64_t tc = f.ds ? int64_t(int32_t(c)) : int64_t(c);
  switch (f.op2) {
    case 1: return uint32_t(t + tc);
    case 2: return uint32_t(std::min(t, tc));
    case 3: return uint32_t(std::max(t, tc));
    default: return uint32_t(t);
  }
}

struct MadForm {
  bool ds = false, as = false, bs = false;
  int asel = 6, bsel = 6;
  bool sat = false, po = false, nega = false, negb = false, negc = false;
  int scale = 0;
};

uint32_t ref_vmad(const MadForm& f, uint32_t a, uint32_t b, uint32_t c) {
  // (±a*b) ± c (+1 for .po) in exact arithmetic; the product fits 66 bits.
  // c is sign-extended when the result is signed (a signed source or any negation).
  const bool signed_final = f.as || f.bs || (f.nega != f.negb) || f.negc;
  __int128 p = __int128(ref_part(a, f.asel, f.as)) * ref_part(b, f.bsel, f.bs);
  __int128 cc = signed_final ? __int128(int32_t(c)) : __int128(c);
  if (f.nega != f.negb) p = -p;
  if (f.negc) cc = -cc;
  __int128 r = p + cc + (f.po ? 1 : 0);
  r >>= f.scale;  // arithmetic: floor division by 2^scale
  if (f.sat) {
    const __int128 lo = signed_final ? INT32_MIN : 0, hi = signed_final ? INT32_MAX : UINT32_MAX;
    r = std::min(std::max(r, lo), hi);
  }
  return uint32_t(uint64_t(r));
}

/// SIMD: op 0 add, 1 sub, 2 avrg, 3 absdiff, 4 min, 5 max, 6 set.
struct SimdForm {
  int op = 0, lanes = 4;
  bool ds = false, as = false, bs = false;
  std::array<int, 4> asel{}, bsel{};  // element i's source part
  int mask = 0xf;
  bool sat = false, add = false;
  int cmp = 0;
};

uint32_t ref_simd(const SimdForm& f, uint32_t a, uint32_t b, uint32_t c) {
  const int w = 32 / f.lanes;
  auto part = [&](int k, bool s) -> int64_t {
    const uint32_t src = k < f.lanes ? a : b;
    const uint32_t v = (src >> (w * (k % f.lanes))) & ((1u << w) - 1);
    if (!s) return v;
    return w == 8 ? int64_t(int8_t(uint8_t(v))) : int64_t(int16_t(uint16_t(v)));
  };
  uint32_t d = f.add ? c : 0;
  for (int i = 0; i < f.lanes; ++i) {
    const int64_t x = part(f.asel[size_t(i)], f.as), y = part(f.bsel[size_t(i)], f.bs);
    int64_t t = 0;
    switch (f.op) {
      case 0: t = x + y; break;
      case 1: t = x - y; break;
      case 2: {
        const int64_t s = x + y;  // rounds half away from zero
        t = s >= 0 ? (s + 1) / 2 : -((-s + 1) / 2);
        break;
      }
      case 3: t = x > y ? x - y : y - x; break;
      case 4: t = std::min(x, y); break;
      case 5: t = std::max(x, y); break;
      default: t = ref_cmp(f.cmp, x, y) ? 1 : 0; break;
    }
    if (f.sat) t = ref_clamp(t, w, f.ds);
    const bool on = (f.mask >> i) & 1;
    if (f.add) {
      if (on) d += uint32_t(t);
    } else {
      const uint32_t m = ((1u << w) - 1) << (w * i);
      d |= on ? (uint32_t(t) << (w * i)) & m : (c & m);
    }
  }
  return d;
}

// ------------------------------------------------------------ running PTX

/// One kernel running `forms` instructions, each on the thread's a, b, c and
/// storing to out[form * kThreads + thread].
std::string forms_kernel(const std::vector<std::string>& instrs) {
  std::string s =
      ".version 7.8\n.target sm_75\n.address_size 64\n"
      ".visible .entry forms(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)\n{\n"
      "  .reg .b32 %r<8>;\n  .reg .b64 %rd<12>;\n"
      "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n"
      "  ld.param.u64 %rd4, [po];\n  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd5, %r1, 4;\n"
      "  add.s64 %rd6, %rd1, %rd5;\n  add.s64 %rd7, %rd2, %rd5;\n  add.s64 %rd8, %rd3, %rd5;\n"
      "  add.s64 %rd9, %rd4, %rd5;\n  ld.global.u32 %r2, [%rd6];\n  ld.global.u32 %r3, [%rd7];\n"
      "  ld.global.u32 %r4, [%rd8];\n";
  for (size_t i = 0; i < instrs.size(); ++i) {
    s += "  " + instrs[i] + "\n";
    s += "  st.global.u32 [%rd9+" + std::to_string(i * kThreads * 4) + "], %r5;\n";
  }
  s += "  ret;\n}\n";
  return s;
}

struct FormRun {
  std::vector<uint32_t> a, b, c, out;
};

FormRun run_forms(const std::vector<std::string>& instrs, uint32_t seed) {
  GpuDevice dev;
  auto m = dev.load_module(forms_kernel(instrs), "forms.ptx");
  FormRun r{operand_values(seed), operand_values(seed + 1), operand_values(seed + 2), {}};
  const uint64_t da = dev.upload(r.a), db = dev.upload(r.b), dc = dev.upload(r.c);
  const uint64_t dout = dev.allocate(instrs.size() * kThreads * 4);
  dev.launch(m, "forms", {1, 1, 1}, {kThreads, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dc).ptr(dout));
  r.out = dev.download<uint32_t>(dout, instrs.size() * kThreads);
  return r;
}

template <typename Form, typename Ref>
void check_forms(const std::vector<Form>& forms, const std::vector<std::string>& instrs, Ref ref, uint32_t seed) {
  const FormRun r = run_forms(instrs, seed);
  size_t failures = 0;
  for (size_t f = 0; f < forms.size() && failures < 20; ++f)
    for (uint32_t t = 0; t < kThreads; ++t) {
      const uint32_t want = ref(forms[f], r.a[t], r.b[t], r.c[t]);
      if (r.out[f * kThreads + t] != want) {
        ADD_FAILURE() << instrs[f] << " a=" << std::hex << r.a[t] << " b=" << r.b[t] << " c=" << r.c[t]
                      << ": got " << r.out[f * kThreads + t] << ", want " << want;
        if (++failures >= 20) break;
      }
    }
}

const char* ty(bool s) { return s ? ".s32" : ".u32"; }

TEST(VideoScalar, EverySelectorSaturationAndSecondaryOp) {
  static const char* const ops[] = {"vadd", "vsub", "vabsdiff", "vmin", "vmax"};
  static const char* const op2s[] = {"", ".add", ".min", ".max"};
  for (int op = 0; op < 5; ++op) {
    std::vector<ScalarForm> forms;
    std::vector<std::string> instrs;
    int k = 0;
    for (int as = 0; as < 7; ++as)
      for (int bs = 0; bs < 7; ++bs)
        for (int sat = 0; sat < 2; ++sat)
          for (int sec = 0; sec < 10; ++sec, ++k) {  // 0-3: none/.add/.min/.max; 4-9: merge into .b0-.h1
            ScalarForm f;
            f.op = op;
            f.ds = k & 1, f.as = (k >> 1) & 1, f.bs = (k >> 2) & 1;
            f.asel = as, f.bsel = bs, f.sat = sat;
            std::string dst = "%r5";
            if (sec < 4) {
              f.op2 = sec;
            } else {
              f.dsel = sec - 4;
              dst += kSelNames[f.dsel];
            }
            std::string s = std::string(ops[op]) + ty(f.ds) + ty(f.as) + ty(f.bs) + (sat ? ".sat" : "") +
                            (sec < 4 ? op2s[sec] : "") + " " + dst + ", %r2" + kSelNames[as] + ", %r3" +
                            kSelNames[bs] + (sec == 0 ? ";" : ", %r4;");
            forms.push_back(f);
            instrs.push_back(s);
          }
    check_forms(forms, instrs, ref_scalar, 100 + op);
  }
}

TEST(VideoScalar, ShiftsEveryModeSelectorAndSecondaryOp) {
  static const char* const op2s[] = {"", ".add", ".min", ".max"};
  for (int op = 5; op <= 6; ++op) {
    std::vector<ScalarForm> forms;
    std::vector<std::string> instrs;
    int k = 0;
    for (int as = 0; as < 7; ++as)
      for (int bs = 0; bs < 7; ++bs)
        for (int mode = 0; mode < 2; ++mode)
          for (int sat = 0; sat < 2; ++sat)
            for (int sec = 0; sec < 10; ++sec, ++k) {
              ScalarForm f;
              f.op = op;
              f.ds = k & 1, f.as = (k >> 1) & 1;
              f.asel = as, f.bsel = bs, f.sat = sat, f.clamp = mode;
              std::string dst = "%r5";
              if (sec < 4) {
                f.op2 = sec;
              } else {
                f.dsel = sec - 4;
                dst += kSelNames[f.dsel];
              }
              std::string s = std::string(op == 5 ? "vshl" : "vshr") + ty(f.ds) + ty(f.as) + ".u32" +
                              (sat ? ".sat" : "") + (mode ? ".clamp" : ".wrap") + (sec < 4 ? op2s[sec] : "") + " " +
                              dst + ", %r2" + kSelNames[as] + ", %r3" + kSelNames[bs] + (sec == 0 ? ";" : ", %r4;");
              forms.push_back(f);
              instrs.push_back(s);
            }
    check_forms(forms, instrs, ref_scalar, 200 + op);
  }
}

TEST(VideoScalar, VsetEveryComparisonSelectorAndSecondaryOp) {
  static const char* const op2s[] = {"", ".add", ".min", ".max"};
  std::vector<ScalarForm> forms;
  std::vector<std::string> instrs;
  int k = 0;
  for (int cmp = 0; cmp < 6; ++cmp)
    for (int as = 0; as < 7; ++as)
      for (int bs = 0; bs < 7; ++bs)
        for (int sec = 0; sec < 10; ++sec, ++k) {
          ScalarForm f;
          f.op = 7;
          f.cmp = cmp;
          f.as = k & 1, f.bs = (k >> 1) & 1;
          f.asel = as, f.bsel = bs;
          std::string dst = "%r5";
          if (sec < 4) {
            f.op2 = sec;
          } else {
            f.dsel = sec - 4;
            dst += kSelNames[f.dsel];
          }
          instrs.push_back(std::string("vset") + ty(f.as) + ty(f.bs) + "." + kCmpNames[cmp] +
                           (sec < 4 ? op2s[sec] : "") + " " + dst + ", %r2" + kSelNames[as] + ", %r3" +
                           kSelNames[bs] + (sec == 0 ? ";" : ", %r4;"));
          forms.push_back(f);
        }
  check_forms(forms, instrs, ref_scalar, 300);
}

TEST(VideoScalar, VmadEveryNegationScaleSaturationAndSelector) {
  std::vector<MadForm> forms;
  std::vector<std::string> instrs;
  int k = 0;
  for (int as = 0; as < 7; ++as)
    for (int bs = 0; bs < 7; ++bs)
      for (int sat = 0; sat < 2; ++sat)
        for (int scale = 0; scale < 3; ++scale)
          for (int neg = 0; neg < 6; ++neg, ++k) {  // none, -a, -b, -a -b, -c, .po
            MadForm f;
            f.ds = k & 1, f.as = (k >> 1) & 1, f.bs = (k >> 2) & 1;
            f.asel = as, f.bsel = bs, f.sat = sat;
            f.scale = scale == 0 ? 0 : scale == 1 ? 7 : 15;
            f.nega = neg == 1 || neg == 3;
            f.negb = neg == 2 || neg == 3;
            f.negc = neg == 4;
            f.po = neg == 5;
            instrs.push_back(std::string("vmad") + ty(f.ds) + ty(f.as) + ty(f.bs) + (f.po ? ".po" : "") +
                             (sat ? ".sat" : "") + (scale == 1 ? ".shr7" : scale == 2 ? ".shr15" : "") + " %r5, " +
                             (f.nega ? "-" : "") + "%r2" + kSelNames[as] + ", " + (f.negb ? "-" : "") + "%r3" +
                             kSelNames[bs] + ", " + (f.negc ? "-" : "") + "%r4;");
            forms.push_back(f);
          }
  check_forms(forms, instrs, ref_vmad, 400);
}

std::string simd_sel(const std::array<int, 4>& s, int lanes) {
  std::string r = lanes == 2 ? ".h" : ".b";
  for (int i = lanes - 1; i >= 0; --i) r += char('0' + s[size_t(i)]);
  return r;
}

std::string simd_mask_name(int mask, int lanes) {
  std::string r = lanes == 2 ? ".h" : ".b";
  for (int i = lanes - 1; i >= 0; --i)
    if ((mask >> i) & 1) r += char('0' + i);
  return r;
}

TEST(VideoSimd, EveryOpMaskModeAndSelectors) {
  static const char* const ops[] = {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"};
  std::mt19937 rng(77);
  for (int lanes : {2, 4}) {
    for (int op = 0; op < 7; ++op) {
      std::vector<SimdForm> forms;
      std::vector<std::string> instrs;
      int k = 0;
      for (int mask = 1; mask < (1 << lanes); ++mask)
        for (int mode = 0; mode < 3; ++mode)      // plain, .sat, .add
          for (int selc = 0; selc < 6; ++selc, ++k) {  // default selectors, then random ones
            if (op == 6 && mode == 1) continue;   // vset has no .sat
            SimdForm f;
            f.op = op, f.lanes = lanes, f.mask = mask;
            f.ds = k & 1, f.as = (k >> 1) & 1, f.bs = (k >> 2) & 1;
            f.sat = mode == 1, f.add = mode == 2;
            f.cmp = k % 6;
            for (int i = 0; i < lanes; ++i) {
              f.asel[size_t(i)] = selc == 0 ? i : int(rng() % unsigned(2 * lanes));
              f.bsel[size_t(i)] = selc == 0 ? i + lanes : int(rng() % unsigned(2 * lanes));
            }
            std::string name = std::string(ops[op]) + std::to_string(lanes);
            std::string s = name + (op == 6 ? "" : ty(f.ds)) + ty(f.as) + ty(f.bs) +
                            (op == 6 ? std::string(".") + kCmpNames[f.cmp] : "") + (f.sat ? ".sat" : "") +
                            (f.add ? ".add" : "") + " %r5" +
                            (mask == (1 << lanes) - 1 && selc % 2 == 0 ? "" : simd_mask_name(mask, lanes)) + ", %r2" +
                            (selc == 0 ? "" : simd_sel(f.asel, lanes)) + ", %r3" +
                            (selc == 0 ? "" : simd_sel(f.bsel, lanes)) + ", %r4;";
            forms.push_back(f);
            instrs.push_back(s);
          }
      check_forms(forms, instrs, ref_simd, 500 + 10 * lanes + op);
    }
  }
}

TEST(BitMaskAndExtend, BmskAndSzextEveryModeOnAllPositionsAndWidths) {
  std::vector<int> forms;
  std::vector<std::string> instrs = {"bmsk.clamp.b32 %r5, %r2, %r3;", "bmsk.wrap.b32 %r5, %r2, %r3;",
                                     "szext.clamp.u32 %r5, %r2, %r3;", "szext.wrap.u32 %r5, %r2, %r3;",
                                     "szext.clamp.s32 %r5, %r2, %r3;", "szext.wrap.s32 %r5, %r2, %r3;",
                                     "bmsk.wrap.b32 %r5, 1, 2;"};
  for (int i = 0; i < 7; ++i) forms.push_back(i);
  // Position and width over 0..63 and large values (a and b are random words
  // for most threads; fold some into the interesting range).
  check_forms(forms, instrs,
              [](int f, uint32_t a, uint32_t b, uint32_t) -> uint32_t {
                switch (f) {
                  case 0: return ref_bmsk(a, b, true);
                  case 1: return ref_bmsk(a, b, false);
                  case 2: return ref_szext(a, b, true, false);
                  case 3: return ref_szext(a, b, false, false);
                  case 4: return ref_szext(a, b, true, true);
                  case 5: return ref_szext(a, b, false, true);
                  default: return 0x6u;  // the ISA's example: bits 1 and 2
                }
              },
              600);
  std::vector<std::string> small;
  for (uint32_t a = 0; a < 40; a += 3)
    for (uint32_t b = 0; b < 40; b += 3) {
      small.push_back("bmsk.clamp.b32 %r5, " + std::to_string(a) + ", " + std::to_string(b) + ";");
      small.push_back("bmsk.wrap.b32 %r5, " + std::to_string(a) + ", " + std::to_string(b) + ";");
      small.push_back("szext.clamp.s32 %r5, %r2, " + std::to_string(b) + ";");
      small.push_back("szext.wrap.s32 %r5, %r2, " + std::to_string(b) + ";");
    }
  const FormRun r = run_forms(small, 601);
  size_t i = 0;
  for (uint32_t a = 0; a < 40; a += 3)
    for (uint32_t b = 0; b < 40; b += 3, i += 4) {
      EXPECT_EQ(r.out[i * kThreads], ref_bmsk(a, b, true)) << small[i];
      EXPECT_EQ(r.out[(i + 1) * kThreads], ref_bmsk(a, b, false)) << small[i + 1];
      for (uint32_t t = 0; t < kThreads; ++t) {
        EXPECT_EQ(r.out[(i + 2) * kThreads + t], ref_szext(r.a[t], b, true, true)) << small[i + 2];
        EXPECT_EQ(r.out[(i + 3) * kThreads + t], ref_szext(r.a[t], b, false, true)) << small[i + 3];
      }
    }
}

// ------------------------------------------------------------ nvcc's PTX

struct ModeCase {
  exec::DivergenceMode divergence;
  platform::SimulationMode mode;
};

class VideoBits : public ::testing::TestWithParam<ModeCase> {
 protected:
  VideoBits() : dev(options()) { m = dev.load_module(read_breadth_ptx("video_bits.ptx"), "video_bits.ptx"); }
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.divergence = GetParam().divergence;
    o.mode = GetParam().mode;
    return o;
  }
  void run(const std::string& kernel, const std::function<uint32_t(uint32_t, uint32_t, uint32_t)>& ref) {
    const auto a = operand_values(11), b = operand_values(12), c = operand_values(13);
    const uint64_t da = dev.upload(a), db = dev.upload(b), dc = dev.upload(c), dout = dev.allocate(kThreads * 4);
    dev.launch(m, kernel, {2, 1, 1}, {kThreads / 2, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dc).ptr(dout));
    const auto out = dev.download<uint32_t>(dout, kThreads);
    for (uint32_t t = 0; t < kThreads; ++t)
      EXPECT_EQ(out[t], ref(a[t], b[t], c[t])) << kernel << " thread " << t << std::hex << " a=" << a[t]
                                               << " b=" << b[t] << " c=" << c[t];
  }
  GpuDevice dev;
  platform::ModuleHandle m;
};

uint32_t bytewise(uint32_t a, uint32_t b, const std::function<uint32_t(uint32_t, uint32_t)>& f) {
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= (f((a >> (8 * i)) & 0xff, (b >> (8 * i)) & 0xff) & 0xff) << (8 * i);
  return r;
}

TEST_P(VideoBits, SimdIntrinsics) {
  auto absdiff = [](uint32_t x, uint32_t y) { return x > y ? x - y : y - x; };
  auto sabsdiff = [](uint32_t x, uint32_t y) {
    const int sx = int8_t(uint8_t(x)), sy = int8_t(uint8_t(y));
    return uint32_t(sx > sy ? sx - sy : sy - sx);
  };
  run("simd_vabsdiffu4", [&](uint32_t a, uint32_t b, uint32_t) { return bytewise(a, b, absdiff); });
  run("simd_vabsdiffs4", [&](uint32_t a, uint32_t b, uint32_t) { return bytewise(a, b, sabsdiff); });
  run("simd_vsadu4", [&](uint32_t a, uint32_t b, uint32_t) {
    uint32_t s = 0;
    for (int i = 0; i < 4; ++i) s += absdiff((a >> (8 * i)) & 0xff, (b >> (8 * i)) & 0xff);
    return s;
  });
  run("simd_vsadu2", [&](uint32_t a, uint32_t b, uint32_t) {
    return absdiff(a & 0xffff, b & 0xffff) + absdiff(a >> 16, b >> 16);
  });
  run("simd_vsads4", [&](uint32_t a, uint32_t b, uint32_t) {
    uint32_t s = 0;
    for (int i = 0; i < 4; ++i) s += sabsdiff((a >> (8 * i)) & 0xff, (b >> (8 * i)) & 0xff);
    return s;
  });
}

TEST_P(VideoBits, InlineAsmForms) {
  run("bits_bmsk_clamp", [](uint32_t a, uint32_t b, uint32_t) { return ref_bmsk(a & 63, b & 63, true); });
  run("bits_bmsk_wrap", [](uint32_t a, uint32_t b, uint32_t) { return ref_bmsk(a, b, false); });
  run("bits_szext_clamp_s32", [](uint32_t a, uint32_t b, uint32_t) { return ref_szext(a, b & 63, true, true); });
  run("bits_szext_wrap_u32", [](uint32_t a, uint32_t b, uint32_t) { return ref_szext(a, b, false, false); });
  auto scalar = [](ScalarForm f) {
    return [f](uint32_t a, uint32_t b, uint32_t c) { return ref_scalar(f, a, b, c); };
  };
  ScalarForm f;
  f = {};  f.op = 0; f.ds = true; f.bs = true; f.asel = 0; f.bsel = 5; f.sat = true;
  run("scalar_vadd_sat_sel", scalar(f));
  f = {};  f.op = 2; f.asel = 1; f.bsel = 3; f.op2 = 1;
  run("scalar_vabsdiff_add", scalar(f));
  f = {};  f.op = 4; f.ds = f.as = f.bs = true; f.asel = 4; f.sat = true; f.dsel = 2;
  run("scalar_vmax_merge", scalar(f));
  f = {};  f.op = 5; f.bsel = 0; f.clamp = true; f.op2 = 2;
  run("scalar_vshl_clamp_min", scalar(f));
  f = {};  f.op = 6; f.ds = f.as = true;
  run("scalar_vshr_wrap", scalar(f));
  f = {};  f.op = 7; f.as = true; f.cmp = 2; f.asel = 3; f.bsel = 0; f.op2 = 3;
  run("scalar_vset_max", scalar(f));
  MadForm mf;
  mf.ds = mf.as = true; mf.nega = true; mf.asel = 5; mf.bsel = 4; mf.sat = true; mf.scale = 15;
  run("scalar_vmad_neg_shr15", [mf](uint32_t a, uint32_t b, uint32_t c) { return ref_vmad(mf, a, b, c); });
  mf = {};
  mf.po = true; mf.asel = 0; mf.bsel = 1;
  run("scalar_vmad_po", [mf](uint32_t a, uint32_t b, uint32_t c) { return ref_vmad(mf, a, b, c); });
  auto simd = [](SimdForm s) {
    return [s](uint32_t a, uint32_t b, uint32_t c) { return ref_simd(s, a, b, c); };
  };
  SimdForm s;
  s = {};  s.op = 0; s.ds = s.as = s.bs = true; s.asel = {0, 1, 2, 3}; s.bsel = {4, 5, 6, 7}; s.sat = true;
  run("simd_vadd4_sat", simd(s));
  s = {};  s.op = 2; s.lanes = 2; s.ds = s.as = s.bs = true; s.asel = {1, 0}; s.bsel = {3, 2}; s.mask = 2;
  run("simd_vavrg2_sel", simd(s));
  s = {};  s.op = 4; s.asel = {1, 3, 5, 7}; s.bsel = {6, 4, 2, 0}; s.mask = 0x5;
  run("simd_vmin4_mask", simd(s));
  s = {};  s.op = 6; s.cmp = 5; s.asel = {0, 1, 2, 3}; s.bsel = {4, 5, 6, 7}; s.add = true;
  run("simd_vset4_add", simd(s));
  s = {};  s.op = 1; s.lanes = 2; s.as = s.bs = true; s.asel = {0, 1}; s.bsel = {2, 3}; s.mask = 3; s.sat = true;
  run("simd_vsub2_sat", simd(s));
}

INSTANTIATE_TEST_SUITE_P(
    Modes, VideoBits,
    ::testing::Values(ModeCase{exec::DivergenceMode::Its, platform::SimulationMode::Functional},
                      ModeCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional},
                      ModeCase{exec::DivergenceMode::Its, platform::SimulationMode::Timing}),
    [](const ::testing::TestParamInfo<ModeCase>& param_info) {
      return std::string(param_info.param.divergence == exec::DivergenceMode::Its ? "Its" : "Ipdom") +
             (param_info.param.mode == platform::SimulationMode::Timing ? "Timing" : "Functional");
    });

// ------------------------------------------------------------ inline assembly

class InlineAsm : public ::testing::TestWithParam<ModeCase> {
 protected:
  InlineAsm() : dev(options()) { m = dev.load_module(read_breadth_ptx("inline_asm.ptx"), "inline_asm.ptx"); }
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.divergence = GetParam().divergence;
    o.mode = GetParam().mode;
    return o;
  }
  GpuDevice dev;
  platform::ModuleHandle m;
};

TEST_P(InlineAsm, CubStyleWarpScanWithShflPredicate) {
  const auto in = operand_values(21);
  const uint64_t din = dev.upload(in), dout = dev.allocate(kThreads * 4);
  dev.launch(m, "warp_inclusive_scan", {1, 1, 1}, {kThreads, 1, 1}, 0, KernelArgs().ptr(din).ptr(dout));
  const auto out = dev.download<uint32_t>(dout, kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) {
    uint32_t sum = 0;
    for (uint32_t k = t & ~31u; k <= t; ++k) sum += in[k];
    EXPECT_EQ(out[t], sum) << "thread " << t;
  }
}

TEST_P(InlineAsm, SegmentedShflDownInRangePredicate) {
  const auto in = operand_values(22);
  const uint64_t din = dev.upload(in), dout = dev.allocate(kThreads * 4), dok = dev.allocate(kThreads * 4);
  for (uint32_t delta : {1u, 3u, 7u, 8u}) {
    dev.launch(m, "segmented_shfl_down", {1, 1, 1}, {kThreads, 1, 1}, 0,
               KernelArgs().ptr(din).add<uint32_t>(delta).ptr(dout).ptr(dok));
    const auto out = dev.download<uint32_t>(dout, kThreads), ok = dev.download<uint32_t>(dok, kThreads);
    for (uint32_t t = 0; t < kThreads; ++t) {
      // Segments of 8 lanes: the source lane must stay inside the thread's segment.
      const uint32_t lane = t % 32, src = lane + delta, seg_end = (lane | 7u);
      const bool in_range = src <= seg_end;
      EXPECT_EQ(ok[t], in_range ? 1u : 0u) << "thread " << t << " delta " << delta;
      EXPECT_EQ(out[t], in_range ? in[t - lane + src] : in[t]) << "thread " << t << " delta " << delta;
    }
  }
}

TEST_P(InlineAsm, SetpPipeAndShadowedScopes) {
  std::vector<int32_t> a(kThreads), b(kThreads);
  const auto ra = operand_values(23), rb = operand_values(24);
  for (uint32_t t = 0; t < kThreads; ++t) a[t] = int32_t(ra[t] % 2001) - 1000, b[t] = int32_t(rb[t] % 2001) - 1000;
  const uint64_t da = dev.upload(a), db = dev.upload(b), dout = dev.allocate(kThreads * 4);
  dev.launch(m, "pipe_and_shadowing", {1, 1, 1}, {kThreads, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dout));
  const auto out = dev.download<int32_t>(dout, kThreads);
  for (uint32_t t = 0; t < kThreads; ++t)
    EXPECT_EQ(out[t], (a[t] < b[t] ? 1000 + a[t] : 1000 - b[t]) + 100) << "thread " << t;
}

INSTANTIATE_TEST_SUITE_P(
    Modes, InlineAsm,
    ::testing::Values(ModeCase{exec::DivergenceMode::Its, platform::SimulationMode::Functional},
                      ModeCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional},
                      ModeCase{exec::DivergenceMode::Its, platform::SimulationMode::Timing}),
    [](const ::testing::TestParamInfo<ModeCase>& param_info) {
      return std::string(param_info.param.divergence == exec::DivergenceMode::Its ? "Its" : "Ipdom") +
             (param_info.param.mode == platform::SimulationMode::Timing ? "Timing" : "Functional");
    });

}  // namespace
}  // namespace tlmgpu
