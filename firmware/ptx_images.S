/* The workloads' committed PTX (and the firmware's own), embedded byte for
 * byte. Each image is in its own section so that --gc-sections keeps only
 * those a program uses. Paths are relative to the source root (the build
 * passes -Wa,-I<root>). */
  .macro ptx_image name
  .section .rodata.ptx_\name, "a"
  .globl ptx_\name\()_start
  .globl ptx_\name\()_end
ptx_\name\()_start:
  .incbin "workloads/\name/\name\().ptx"
ptx_\name\()_end:
  .byte 0
  .endm

  ptx_image vector_add
  ptx_image sgemm
  ptx_image histogram
  ptx_image transactions

  /* A kernel of the firmware's own (firmware/hung_gpu.c). */
  .section .rodata.ptx_spin_until_flag, "a"
  .globl ptx_spin_until_flag_start
  .globl ptx_spin_until_flag_end
ptx_spin_until_flag_start:
  .incbin "firmware/spin_until_flag.ptx"
ptx_spin_until_flag_end:
  .byte 0
