// A large export's weights copied into OUT.data ahead of the writer, on a thread, while the model
// loads and converts (the torch2onnx program: while libtorch starts, tools/weights_head_start.hpp;
// export_model in the library: while it loads, prepares and converts, 50 ms of mlp2700's 1.3 s).
//
// It reads the .pt's zip directory (no libtorch) and copies the weight records of at least 1 MiB (the
// ones lazy weights leave in the file) into OUT.data's temporary file: in archive order, 64-byte
// aligned from offset 0, which is the order the writer gives weights that lie untouched in the .pt
// (model_writer.cpp). The writer keeps the leading records that match its layout and writes the rest,
// so a wrong guess costs a copy, never a wrong file: it checks the file's identity and each record's
// offset and length (ExportOptions' WeightsHeadStart).
//
// Taken only when the weights go to OUT.data: the records add up past the 2 GB inline limit, or
// external data is asked for. T2O_NO_HEAD_START=1 or T2O_EAGER_WEIGHTS=1 turns it off.
#ifndef TORCH2ONNX_CORE_ASSEMBLE_WEIGHTS_COPY_AHEAD_HPP
#define TORCH2ONNX_CORE_ASSEMBLE_WEIGHTS_COPY_AHEAD_HPP

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace t2o::core {

class WeightsCopyAhead {
 public:
  // A copy under way of MODEL's weights for OUTPUT, or nullptr when none applies (see above) or the
  // file cannot be read as an archive, opened, or a thread started: the writer then writes it all.
  static std::unique_ptr<WeightsCopyAhead> start(const std::string& model, const std::string& output,
                                                 bool external_data);
  // Stops the copy and removes the temporary file, unless the writer has renamed it into place.
  ~WeightsCopyAhead();
  WeightsCopyAhead(const WeightsCopyAhead&) = delete;
  WeightsCopyAhead& operator=(const WeightsCopyAhead&) = delete;

  size_t wait();  // ends the copy: how many leading records it copied whole
  void stop();    // stops the copy early (the writer will not use it)

  const std::string& model_path() const { return model_; }
  const std::string& output_path() const { return output_; }
  const std::string& data_temp_path() const { return temp_; }  // OUT.data.tmp.<pid>, the writer's name
  // The .pt as the copy saw it.
  uint64_t device = 0, inode = 0, size = 0, mtime_ns = 0;
  // Triples: offset in the .pt, length, offset in OUT.data.
  const std::vector<unsigned long long>& records() const { return records_; }

 private:
  WeightsCopyAhead() = default;
  void copy();

  std::string model_, output_, temp_;
  int in_fd_ = -1, out_fd_ = -1;
  std::vector<unsigned long long> records_;
  std::atomic<bool> stop_{false};
  std::atomic<unsigned long long> copied_{0};  // leading records copied whole
  std::mutex join_mutex_;                      // wait() and the destructor may run on different threads
  std::thread thread_;
};

}  // namespace t2o::core

#endif
