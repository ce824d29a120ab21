// A reader of torch.save archives (what torch.save writes since PyTorch 1.6: a zip of `<top>/data.pkl`,
// `<top>/data/<key>` storage records, `<top>/byteorder`, `<top>/version`, ...), for the weights,
// constants and sample inputs a `.pt2` (torch.export.save) holds.
//
// libtorch 1.13's own unpickler (torch::jit::pickle_load) cannot read them: it knows neither
// torch._utils._rebuild_parameter nor SETITEM, and fails on a state_dict's OrderedDict with _metadata.
// This one implements the pickle opcodes torch.save (protocol 2) writes and only the globals that make
// tensors and containers; everything else is refused with one line. It allocates only in proportion
// to the bytes it is given and never reads outside them, whatever they hold (fuzz/fuzz_torch_save.cpp).
#pragma once

#include <ATen/core/ivalue.h>

#include <cstddef>
#include <memory>
#include <string>

namespace t2o::core::program {

// Reads a torch.save archive held in memory (a zip written by torch.save, PyTorch 1.6 to 2.14).
//
// Returns the unpickled object as a c10::IValue:
//   dict, collections.OrderedDict -> c10::impl::GenericDict (keys str or int, insertion order kept; key
//                                    type str/int when all keys are, values typed when all agree, else Any)
//   tuple -> Tuple, list -> GenericList (element type as for dict values)
//   torch.Tensor, torch.nn.Parameter -> at::Tensor on the CPU (requires_grad dropped; views of one storage
//                                    share one c10::Storage, with their offsets and strides)
//   None, bool, int (64-bit), float, str.
// Storages: a record whose bytes start 64-byte aligned in memory, in little-endian byte order, is aliased
// (the storage's deleter holds `owner`, which must keep `data` alive and must not be written through: the
// tensors share those bytes, so they must not be written either when `data` is read-only memory); the
// others are copied (big-endian records swapped). Records are read from stored (uncompressed) members.
//
// Anything else throws t2o::core::ExportError (torch2onnx/core/exporter.hpp) whose what() is ONE printable
// line "WHAT: PROBLEM": a file that is not such a zip (or truncated), a compressed or missing record, a
// record shorter than its storage or its tensor, an unknown GLOBAL (a custom class, a tensor subclass), a
// dtype libtorch 1.13 lacks (uint16/32/64, float8...), a malformed pickle, containers nested deeper than 1000.
// `what` names the archive in messages (e.g. "data/weights/model.pt of m.pt2").
c10::IValue read_torch_save(std::shared_ptr<const void> owner, const char* data, size_t size,
                            const std::string& what);

}  // namespace t2o::core::program
