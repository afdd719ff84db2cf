// nearest_neighbor: the distance of every record (latitude, longitude) to a
// target point, one thread per record, as Rodinia's nn ("nearestNeighbor",
// seed 004 Table 2); the host then picks the k nearest records. The grid
// may be two-dimensional (Rodinia's layout for more than 65,535 CTAs).
// Our own code.

struct LatLong {
  float lat, lng;
};

extern "C" __global__ void euclid(const LatLong* __restrict__ locations, float* __restrict__ distances,
                                  int num_records, float lat, float lng)
{
  const int id = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  if (id < num_records) {
    const LatLong r = locations[id];
    const float dlat = lat - r.lat, dlng = lng - r.lng;
    // One rounding for dlat^2, as the host computes it.
    distances[id] = sqrtf(__fmaf_rn(dlat, dlat, __fmul_rn(dlng, dlng)));
  }
}
