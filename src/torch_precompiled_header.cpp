// The source of the two targets that build the precompiled <torch/torch.h> the LibTorch-using targets share
// (noiselearn_use_torch_header in CMakeLists.txt). A precompiled header belongs to a target, and a target needs a
// source: this one, which the header is forced into. Nothing links it.
