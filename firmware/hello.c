/* The smallest firmware: proves the toolchain, start-up code, UART and
 * finisher. Needs no GPU. */
#include <stdio.h>

int main(void) {
  printf("hello from the RISC-V hart\n");
  return 0;
}
