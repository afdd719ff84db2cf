// A small real program for the launch-file tests and docs/LAUNCH_FILE.md:
// particles stored as an array of structs, advanced by a step whose
// parameters are a struct passed by value, and a 1-D heat equation advanced
// by a ping-pong (Jacobi) stencil.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 particles.cu -o particles.ptx

struct Vec3 {
  float x, y, z;
};

// 7 floats and one byte: 29 bytes, padded to 32 (alignment 4).
struct Particle {
  Vec3 pos;
  Vec3 vel;
  float mass;
  unsigned char alive;
};

// double first: alignment 8, 8 + 12 + 4 = 24 bytes
// (PTX: .param .align 8 .b8 advance_param_1[24]).
struct StepParams {
  double dt;
  Vec3 gravity;
  int n;
};

// Explicit Euler step of every live particle: v += g * dt; x += v * dt.
extern "C" __global__ void advance(Particle* p, StepParams s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n || !p[i].alive) return;
  float dt = float(s.dt);
  Particle q = p[i];
  q.vel.x += s.gravity.x * dt;
  q.vel.y += s.gravity.y * dt;
  q.vel.z += s.gravity.z * dt;
  q.pos.x += q.vel.x * dt;
  q.pos.y += q.vel.y * dt;
  q.pos.z += q.vel.z * dt;
  // Particles that fall through the floor die.
  if (q.pos.y < 0.0f) q.alive = 0;
  p[i] = q;
}

// energy[i] = 1/2 m |v|^2 (0 for dead particles).
extern "C" __global__ void kinetic_energy(const Particle* p, int n, float* energy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Particle& q = p[i];
  float v2 = q.vel.x * q.vel.x + q.vel.y * q.vel.y + q.vel.z * q.vel.z;
  energy[i] = q.alive ? 0.5f * q.mass * v2 : 0.0f;
}

// Stream compaction of the live particles' indices: the order depends on
// which thread wins each atomicAdd, so only the multiset is defined.
extern "C" __global__ void compact_alive(const Particle* p, int n, int* ids, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && p[i].alive) ids[atomicAdd(count, 1)] = i;
}

// One Jacobi step of the 1-D heat equation; the end points are held fixed.
extern "C" __global__ void heat_step(const float* in, float* out, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i == 0 || i == n - 1) {
    out[i] = in[i];
  } else {
    out[i] = in[i] + alpha * (in[i - 1] - 2.0f * in[i] + in[i + 1]);
  }
}
