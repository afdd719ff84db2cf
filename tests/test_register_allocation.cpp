// The register estimate (model/ptx/register_allocation.h) against ptxas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/ptx/ptx_parser.h"
#include "model/ptx/register_allocation.h"
#include "workloads/ptxas_registers.h"

namespace {

using tlmgpu::ptx::Function;
using tlmgpu::ptx::Module;
using tlmgpu::ptx::parse_ptx;
using tlmgpu::ptx::parse_ptx_file;

const std::string kSourceDir = TLMGPU_SOURCE_DIR;

// Registers per thread that ptxas allocates, as facts. Obtained with CUDA 13.0:
//   nvcc -ptx -arch=sm_75 -O3 FILE.cu        (the committed .ptx)
//   ptxas -arch=sm_75 -v FILE.ptx -o /dev/null  ("Used N registers")
struct PtxasCount {
  const char* file;  ///< under tests/ptx/registers/
  const char* kernel;
  uint32_t registers;
};
const PtxasCount kFixtureCounts[] = {
    {"arithmetic.ptx", "precise_math", 20},
    {"arithmetic.ptx", "transcendental", 14},
    {"arithmetic.ptx", "int_hash", 10},
    {"arithmetic.ptx", "accumulators24", 33},
    {"arithmetic.ptx", "accumulators8", 31},
    {"arithmetic.ptx", "many_temporaries", 21},
    {"arithmetic.ptx", "poly_eval", 12},
    {"arithmetic.ptx", "saxpy", 10},
    {"control.ptx", "spin_lock", 8},
    {"control.ptx", "grid_stride_unrolled", 26},
    {"control.ptx", "empty_kernel", 4},
    {"control.ptx", "mixed_width", 14},
    {"control.ptx", "dp_sqrt_div", 25},
    {"control.ptx", "dp_accumulators", 34},
    {"control.ptx", "dp_polynomial", 10},
    {"control.ptx", "many_params", 15},
    {"control.ptx", "call_live_across", 63},
    {"control.ptx", "call_simple", 8},
    {"control.ptx", "while_collatz", 10},
    {"control.ptx", "nested_loops", 23},
    {"control.ptx", "switch_kernel", 16},
    {"control.ptx", "divergent_paths", 24},
    {"memory.ptx", "atomic_histogram", 8},
    {"memory.ptx", "stencil5", 16},
    {"memory.ptx", "float4_copy", 18},
    {"memory.ptx", "matmul_reg_block", 63},
    {"memory.ptx", "matmul_tile16", 60},
    {"memory.ptx", "transpose_tile", 24},
    {"memory.ptx", "many_pointers", 19},
    {"memory.ptx", "pointer_chase", 20},
    {"memory.ptx", "gather64", 16},
    {"reduce.ptx", "reduce_double", 12},
    {"reduce.ptx", "ballot_count", 8},
    {"reduce.ptx", "scan_warp", 11},
    {"reduce.ptx", "reduce_unrolled8", 16},
    {"reduce.ptx", "reduce_shuffle", 12},
    {"reduce.ptx", "reduce_shared", 10},
    {"loops.ptx", "dot_counted", 42},
    {"loops.ptx", "dot_rolled", 11},
    {"loops.ptx", "dot_grid_stride", 14},
    {"loops.ptx", "find_first", 8},
    {"loops.ptx", "long_body", 31},
    {"loops.ptx", "tile_rolled", 38},
};

// Every kernel of every workloads/*/*.ptx, obtained the same way
// (ptxas -arch=sm_75 -v workloads/NAME/NAME.ptx): the table the workloads
// themselves launch with.
const std::map<std::string, uint32_t>& kWorkloadCounts = tlmgpu::workloads::ptxas_registers();

/// The acceptance band: within 20 % or 4 registers of ptxas, whichever is larger.
uint32_t tolerance(uint32_t ptxas) { return std::max(4u, ptxas / 5); }

// Kernels the estimate misses by more than the band, with the largest miss
// accepted for each and why the model misses it. The list may only shrink:
// a kernel here that comes within the band fails the test until removed.
struct KnownMiss {
  const char* kernel;
  uint32_t max_miss;
  const char* why;
};
const KnownMiss kKnownMisses[] = {
    // What the SASS of ptxas -arch=sm_75 shows for each (register numbers
    // from the cubin): allocation choices, not values live at once.
    {"transpose_tile", 6,
     "ptxas issues the four predicated global loads together with their four 64-bit addresses, as the "
     "estimate does, but its registers reach R21 in the transposed-store half where ~13 values are live"},
    {"pointer_chase", 9,
     "a serial chain: ptxas unrolls it and rotates each step's 64-bit address through five register pairs "
     "instead of reusing one (17 registers even with the loop kept rolled); liveness needs ~6"},
    {"gather64", 5,
     "ptxas keeps the 64-bit offset i*8 for the final store and gives each 64-bit value its own pair up to R13 "
     "where ~6 registers' values are live at once"},
    // Seed 002 workloads (mri_q, quasirandom, resnet): no SASS disassembler
    // was at hand to see what ptxas does instead, so the causes are open.
    {"quasirandomGeneratorKernel", 25,
     "estimate 43, ptxas 18; the PTX is 31 short then-blocks, each an indexed ld.const and an xor: the estimate "
     "probably if-converts them and schedules the 31 loads ahead of the xor chain (not checked against SASS)"},
    {"avgpool_fc", 15,
     "estimate 36, ptxas 21: a shared-memory tree, then a (channel, class) loop of integer divisions, global "
     "loads and float atomics; cause not analysed"},
    {"ComputeQ_GPU", 10, "estimate 40, ptxas 30: a loop around sinf/cosf (two argument reductions with their "
                         "Payne-Hanek slow paths); cause not analysed"},
    {"quasirandom/inverseCNDKernel", 6, "estimate 21, ptxas 15: Moro's two branches (a division, two lg2.approx) in two "
                            "grid-stride loops; cause not analysed"},
};
const KnownMiss* known_miss(const std::string& kernel) {
  for (const KnownMiss& k : kKnownMisses)
    if (kernel == k.kernel) return &k;
  return nullptr;
}

const Function& kernel(const Module& m, const std::string& name) {
  auto it = m.function_index.find(name);
  if (it == m.function_index.end()) throw std::runtime_error("no kernel " + name + " in " + m.file);
  return m.functions[it->second];
}

void expect_close(const std::string& where, const std::string& name, uint32_t estimate, uint32_t ptxas) {
  std::printf("  %-28s ptxas %3u  estimate %3u\n", name.c_str(), ptxas, estimate);
  const uint32_t diff = estimate > ptxas ? estimate - ptxas : ptxas - estimate;
  if (const KnownMiss* miss = known_miss(name)) {
    EXPECT_GT(diff, tolerance(ptxas)) << where << ": kernel " << name
                                      << " is now within the band: remove it from kKnownMisses";
    EXPECT_LE(diff, miss->max_miss) << where << ": kernel " << name << ": estimate " << estimate << ", ptxas "
                                    << ptxas << " (" << miss->why << ")";
    return;
  }
  EXPECT_LE(diff, tolerance(ptxas)) << where << ": kernel " << name << ": estimate " << estimate << ", ptxas "
                                    << ptxas;
}

TEST(RegisterAllocation, FixtureKernelsMatchPtxas) {
  std::map<std::string, Module> modules;
  for (const PtxasCount& c : kFixtureCounts) {
    auto it = modules.find(c.file);
    if (it == modules.end())
      it = modules.emplace(c.file, parse_ptx_file(kSourceDir + "/tests/ptx/registers/" + c.file)).first;
    expect_close(c.file, c.kernel, kernel(it->second, c.kernel).regs_per_thread, c.registers);
  }
  EXPECT_GE(std::size(kFixtureCounts), 30u);
  // Every kernel of the fixtures has a recorded count.
  for (const auto& [file, m] : modules) {
    for (const Function& f : m.functions) {
      if (!f.is_entry) continue;
      const bool recorded = std::any_of(std::begin(kFixtureCounts), std::end(kFixtureCounts), [&](const PtxasCount& c) {
        return file == c.file && f.name == c.kernel;
      });
      EXPECT_TRUE(recorded) << file << ": kernel " << f.name << " has no ptxas count";
    }
  }
}

TEST(RegisterAllocation, WorkloadKernelsMatchPtxas) {
  size_t kernels = 0;
  for (const auto& dir : std::filesystem::directory_iterator(kSourceDir + "/workloads")) {
    if (!dir.is_directory()) continue;
    for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
      if (file.path().extension() != ".ptx") continue;
      const Module m = parse_ptx_file(file.path().string());
      for (const Function& f : m.functions) {
        if (!f.is_entry) continue;
        ++kernels;
        // A kernel name two workloads share is recorded as WORKLOAD/KERNEL.
        const std::string qualified = dir.path().filename().string() + "/" + f.name;
        auto it = kWorkloadCounts.find(qualified);
        if (it == kWorkloadCounts.end()) it = kWorkloadCounts.find(f.name);
        if (it == kWorkloadCounts.end()) {
          ADD_FAILURE() << file.path() << ": kernel " << f.name
                        << " has no ptxas register count (run ptxas -arch=sm_75 -v on it and add it to "
                           "workloads/ptxas_registers.cpp)";
          continue;
        }
        expect_close(file.path().string(), it->first, f.regs_per_thread, it->second);
      }
    }
  }
  EXPECT_EQ(kernels, kWorkloadCounts.size()) << "a recorded workload kernel no longer exists";
}

