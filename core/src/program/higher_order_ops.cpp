// torch.export's higher-order operators (ProgramGraphBuilder::add_higher_order, program_graph.hpp):
// their subgraphs become TorchScript blocks or are inlined. cond -> If, while_loop -> Loop, map and
// scan -> a Loop over the scanned dim, the no_grad/autocast regions inlined; any other is collected
// with the unknown ops. Split from program_graph.cpp, which builds the nodes around them.
#include "program/program_graph.hpp"

#include <torch/csrc/jit/ir/ir.h>

#include <limits>

namespace t2o::core::program {

using torch::jit::Value;

std::vector<Value*> ProgramGraphBuilder::inline_subgraph(const JsonAt& graph_argument, const std::vector<Value*>& inputs) {
  const auto sub = graph_argument.at("graph");
  const auto formal = sub.at("inputs").items();
  if (formal.size() != inputs.size())
    sub.at("inputs").fail("the subgraph takes " + std::to_string(formal.size()) + " inputs, the operator gives it " +
                          std::to_string(inputs.size()));
  // A subgraph's names are its own (its x is not the program's x); what it reads from outside comes
  // in as an operand, so it starts from its inputs alone.
  auto saved_tensors = std::move(tensors_);
  auto saved_symbols = std::move(symbols_);
  tensors_.clear();
  symbols_.clear();
  std::vector<Value*> outputs;
  try {
    for (size_t i = 0; i < formal.size(); ++i) {
      auto [key, body] = formal[i].union_member();
      if (key == "as_tensor") tensors_[body.at("name").str()] = inputs[i];
      else if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
        auto [k2, b2] = body.union_member();
        if (k2 == "as_name") symbols_[b2.str()] = inputs[i];
      } else if (key != "as_none" && key != "as_int" && key != "as_float" && key != "as_bool") {
        formal[i].fail("a subgraph input of kind '" + key + "'");
      }
    }
    add_nodes(sub.at("nodes"));
    if (unknown_.empty())
      for (const auto& out : sub.at("outputs").items()) outputs.push_back(value_of(out));
  } catch (...) {
    tensors_ = std::move(saved_tensors);
    symbols_ = std::move(saved_symbols);
    throw;
  }
  tensors_ = std::move(saved_tensors);
  symbols_ = std::move(saved_symbols);
  return outputs;
}

namespace {
// A branch or loop condition as TorchScript's bool: a bool tensor (one element) read with aten::Bool.
Value* as_condition(torch::jit::Graph& g, Value* v) {
  if (v->type()->kind() == c10::TypeKind::BoolType) return v;
  return g.insert(c10::Symbol::fromQualString("aten::Bool"), {v});
}
}  // namespace

void ProgramGraphBuilder::bind_results(const JsonAt& node, const std::vector<Value*>& results) {
  // Written as one as_tensors list (2.6's cond) or one output per result (2.14, while_loop).
  std::vector<JsonAt> flat;
  for (const auto& out : node.at("outputs").items()) {
    auto [key, body] = out.union_member();
    if (key == "as_tensors") {
      for (const auto& t : body.items()) flat.push_back(t);
    } else {
      flat.push_back(out);
    }
  }
  if (flat.size() > results.size())
    node.at("outputs").fail(std::to_string(flat.size()) + " outputs for " + std::to_string(results.size()) + " results");
  for (size_t k = 0; k < flat.size(); ++k) {
    const JsonAt& out = flat[k];
    if (out.has("name") && !out.raw().contains("as_tensor")) {  // an element of an as_tensors list
      tensors_[out.at("name").str()] = results[k];
      continue;
    }
    auto [key, body] = out.union_member();
    if (key == "as_tensor") tensors_[body.at("name").str()] = results[k];
    else if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
      auto [k2, b2] = body.union_member();
      if (k2 == "as_name") symbols_[b2.str()] = results[k];
    } else if (key != "as_none") {
      out.fail("a result of kind '" + key + "'");
    }
  }
}

