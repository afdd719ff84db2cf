namespace tlmgpu {}
