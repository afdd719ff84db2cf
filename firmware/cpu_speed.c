/* A CPU-bound program for measuring the hart's speed (docs/PERFORMANCE.md):
 * CRC-32 over a 64 KiB buffer, 40 times, printed so the work is not removed. */
#include <stdint.h>
#include <stdio.h>

#define BYTES (64u * 1024u)
#define ROUNDS 40u

static uint8_t buffer[BYTES];

int main(void) {
  for (uint32_t i = 0; i < BYTES; ++i) buffer[i] = (uint8_t)(i * 131u + 7u);
  uint32_t crc = 0xFFFFFFFFu;
  for (uint32_t round = 0; round < ROUNDS; ++round) {
    for (uint32_t i = 0; i < BYTES; ++i) {
      crc ^= buffer[i];
      for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
  }
  printf("cpu_speed: crc 0x%08lx\n", (unsigned long)crc);
  return 0;
}
