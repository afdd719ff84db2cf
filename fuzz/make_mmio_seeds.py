#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz_mmio into fuzz/corpus/mmio/.

Each seed is a driver's session in fuzz_mmio's input format (fuzz/fuzz_inputs.cpp):
register accesses, stores into SoC memory (PTX image, kernel name, launch
descriptor, parameters) and runs of the simulation. Without them the fuzzer
would take long to find a launch that gets past the descriptor checks.
Python 3 standard library only; rerun after changing the input format.
"""
import os
import struct

# Register offsets (platform/soc/gpu_registers.h).
REG = dict(ID=0x000, VERSION=0x004, CAP_SMS=0x008, HEAP_BASE_LO=0x030, HEAP_SIZE=0x038,
           QUEUE_BASE_LO=0x040, QUEUE_BASE_HI=0x044, QUEUE_SIZE=0x048, QUEUE_HEAD=0x04C,
           QUEUE_TAIL=0x050, DOORBELL=0x054, STATUS=0x060, ERROR_CODE=0x064, ERROR_INFO=0x070,
           IRQ_ENABLE=0x090, IRQ_STATUS=0x094, RESET=0x098, CYCLES_LO=0x0A0, LAUNCHES_DONE=0x0B0,
           ERROR_MESSAGE=0x400)

QUEUE, NAME, PARAMS, HEAP, PTX, DATA = 0x1000, 0x2000, 0x4000, 0x8000, 0x10000, 0x20000

PTX_STORE_TID = b""".version 7.0
.target sm_52
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .u64 %rd<3>;
  .reg .u32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  st.global.u32 [%rd2], %r1;
  ret;
}
"""
PTX_LOOP = PTX_STORE_TID.replace(b"  ret;\n", b"L: bra L;\n")
PTX_BROKEN = PTX_STORE_TID.replace(b"mov.u32", b"mov.u99")


def write(off, value):
    return struct.pack("<BHI", 0, off, value & 0xFFFFFFFF)


def read(off):
    return struct.pack("<BH", 1, off)


def raw(flags, off, data=b""):
    return struct.pack("<BBH", 2, flags, off) + data


def store_word(addr, value):
    return struct.pack("<BHI", 3, addr // 4, value)


def store_aligned(addr, data):
    """Stores `data` at `addr` in chunks of 252 bytes (a multiple of 4)."""
    out = b""
    for i in range(0, len(data), 252):
        chunk = data[i:i + 252]
        out += struct.pack("<BHB", 4, (addr + i) // 4, len(chunk)) + chunk
    return out


def run(hundreds_of_ns):
    return struct.pack("<BH", 5, hundreds_of_ns)


def descriptor(ptx_bytes, grid=1, block=32, params_bytes=8, flags=1):
    return struct.pack("<QIIQ3I3IQII", PTX, ptx_bytes, 0, NAME, grid, 1, 1, block, 1, 1, PARAMS,
                       params_bytes, flags)


def launch(ptx, **kw):
    s = store_aligned(PTX, ptx) + store_aligned(NAME, b"k\0") + store_aligned(PARAMS, struct.pack("<Q", DATA))
    s += store_aligned(QUEUE, descriptor(len(ptx), **kw))
    s += write(REG["QUEUE_BASE_LO"], QUEUE) + write(REG["QUEUE_BASE_HI"], 0) + write(REG["QUEUE_SIZE"], 4)
    s += write(REG["IRQ_ENABLE"], 7) + write(REG["QUEUE_TAIL"], 1) + write(REG["DOORBELL"], 1)
    s += run(100) + read(REG["STATUS"]) + read(REG["ERROR_CODE"]) + read(REG["QUEUE_HEAD"])
    s += read(REG["IRQ_STATUS"]) + write(REG["IRQ_STATUS"], 7) + read(REG["ERROR_MESSAGE"])
    return s


SEEDS = {
    "registers.bin": b"".join(read(o) for o in sorted(REG.values()))
    + write(REG["HEAP_BASE_LO"], HEAP) + write(REG["HEAP_SIZE"], 0x8000) + write(REG["ID"], 1)
    + write(0x1000, 0) + read(0x0FFC) + raw(0x07, 0x030, b"12345678") + raw(0x10, 0x004)
    + raw(0x20, 0x008) + raw(0x40, 0x000) + raw(0x41, 0x030, b"\1\2\3\4") + write(REG["RESET"], 1),
    "launch.bin": launch(PTX_STORE_TID),
    "launch_loop.bin": launch(PTX_LOOP),
    "launch_bad_ptx.bin": launch(PTX_BROKEN) + write(REG["RESET"], 1) + read(REG["STATUS"]),
    "launch_bad_shape.bin": launch(PTX_STORE_TID, grid=0, block=4096, params_bytes=4, flags=0x80),
    "bad_queue.bin": write(REG["QUEUE_TAIL"], 9) + write(REG["DOORBELL"], 1) + run(10)
    + read(REG["STATUS"]) + read(REG["ERROR_CODE"]) + write(REG["RESET"], 1),
}

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "mmio")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
