// placeholder until the registry lands
namespace tlmgpu::schedulers {}
