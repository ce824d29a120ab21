// The tensors a program reads besides its inputs (parameters, buffers, lifted constants) and its
// sample inputs, from either container:
//   PyTorch 2.6/2.7: torch.save pickles serialized_state_dict.pt, serialized_constants.pt,
//                    serialized_example_inputs.pt;
//   PT2 archive:     raw records data/weights/weight_<i> (and data/constants/tensor_<i>) described by
//                    <model>_weights_config.json (dtype, sizes, strides, storage offset; several names
//                    may share one record), or one torch.save'd data/weights/<model>.pt (2.8);
//                    data/sample_inputs/<model>.pt.
// Raw records become tensors over the file's mapping (no copy); pickled ones per torch_pickle.
#pragma once

#include "program/pt2_archive.hpp"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <map>
#include <optional>
#include <string>

namespace t2o::core::program {

// Every parameter, buffer and tensor constant by its state-dict name.
std::map<std::string, at::Tensor> read_program_state(const Pt2Archive& archive, const std::string& model);

// The sample inputs torch.export saved: ((args...), {kwargs}), or nothing when the archive has none.
std::optional<c10::IValue> read_sample_inputs(const Pt2Archive& archive, const std::string& model);

}  // namespace t2o::core::program
