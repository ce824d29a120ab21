// Every graph pass of a conversion, named and ordered in one place.
//
// prepare() — the type-independent passes, in this order:
//   0. unwrap_number_constants  traced Python numbers (0-d tensor constants) become numbers again,
//                               as PyTorch's executor does, so they promote as Python numbers
//   1. eval + freeze            module attributes become constants (weights, flags); QAT's fused
//                               fake quantizers unfused first (quantized_params.cpp). --training
//                               picks eval(), train() or the module's own flags
//   1b. drop_running_stat_updates  (before freezing) a normalization layer's running-statistics
//                               buffers written in training mode (num_batches_tracked += 1) become
//                               values, the update not exported, as torch.onnx (running_stats.cpp)
//   1c. thread_module_state     (before freezing) attributes forward() assigns or writes in place
//                               become values within the call, reads seeing the last write; the
//                               saved state is the call's start, kept by nothing (state_in_call.cpp)
//   2. inline                   one graph for forward(), calls inlined; print() and warnings.warn()
//                               dropped (torch.onnx's RemovePrintOps)
//   2b. bind_signature          the --input specs bound to forward()'s arguments: tuples, lists and
//                               dicts of new graph inputs, constants for primitives and None, defaults
//                               for trailing arguments (signature.cpp); their simple tuples lowered
//   3. remove list/tensor mutation, constant propagation; reads of bound dicts by key folded;
//      (after it) fold_dict_writes: dicts forward() fills (`out["out"] = x`) become one
//      DictConstruct per use, constant-key reads their values (dict_writes.cpp);
//      (before it) prim::isinstance that the static types answer, unchecked_casts they satisfy
//   4. functionalize_view_writes  in-place writes into views become slice_scatter/select_scatter
//   5. remove_assertions        ifs that only raise (scripted asserts)
//   6. lower tuples             all of them, or only the simple ones where control flow stays
//      lower_packed_sequences  pack_padded_sequence -> RNN -> pad_packed_sequence as padded
//                               tensors plus lengths (packed_sequences.cpp)
//   7. thread_list_mutation     lists mutated inside if/loop blocks become values the blocks return
//      (in 3, before libtorch's tensor mutation removal: thread_tensor_mutation, the same for
//      tensors written in place inside if/loop blocks, index_put_, index_add_, ... becoming their
//      functional ops; thread_tensor_mutation.cpp)
//      unpack_quantized_params  packed quantized weights become constants (quantized_params.cpp)
//   8. dead code elimination, drop self
// Then, on what the example runs saw (example_run.cpp drives the fixpoint):
//  10. fold_static_shapes       shapes/dtypes/context queries fixed for every run, the branches
//                               they decide, loops they unroll (static_shapes.cpp)
//  11. drop_raising_branches    an if whose one branch raises runs the other (with a warning)
//  12. fold_batch_norm          in eval mode, BatchNorm after a convolution / linear layer with
//                               constant weights folded into them, as torch.onnx's constant folding
//                               does (fold_batch_norm.cpp; off with --no-constant-folding)
//  13. fuse_rms_norm            the exact RMSNorm pattern becomes t2o::rms_norm, when a pack converts
//                               that at the target opset (rms_norm_pattern.cpp)
// after_example_runs() runs 11-13 in this order (export, check and verify alike).
#ifndef TORCH2ONNX_CORE_PASSES_HPP
#define TORCH2ONNX_CORE_PASSES_HPP

#include "load/model_loader.hpp"
#include "common/type_table.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <functional>
#include <string>
#include <vector>