// Small hand-written kernels pin down the rules themselves.
std::string kernel_ptx(const std::string& regs, const std::string& body) {
  return ".version 7.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 p, .param .u32 n)\n{\n" +
         regs + "\n" + body + "\n}\n";
}

uint32_t peak(const std::string& src, const std::string& name = "k") {
  const Module m = parse_ptx(src, "t.ptx");
  const auto est = tlmgpu::ptx::estimate_function_registers(m);
  return est[m.function_index.at(name)].peak_live;
}

TEST(RegisterAllocation, SixtyFourBitValuesTakeTwoRegistersAndPredicatesNone) {
  // Two 64-bit values live together with one 32-bit one: 5 units. The
  // predicate adds nothing.
  const std::string src = kernel_ptx(
      ".reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;",
      "mov.u32 %r1, %tid.x;\n"
      "cvt.u64.u32 %rd1, %r1;\n"
      "shl.b64 %rd2, %rd1, 3;\n"
      "setp.eq.u32 %p1, %r1, 0;\n"
      "add.s64 %rd3, %rd2, %rd1;\n"
      "st.global.u32 [%rd3], %r1;\n"
      "ret;");
  EXPECT_EQ(peak(src), 5u);
}

TEST(RegisterAllocation, ParametersAndImmediatesTakeNoRegister) {
  const std::string src = kernel_ptx(
      ".reg .b32 %r<4>; .reg .b64 %rd<4>;",
      "ld.param.u64 %rd1, [p];\n"
      "cvta.to.global.u64 %rd2, %rd1;\n"
      "ld.param.u32 %r1, [n];\n"
      "mov.u32 %r2, 7;\n"
      "add.s32 %r3, %r1, %r2;\n"
      "st.global.u32 [%rd2], %r3;\n"
      "ret;");
  // %r3, and for the store's instant the address: a store takes no
  // constant-bank operand, so the parameter goes into a register pair.
  EXPECT_EQ(peak(src), 3u);
}