void ProgramGraphBuilder::add_higher_order(const JsonAt& node, const std::string& name) {
  const auto inputs = node.at("inputs").items();
  auto operands_of = [&](const JsonAt& arg) {
    std::vector<Value*> values;
    auto [key, body] = arg.union_member();
    if (key == "as_tensors") {
      for (const auto& t : body.items()) values.push_back(tensor(t));
    } else if (key == "as_none") {
    } else {
      values.push_back(argument_value(arg, nullptr));
    }
    return values;
  };
  if (name == "cond") {
    // cond(pred, true_graph, false_graph, operands) -> If with one block per branch.
    if (inputs.size() != 4) node.at("inputs").fail("cond takes 4 arguments, found " + std::to_string(inputs.size()));
    Value* pred = as_condition(graph_, argument_value(inputs[0].at("arg"), nullptr));
    const auto operands = operands_of(inputs[3].at("arg"));
    const size_t n_out = inputs[1].at("arg").at("as_graph").at("graph").at("outputs").size();
    auto* n = graph_.insertNode(graph_.create(c10::prim::If, {pred}, n_out));
    for (int b = 0; b < 2; ++b) {
      auto* block = n->addBlock();
      torch::jit::WithInsertPoint here(block);
      auto outs = inline_subgraph(inputs[1 + b].at("arg").at("as_graph"), operands);
      if (!unknown_.empty()) {
        poison_outputs(node);
        return;
      }
      for (auto* v : outs) block->registerOutput(v);
    }
    std::vector<Value*> results;
    for (size_t k = 0; k < n_out; ++k) {
      n->output(k)->setType(n->blocks()[0]->outputs()[k]->type());
      results.push_back(n->output(k));
    }
    bind_results(node, results);
    return;
  }
  if (name == "while_loop") {
    // while_loop(cond_graph, body_graph, carried, additional) -> the condition on the initial values,
    // then a Loop whose body computes the new values and the condition on them.
    if (inputs.size() != 4) node.at("inputs").fail("while_loop takes 4 arguments, found " + std::to_string(inputs.size()));
    const auto& cond_graph = inputs[0].at("arg").at("as_graph");
    const auto& body_graph = inputs[1].at("arg").at("as_graph");
    const auto carried = operands_of(inputs[2].at("arg"));
    const auto additional = operands_of(inputs[3].at("arg"));
    auto with = [&](std::vector<Value*> a) {
      a.insert(a.end(), additional.begin(), additional.end());
      return a;
    };
    auto first = inline_subgraph(cond_graph, with(carried));
    if (!unknown_.empty()) return poison_outputs(node);
    if (first.size() != 1) cond_graph.at("graph").at("outputs").fail("a loop condition must be one value");
    Value* go = as_condition(graph_, first[0]);
    std::vector<Value*> loop_inputs = {graph_.insertConstant(std::numeric_limits<int64_t>::max()), go};
    loop_inputs.insert(loop_inputs.end(), carried.begin(), carried.end());
    auto* n = graph_.insertNode(graph_.create(c10::prim::Loop, loop_inputs, carried.size()));
    auto* body = n->addBlock();
    body->addInput()->setType(c10::IntType::get());
    std::vector<Value*> inside;
    for (auto* c : carried) {
      inside.push_back(body->addInput()->setType(c->type()));
    }
    {
      torch::jit::WithInsertPoint here(body);
      auto next = inline_subgraph(body_graph, with(inside));
      if (!unknown_.empty()) return poison_outputs(node);
      if (next.size() != carried.size())
        body_graph.at("graph").at("outputs").fail("the loop body gives " + std::to_string(next.size()) + " values for " +
                                                  std::to_string(carried.size()) + " carried ones");
      auto again = inline_subgraph(cond_graph, with(next));
      if (!unknown_.empty()) return poison_outputs(node);
      body->registerOutput(as_condition(graph_, again[0]));
      for (auto* v : next) body->registerOutput(v);
    }
    std::vector<Value*> results;
    for (size_t k = 0; k < carried.size(); ++k) results.push_back(n->output(k)->setType(carried[k]->type()));
    bind_results(node, results);
    return;
  }
  if (name == "wrap_with_set_grad_enabled" || name == "wrap_with_autocast") {
    // A region under torch.no_grad()/autocast: its nodes inlined, with the dtypes the program records.
    size_t g = 0;
    while (g < inputs.size() && inputs[g].at("arg").union_member().first != "as_graph") ++g;
    if (g == inputs.size()) node.at("inputs").fail(name + " without its subgraph");
    std::vector<Value*> operands;
    for (size_t i = g + 1; i < inputs.size(); ++i)
      for (auto* v : operands_of(inputs[i].at("arg"))) operands.push_back(v);
    auto outs = inline_subgraph(inputs[g].at("arg").at("as_graph"), operands);
    if (!unknown_.empty()) return poison_outputs(node);
    bind_results(node, outs);
    return;
  }
  if (name == "map_impl" || name == "scan") return add_scan(node, name);
  note_unknown("higher_order." + name, node);
  poison_outputs(node);
}