namespace t2o::core {

// Passes 1-8 with `inputs` bound (none: the arguments stay graph inputs as they are, for `check`
// without --input); throws ExportError naming the file, SignatureError for specs that do not match.
// model.input_specs then holds the spec of each graph input.
// `training`: the mode the module is put in before freezing (ExportOptions::training).
PreparedModel prepare(torch::jit::Module module, const std::string& path, const std::vector<InputSpec>& inputs = {},
                      TrainingMode training = TrainingMode::Eval);

// Pass 1b, on forward()'s inlined graph before freezing (self its input 0): direct in-place writes
// of buffers named running_mean / running_var / num_batches_tracked become functional ops, the reads
// after them in their branch their result. Returns the buffers so handled ("bn.num_batches_tracked");
// others are left for the module-state refusal (running_stats.cpp).
std::vector<std::string> drop_running_stat_updates(const std::shared_ptr<torch::jit::Graph>& graph);

// Pass 1c, on forward()'s inlined graph before freezing (self its input 0): each attribute forward()
// assigns (prim::SetAttr) or writes in place becomes a value inside the call, one private copy of its
// saved value at the top, reads replaced by the newest value, threaded out of ifs and loops.
// Returns the attributes so handled ("stats.running"); what it cannot make exact stays for the
// module-state refusal (state_in_call.cpp).
std::vector<std::string> thread_module_state(const std::shared_ptr<torch::jit::Graph>& graph,
                                             const torch::jit::Module& module);
// The one warning per attribute thread_module_state handled.
void warn_state_in_call(const std::vector<std::string>& threaded, const std::function<void(const std::string&)>& warn);
// Part of pass 1b: running_mean/running_var buffers read only as aten::instance_norm's running
// statistics (InstanceNorm with track_running_stats=True) become constants, which libtorch's
// freezing leaves as attributes (running_stats.cpp).
void constant_instance_norm_stats(const torch::jit::Module& module, const std::shared_ptr<torch::jit::Graph>& graph);

// Whether `user` writes the value it takes at input `offset` ((a!) in its schema); shared by the
// passes that follow module state (module_state.cpp).
bool writes_input(torch::jit::Node* user, size_t offset);

// The warnings --training gives on a prepared graph, as torch.onnx's: ops whose train flag disagrees
// with the mode (exported with their own flag), train mode on a model with no op that trains
// differently, running-statistics updates not exported (training_mode.cpp).
void warn_training_mode(const std::shared_ptr<torch::jit::Graph>& graph, TrainingMode mode,
                        const std::vector<std::string>& dropped_updates,
                        const std::function<void(const std::string&)>& warn);

// Pass 10: replaces queries fixed for every run with constants and resolves the control flow they
// decide. Returns whether control flow was removed (new values the example run has not seen).
bool fold_static_shapes(const std::shared_ptr<torch::jit::Graph>& graph, const TypeTable& types);

// Pass 11: torch.onnx drops the raising branch of an if that cannot be folded; so do we, warning
// with the location of each.
void drop_raising_branches(const std::shared_ptr<torch::jit::Graph>& graph,
                           const std::function<void(const std::string&)>& warn);

// Part of pass 3, after constant propagation (which folds the branches a frozen flag decides, as
// torchvision's `if self.aux_classifier is not None`): string-keyed dicts filled by _set_item with
// constant keys in the block that made them become a DictConstruct of the entries at each use
// (dict_writes.cpp); others are left for the packs to refuse. Returns whether a dict was rewritten.
bool fold_dict_writes(const std::shared_ptr<torch::jit::Graph>& graph);

// Pass 7 (also run after the fold, which may unroll loops).
void thread_list_mutation(const std::shared_ptr<torch::jit::Graph>& graph);

// Part of pass 3: in-place writes (aten::*_) inside if/loop blocks into a tensor made outside them (or
// into a loop body's carried input), directly or through exact views of it (x[i] = v, x[a:b] += v),
// become functional ops, the newest value threaded through the blocks (thread_tensor_mutation.cpp).
void thread_tensor_mutation(const std::shared_ptr<torch::jit::Graph>& graph);

// Shared by the two in-place passes (inplace_views.cpp), inserting at the graph's insertion point:
// the value in-place write `write` leaves in its target (input 0), computed without writing (nullptr:
// no exact functional form; may throw when no schema matches), and the value of the tensor exact view
// `view` views once the view holds `value` (slice_scatter, select_scatter, ...; nullptr: unknown).
torch::jit::Value* written_value(torch::jit::Node* write);
torch::jit::Value* write_back_through(torch::jit::Node* view, torch::jit::Value* value);

void remove_assertions(const std::shared_ptr<torch::jit::Graph>& graph);  // static_shapes.cpp

// Pass 12: BatchNorm folded into the convolution or linear layer before it (exact conditions in
// fold_batch_norm.cpp); the layer's new weight and bias are recorded in `types`. Returns how many.
int fold_batch_norm(const std::shared_ptr<torch::jit::Graph>& graph, TypeTable& types);

// Pass 13: x * rsqrt(mean(x^2 over the last dims, keepdim) + eps) * w (and the float32-statistics
// variant of LLaMA's RMSNorm) becomes t2o::rms_norm(x, w?, eps, axis); the new value gets the
// replaced one's recorded type. Returns how many were fused (rms_norm_pattern.cpp).
int fuse_rms_norm(const std::shared_ptr<torch::jit::Graph>& graph, TypeTable& types);

// Passes 11-13 on what the example runs recorded in `types`. fold_constants: pass 12 (the
// --no-constant-folding option turns it off); rms_norm: whether a pack converts t2o::rms_norm at the
// target opset (pass 13 only then).
void after_example_runs(const std::shared_ptr<torch::jit::Graph>& graph, TypeTable& types, bool fold_constants,
                        bool rms_norm, const std::function<void(const std::string&)>& warn);

// Packed sequences as t2o:: ops over padded time-major tensors and lengths; refuses other uses of a
// PackedSequence (packed_sequences.cpp). has_data_dependent_size: the op's result sizes depend on
// tensor values (pad_packed_sequence without total_length), for mark_data_dependent_sizes.
void lower_packed_sequences(const std::shared_ptr<torch::jit::Graph>& graph);
bool has_data_dependent_size(const torch::jit::Node* node);

// After freezing: the tensor attributes forward() still reads become constants when nothing may write
// them (libtorch's alias analysis kept them), all or none. Returns how many (module_state.cpp).
int fold_unwritten_tensor_attributes(const torch::jit::Module& frozen);

// Why the frozen module's forward() still uses self, as one line: the attribute forward() changes
// at run time (assigned or written in place), its module and where (module_state.cpp).
std::string module_state_error(const torch::jit::Module& frozen);

}  // namespace t2o::core

#endif
