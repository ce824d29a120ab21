#include "weights_head_start.hpp"

namespace t2o::cli {

namespace {

// export's options that take a value as the next word (export_options.cpp, export_command.cpp).
bool takes_value(const std::string& word) {
  for (const char* name : {"-o", "--output", "--opset", "--input", "--input-names", "--output-names", "--dynamic-axes",
                           "--example-inputs", "--input-range", "--dynamic-input", "--operator-export-type",
                           "--plugin-path", "--enable-pack", "--custom-opset", "--default-dtype", "--training",
                           "--load-library", "--batch", "--batch-report"})
    if (word == name) return true;
  return false;
}

}  // namespace

std::unique_ptr<WeightsHeadStart> WeightsHeadStart::start(const std::vector<std::string>& words) {
  if (words.empty() || words[0] != "export") return nullptr;
  // The command line as export reads it, as far as this needs: one model, its output, --external-data.
  std::string model, output;
  bool external = false;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--batch" || w.rfind("--batch=", 0) == 0 || w == "--no-weights" || w == "--weights-as-inputs" ||
        w == "--help" || w == "-h")
      return nullptr;
    if (w == "--external-data") {
      external = true;
    } else if (w == "-o" || w == "--output") {
      if (i + 1 >= words.size()) return nullptr;
      output = words[++i];
    } else if (w.rfind("-o=", 0) == 0 || w.rfind("--output=", 0) == 0) {
      output = w.substr(w.find('=') + 1);
    } else if (takes_value(w)) {
      ++i;
    } else if (w.size() > 1 && w[0] == '-') {
      // a flag, or an option given as NAME=VALUE
    } else {
      if (!model.empty()) return nullptr;  // export will refuse it
      model = w;
    }
  }
  std::unique_ptr<core::WeightsCopyAhead> copy = core::WeightsCopyAhead::start(model, output, external);
  if (!copy) return nullptr;

  std::unique_ptr<WeightsHeadStart> h(new WeightsHeadStart());
  h->copy_ = std::move(copy);
  const core::WeightsCopyAhead& c = *h->copy_;
  t2o_weights_head_start& v = h->view_;
  v.owner = h.get();
  v.model_path = c.model_path().c_str();
  v.output_path = c.output_path().c_str();
  v.data_temp_path = c.data_temp_path().c_str();
  v.device = c.device;
  v.inode = c.inode;
  v.size = c.size;
  v.mtime_ns = c.mtime_ns;
  v.record_count = c.records().size() / 3;
  v.records = c.records().data();
  v.wait = &WeightsHeadStart::wait;
  v.stop = &WeightsHeadStart::stop;
  return h;
}

unsigned long long WeightsHeadStart::wait(const t2o_weights_head_start* self) {
  return static_cast<WeightsHeadStart*>(self->owner)->copy_->wait();
}

void WeightsHeadStart::stop(const t2o_weights_head_start* self) {
  static_cast<WeightsHeadStart*>(self->owner)->copy_->stop();
}

}  // namespace t2o::cli
