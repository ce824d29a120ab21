// torch2onnx export: one model (a TorchScript .pt or a torch.export .pt2) to one ONNX file; --batch
// hands over to export_batch.cpp.
#include "commands.hpp"
#include "export_job.hpp"
#include "export_options.hpp"

#include <torch2onnx/core/exporter.hpp>

#include <iostream>
#include <memory>

namespace t2o::cli {

namespace {

// The launcher's head start on this export's weights (weights_head_start.hpp), if it took one for this
// model and output.
std::shared_ptr<t2o::core::WeightsHeadStart> head_start_for(const ConversionArgs& conv) {
  const t2o_cli_launch* launch = launch_times();
  const t2o_weights_head_start* h = launch ? launch->head_start : nullptr;
  if (!h || conv.model != h->model_path || conv.output != h->output_path) return nullptr;
  auto out = std::make_shared<t2o::core::WeightsHeadStart>();
  out->data_temp_path = h->data_temp_path;
  out->device = h->device;
  out->inode = h->inode;
  out->size = h->size;
  out->mtime_ns = h->mtime_ns;
  for (unsigned long long k = 0; k < h->record_count; ++k)
    out->records.push_back({h->records[3 * k], h->records[3 * k + 1], h->records[3 * k + 2]});
  out->wait = [h] { return size_t(h->wait(h)); };
  out->stop = [h] { h->stop(h); };
  return out;
}

}  // namespace

int run_export(Args& args) {
  ConversionArgs conv;
  bool print = false;
  std::string batch, batch_report;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << export_help();
      return 0;
    } else if (args.flag("--print")) {
      print = true;
      conv.options.node_doc_strings = true;
    } else if (args.option("--batch", batch)) {
    } else if (args.option("--batch-report", batch_report)) {
    } else if (!parse_conversion_option(args, conv)) {
      take_model(args, conv);
    }
  }
  if (!batch.empty()) {
    if (!conv.model.empty() || !conv.output.empty())
      throw UsageError("--batch takes the models and outputs from its file, not from the command line ('" +
                       (conv.model.empty() ? conv.output : conv.model) + "')");
    return run_batch(conv, print, batch, batch_report);
  }
  if (!batch_report.empty()) throw UsageError("--batch-report goes with --batch FILE");
  if (conv.model.empty()) throw UsageError("no model given (torch2onnx export MODEL.pt -o OUT.onnx)");
  if (conv.output.empty()) throw UsageError("no output given (-o OUT.onnx)");
  PhaseTimes times;
  t2o::registry::Registry registry;
  load_conversion_plugins(registry, conv, [&](const char* phase) { times.enter(phase); });
  if (!conv.quiet) warn_refused(registry);
  conv.options.weights_head_start = head_start_for(conv);
  ExportJob job(conv, print, times, "");
  job.convert(registry);
  job.write(/*in_background=*/false);
  job.report();
  return 0;
}

}  // namespace t2o::cli
