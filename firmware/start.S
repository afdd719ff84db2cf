/* Reset entry: global and stack pointers, trap vector, FPU on, .bss cleared,
 * then main(); its return value goes to exit() (runtime.c: the finisher). */
  .section .text.start, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, trap_entry
  csrw mtvec, t0
  li t0, 0x2000          /* mstatus.FS = initial: floating point on */
  csrs mstatus, t0
  csrwi fcsr, 0
  la t0, __bss_start
  la t1, __bss_end
1:
  bgeu t0, t1, 2f
  sd zero, 0(t0)
  addi t0, t0, 8
  j 1b
2:
  call main
  call exit
3:
  wfi
  j 3b

/* Machine trap vector (direct mode): saves the registers a C function may
 * clobber, calls trap_handler(mcause, mepc), returns with mret. The firmware
 * is integer-only in its handlers, so FP registers are not saved. */
  .text
  .balign 4
  .globl trap_entry
trap_entry:
  addi sp, sp, -128
  sd ra, 0(sp)
  sd t0, 8(sp)
  sd t1, 16(sp)
  sd t2, 24(sp)
  sd t3, 32(sp)
  sd t4, 40(sp)
  sd t5, 48(sp)
  sd t6, 56(sp)
  sd a0, 64(sp)
  sd a1, 72(sp)
  sd a2, 80(sp)
  sd a3, 88(sp)
  sd a4, 96(sp)
  sd a5, 104(sp)
  sd a6, 112(sp)
  sd a7, 120(sp)
  csrr a0, mcause
  csrr a1, mepc
  call trap_handler
  ld ra, 0(sp)
  ld t0, 8(sp)
  ld t1, 16(sp)
  ld t2, 24(sp)
  ld t3, 32(sp)
  ld t4, 40(sp)
  ld t5, 48(sp)
  ld t6, 56(sp)
  ld a0, 64(sp)
  ld a1, 72(sp)
  ld a2, 80(sp)
  ld a3, 88(sp)
  ld a4, 96(sp)
  ld a5, 104(sp)
  ld a6, 112(sp)
  ld a7, 120(sp)
  addi sp, sp, 128
  mret
