// The -rdc=true path of the CUDA runtime library: several translation
// units' PTX joined into one module the front end reads.
#include <gtest/gtest.h>

#include <string>

#include "cudart/ptx_join.h"
#include "model/ptx/ptx_parser.h"

namespace {

const char* kCaller = R"(
.version 9.0
.target sm_75
.address_size 64

.extern .global .align 4 .u32 shared_total;
.extern .func  (.param .b32 func_retval0) square
(
	.param .b32 square_param_0
)
;

.visible .entry caller(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 7;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), square, (param0);
	ld.param.b32 %r2, [retval0];
	}
	ld.global.u32 %r3, [shared_total];
	add.s32 %r2, %r2, %r3;
	st.global.u32 [%rd1], %r2;
	ret;
}
)";

const char* kCallee = R"(
.version 9.0
.target sm_75
.address_size 64

// a comment with a ; and a { in it
.visible .global .align 4 .u32 shared_total = 5;

.visible .func  (.param .b32 func_retval0) square(
	.param .b32 square_param_0
)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [square_param_0];
	mul.lo.s32 %r2, %r1, %r1;
	st.param.b32 [func_retval0], %r2;
	ret;
}
)";

TEST(CudartPtxJoin, TranslationUnitsBecomeOneModule) {
  const std::string joined = tlmgpu::cudart::join_ptx_modules({kCaller, kCallee});
  // One header; the extern declarations of what the other unit defines are gone.
  EXPECT_EQ(joined.find(".version"), joined.rfind(".version"));
  EXPECT_EQ(joined.find(".extern"), std::string::npos);
  const tlmgpu::ptx::Module m = tlmgpu::ptx::parse_ptx(joined, "joined.ptx");
  EXPECT_TRUE(m.function_index.count("caller"));
  EXPECT_TRUE(m.function_index.count("square"));
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].name, "shared_total");
}

TEST(CudartPtxJoin, ExternsOfSymbolsNoUnitDefinesStay) {
  const std::string joined = tlmgpu::cudart::join_ptx_modules({kCaller});
  EXPECT_NE(joined.find(".extern .global .align 4 .u32 shared_total;"), std::string::npos);
  EXPECT_NE(joined.find(".extern .func"), std::string::npos);
}

}  // namespace