TEST(RegisterAllocation, ValuesLiveAroundALoopStayLive) {
  // %r1..%r4 are read after the loop: all live through it, beside the counter.
  const std::string src = kernel_ptx(
      ".reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<2>;",
      "mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mul.lo.u32 %r3, %r1, %r2;\n add.u32 %r4, %r1, %r2;\n"
      "mov.u32 %r5, %tid.y;\n"
      "L1:\n add.u32 %r5, %r5, 1;\n setp.lt.u32 %p1, %r5, 100;\n @%p1 bra L1;\n"
      "add.u32 %r6, %r1, %r2;\n add.u32 %r7, %r3, %r4;\n add.u32 %r8, %r6, %r7;\n add.u32 %r9, %r8, %r5;\n"
      "ld.param.u64 %rd1, [p];\n st.global.u32 [%rd1], %r9;\n ret;");
  EXPECT_EQ(peak(src), 5u);
}

TEST(RegisterAllocation, ACallAddsTheCalleesPeakToWhatIsLiveAcrossIt) {
  const std::string src =
      ".version 7.0\n.target sm_75\n.address_size 64\n"
      ".func (.param .b32 r) f(.param .b32 a)\n{\n .reg .b32 %r<8>;\n"
      " ld.param.b32 %r1, [a];\n add.u32 %r2, %r1, 1;\n add.u32 %r3, %r1, 2;\n add.u32 %r4, %r1, 3;\n"
      " add.u32 %r5, %r2, %r3;\n add.u32 %r6, %r5, %r4;\n add.u32 %r7, %r6, %r1;\n"
      " st.param.b32 [r], %r7;\n ret;\n}\n"
      ".visible .entry k(.param .u64 p)\n{\n .reg .b32 %r<6>; .reg .b64 %rd<2>;\n"
      " mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n"
      " { .param .b32 a0; st.param.b32 [a0], %r1; .param .b32 r0;\n"
      "   call.uni (r0), f, (a0);\n ld.param.b32 %r3, [r0]; }\n"
      " add.u32 %r4, %r3, %r2;\n add.u32 %r5, %r4, %r1;\n"
      " ld.param.u64 %rd1, [p];\n st.global.u32 [%rd1], %r5;\n ret;\n}\n";
  // f: %r1..%r4 live together (4). Across the call: %r1, %r2 (2).
  EXPECT_EQ(peak(src, "f"), 4u);
  EXPECT_EQ(peak(src, "k"), 6u);
}

