// resnet as a CUDA program: the host steps of workloads/resnet/resnet.cpp
// (the network of resnet_model.h: parameters uploaded layer by layer, the
// launches in order, the last block's activations checked exactly and the
// logits within a tolerance).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/resnet/resnet.cu"
#include "workloads/resnet/resnet_model.h"

using resnet_model::Kind;

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  resnet_model::Shape shape;
  if (opt.size == program::Size::Small) shape = {8, 16, 1};
  else if (opt.size == program::Size::Default) shape = {32, 64, 1};
  else shape = {32, 64, 3};
  program::InputRng rng(opt.seed);
  const resnet_model::Network net = resnet_model::build(shape, rng);

  struct DeviceConv {
    float *weight, *scale, *shift;
  };
  std::vector<DeviceConv> convs;
  for (const resnet_model::Conv& c : net.convs)
    convs.push_back({program::upload(c.weight), program::upload(c.scale), program::upload(c.shift)});
  float* d_fc = program::upload(net.fc_weight);
  float* d_logits = program::upload(net.fc_bias);
  std::vector<float*> buf = {program::upload(net.image)};
  for (int i = 1; i <= 5; ++i) buf.push_back(program::device_alloc<float>(net.buffer_floats));

  for (const resnet_model::Op& op : net.ops) {
    const unsigned grid = unsigned(op.ctas), block = resnet_model::kBlock;
    const float* in = buf[size_t(op.in)];
    const int hw = op.h_in * op.h_in;
    switch (op.kind) {
      case Kind::Conv3x3BnRelu: {
        const DeviceConv& c = convs[size_t(op.layer)];
        conv3x3_bn_relu<<<grid, block>>>(in, c.weight, c.scale, c.shift, buf[size_t(op.out)], op.c_in, op.h_in,
                                         op.h_in, op.c_out, op.stride);
        break;
      }
      case Kind::Conv1x1BnRelu: {
        const DeviceConv& c = convs[size_t(op.layer)];
        conv1x1_bn_relu<<<grid, block>>>(in, c.weight, c.scale, c.shift, buf[size_t(op.out)], op.c_in, hw, op.c_out);
        break;
      }
      case Kind::Conv1x1Bn: {
        const DeviceConv& c = convs[size_t(op.layer)];
        conv1x1_bn<<<grid, block>>>(in, c.weight, c.scale, c.shift, buf[size_t(op.out)], op.c_in, hw, op.c_out);
        break;
      }
      case Kind::AddRelu:
        add_relu<<<grid, block>>>(in, buf[size_t(op.shortcut)], buf[size_t(op.out)], op.c_out, op.h_in, op.h_in,
                                  op.c_in, op.stride);
        break;
      case Kind::AvgpoolFc:
        avgpool_fc<<<grid, block>>>(in, d_fc, d_logits, op.c_in, hw, resnet_model::kClasses);
        break;
    }
    CUDA_CHECK_LAUNCH();
  }
  const size_t feature_count = size_t(net.final_channels) * size_t(net.final_hw);
  const std::vector<float> features = program::download(buf[size_t(net.final_buffer)], feature_count);
  const std::vector<float> logits = program::download(d_logits, size_t(resnet_model::kClasses));

  const std::vector<std::vector<float>> want = resnet_model::forward(net);
  const std::vector<float> want_features(want[size_t(net.final_buffer)].begin(),
                                         want[size_t(net.final_buffer)].begin() + long(feature_count));
  const program::Result f = program::compare_exact(features, want_features, "features");
  if (!f.verified) return program::report("resnet", f);
  const program::Result l =
      program::compare_close(logits, resnet_model::classify(net, want_features), 1e-4, "logits", 1e-5);
  if (!l.verified) return program::report("resnet", l);
  return program::report("resnet", {true, std::to_string(net.ops.size()) + " launches; " + f.detail + "; " + l.detail});
}