// map_impl(f, xs, pos_args) and scan(combine_fn, init, xs, [dim, reverse,] additional_inputs) (2.6
// writes dim and reverse; 2.14 always scans dim 0 forwards, flipping outside) -> a Loop over the
// scanned dim: each iteration selects the slice of every xs, inlines the function on (carries, slices,
// extra operands), carries its first results on (scan) and appends the others to a list each, stacked
// along dim 0 after the loop (2.6's scan stacks the steps first whatever dim it scans; 2.14's always
// scans dim 0): the lists become ONNX sequences (ConcatFromSequence), as a scripted loop that appends
// does. A reverse scan walks the slices from the end and flips the stacked results back, so ys[i]
// belongs to xs[i], as PyTorch's scan returns them.
void ProgramGraphBuilder::add_scan(const JsonAt& node, const std::string& name) {
  const auto inputs = node.at("inputs").items();
  auto tensors_of = [&](const JsonAt& arg) {
    std::vector<Value*> values;
    auto [key, body] = arg.union_member();
    if (key == "as_tensors")
      for (const auto& t : body.items()) values.push_back(tensor(t));
    else if (key != "as_none")
      arg.fail(name + ": a list of tensors expected, found '" + key + "'");
    return values;
  };
  const bool is_map = name == "map_impl";
  if (is_map ? inputs.size() != 3 : (inputs.size() != 4 && inputs.size() != 6))
    node.at("inputs").fail(name + " takes " + (is_map ? "3" : "4 or 6") + " arguments, found " +
                           std::to_string(inputs.size()));
  const auto& fn = inputs[0].at("arg").at("as_graph");
  const std::vector<Value*> init = is_map ? std::vector<Value*>{} : tensors_of(inputs[1].at("arg"));
  const std::vector<Value*> xs = tensors_of(inputs[is_map ? 1 : 2].at("arg"));
  const std::vector<Value*> extra = tensors_of(inputs.back().at("arg"));
  int64_t dim = 0;
  bool reverse = false;
  if (inputs.size() == 6) {
    dim = inputs[3].at("arg").at("as_int").integer();
    reverse = inputs[4].at("arg").at("as_bool").boolean();
  }
  if (xs.empty()) inputs[is_map ? 1 : 2].at("arg").fail(name + " over no tensor (nothing gives the trip count)");
  const size_t n_results = fn.at("graph").at("outputs").size();
  if (n_results < init.size())
    fn.at("graph").at("outputs").fail(name + "'s function gives " + std::to_string(n_results) + " values for " +
                                      std::to_string(init.size()) + " carried ones");
  const size_t n_stacked = n_results - init.size();

  auto constant = [&](int64_t v) { return graph_.insertConstant(v); };
  Value* trips = graph_.insert(c10::aten::size, {xs[0], constant(dim)});
  std::vector<Value*> lists;
  for (size_t k = 0; k < n_stacked; ++k)
    lists.push_back(graph_.insertNode(graph_.createList(c10::TensorType::get(), {}))->output());
  std::vector<Value*> loop_inputs = {trips, graph_.insertConstant(true)};
  loop_inputs.insert(loop_inputs.end(), init.begin(), init.end());
  auto* loop = graph_.insertNode(graph_.create(c10::prim::Loop, loop_inputs, init.size()));
  auto* body = loop->addBlock();
  Value* i = body->addInput()->setType(c10::IntType::get());
  std::vector<Value*> operands;
  for (auto* c : init) operands.push_back(body->addInput()->setType(c->type()));
  {
    torch::jit::WithInsertPoint here(body);
    Value* at = i;
    if (reverse)  // n - 1 - i
      at = graph_.insert(c10::aten::sub, {graph_.insert(c10::aten::sub, {trips, constant(1)}), i});
    for (auto* x : xs) operands.push_back(graph_.insert(c10::aten::select, {x, constant(dim), at}));
    operands.insert(operands.end(), extra.begin(), extra.end());
    auto outs = inline_subgraph(fn, operands);
    if (!unknown_.empty()) return poison_outputs(node);
    for (size_t k = 0; k < n_stacked; ++k) graph_.insert(c10::aten::append, {lists[k], outs[init.size() + k]});
    body->registerOutput(graph_.insertConstant(true));
    for (size_t k = 0; k < init.size(); ++k) body->registerOutput(outs[k]);
  }
  std::vector<Value*> results;
  for (size_t k = 0; k < init.size(); ++k) results.push_back(loop->output(k)->setType(init[k]->type()));
  for (size_t k = 0; k < n_stacked; ++k) {
    // 2.6's scan stacks the per-step results along dim 0 whatever dim it scans (its ys are [steps, ...]).
    Value* stacked = graph_.insert(c10::aten::stack, {lists[k], constant(0)});
    if (reverse) {
      Value* dims = graph_.insertNode(graph_.createList(c10::IntType::get(), {constant(0)}))->output();
      stacked = graph_.insert(c10::aten::flip, {stacked, dims});
    }
    results.push_back(stacked);
  }
  bind_results(node, results);
}

}  // namespace t2o::core::program
