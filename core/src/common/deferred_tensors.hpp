// Tensors whose values are computed when something first reads them, or streamed by the writer
// without ever being held whole.
//
// BatchNorm folding makes a new weight for every folded layer (resnet50: 100 MB). Only the writer
// reads those bytes, and writing fresh memory is most of the fold's cost (each new page is zeroed by
// the kernel first). So the fold gives the graph a tensor of the right type and shape whose storage
// is allocated but never touched, and registers how to compute its rows. The writer computes them
// a block at a time into one small reused buffer. Any other reader (a pack asking for the constant's
// bytes, an attribute holding it) calls materialize() first, which fills the storage once.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>

namespace t2o::core::deferred {

// Computes rows [first, first + count) of the tensor (rows along dim 0) into `out`, a contiguous
// tensor of shape [count, ...rest] and the tensor's dtype.
using RowFill = std::function<void(int64_t first, int64_t count, at::Tensor& out)>;

// Registers `placeholder` (contiguous, at least 1-d, its storage untouched) as computed by `fill`.
// The registration lasts as long as the storage.
void defer(const at::Tensor& placeholder, RowFill fill);

// Computes a pending tensor's values into its own storage (once); nothing for any other tensor.
void materialize(const at::Tensor& t);

// For the writer: calls `sink(bytes, n)` with t's bytes in order, in blocks of at most `block_bytes`,
// computed into one reused buffer of a few MiB when t is pending (its storage stays untouched),
// else straight from its memory.
void stream_bytes(const at::Tensor& t, size_t block_bytes, const std::function<void(const char*, size_t)>& sink);

}  // namespace t2o::core::deferred