TEST(RegisterAllocation, LoadsAreScheduledEarly) {
  // The four loads move up to the first one: their four results are live
  // together though the PTX consumes each right after loading it; the
  // parameter address is in a register pair for each load.
  const std::string src = kernel_ptx(
      ".reg .f32 %f<9>; .reg .b64 %rd<3>;",
      "ld.param.u64 %rd1, [p];\n"
      "cvta.to.global.u64 %rd2, %rd1;\n"
      "ld.global.f32 %f1, [%rd2];\n add.f32 %f2, %f1, 0f3F800000;\n"
      "ld.global.f32 %f3, [%rd2+4];\n add.f32 %f4, %f3, %f2;\n"
      "ld.global.f32 %f5, [%rd2+8];\n add.f32 %f6, %f5, %f4;\n"
      "ld.global.f32 %f7, [%rd2+12];\n add.f32 %f8, %f7, %f6;\n"
      "st.global.f32 [%rd2+16], %f8;\n ret;");
  EXPECT_EQ(peak(src), 6u);
}

}  // namespace

// A loop summing an array: `step` is the counter's increment, `pragma` goes
// after the loop's label.
std::string sum_loop(const std::string& step, const std::string& pragma = "") {
  return kernel_ptx(".reg .pred %p<2>; .reg .b32 %r<4>; .reg .f32 %f<3>; .reg .b64 %rd<3>;",
                    "ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n ld.param.u32 %r1, [n];\n"
                    "mov.u32 %r3, %tid.x;\n mov.u32 %r2, 0;\n mov.f32 %f1, 0f00000000;\n"
                    "L1:\n" + pragma +
                    " ld.global.f32 %f2, [%rd2];\n add.f32 %f1, %f1, %f2;\n add.s64 %rd2, %rd2, 4;\n"
                    " add.s32 %r2, %r2, " + step + ";\n setp.lt.s32 %p1, %r2, %r1;\n @%p1 bra L1;\n"
                    "st.global.f32 [%rd2], %f1;\n ret;");
}

TEST(RegisterAllocation, SmallCountedLoopsAreUnrolledWithTheirLoadsFirst) {
  // One iteration: the address pair, the sum, the counter, the loaded value.
  // Unrolled four times with the four loads first: four loaded values, and
  // the addresses the copies' pointer increments make.
  const uint32_t rolled = peak(sum_loop("1", ".pragma \"nounroll\";\n"));
  EXPECT_EQ(rolled, 5u);
  EXPECT_GE(peak(sum_loop("1")), rolled + 3);
  // A step that is not a constant (here a grid-stride-like register): the
  // trip count is unknown before the loop, so it stays rolled.
  EXPECT_EQ(peak(sum_loop("%r3")), rolled + 1);  // %r3 is live through the loop
}
