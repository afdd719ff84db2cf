// latency_chase: load-to-use latency of each level of the memory hierarchy,
// measured as the hardware microbenchmarks do (Wong et al., ISPASS 2010; Mei
// and Chu, TPDS 2017): one thread follows a chain of dependent loads and
// reads the SM's cycle counter around it. Each load's address is the value
// the previous load returned, so no two loads overlap and the time per step
// is the latency of one load.

// Global memory: every node holds the address of the next. The host lays the
// chain out with a stride and a footprint that decide which level serves it
// (L1 hits, L2 hits, DRAM accesses). `warmup` steps run before the timed ones
// so that the caches hold what the timed steps revisit.
extern "C" __global__ void chase_global(const unsigned long long* start, unsigned warmup, unsigned steps,
                                        unsigned long long* out) {
  const unsigned long long* p = start;
#pragma unroll 1
  for (unsigned i = 0; i < warmup; ++i) p = reinterpret_cast<const unsigned long long*>(*p);
  const long long t0 = clock64();
#pragma unroll 1
  for (unsigned i = 0; i < steps; ++i) p = reinterpret_cast<const unsigned long long*>(*p);
  const long long t1 = clock64();
  out[0] = static_cast<unsigned long long>(t1 - t0);
  out[1] = reinterpret_cast<unsigned long long>(p);  // where the chain ended: checked by the host
}

// Shared memory: the same chase over nodes in shared memory, each holding
// the generic address of the next (built here: only the device knows where
// its shared memory appears in the generic address space). The loads are
// generic (the compiler cannot tell where a loaded pointer points), as in
// the global chase; the hardware serves them from shared memory.
extern "C" __global__ void chase_shared(unsigned nodes, unsigned steps, unsigned long long* out) {
  extern __shared__ unsigned long long shared_nodes[];
  for (unsigned i = 0; i < nodes; ++i)
    shared_nodes[i] = reinterpret_cast<unsigned long long>(&shared_nodes[(i + 1) % nodes]);
  const unsigned long long* p = &shared_nodes[0];
  const long long t0 = clock64();
#pragma unroll 1
  for (unsigned i = 0; i < steps; ++i) p = reinterpret_cast<const unsigned long long*>(*p);
  const long long t1 = clock64();
  out[0] = static_cast<unsigned long long>(t1 - t0);
  out[1] = static_cast<unsigned long long>(p - shared_nodes);  // the node the chain ended on
}
