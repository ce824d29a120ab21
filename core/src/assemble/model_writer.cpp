#include "assemble/model_writer.hpp"

#include "common/deferred_tensors.hpp"
#include "load/lazy_weights.hpp"

#include "torch2onnx/core/exporter.hpp"

#include <google/protobuf/io/coded_stream.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace t2o::core {

namespace {

using google::protobuf::io::CodedOutputStream;

constexpr uint32_t kModelGraphField = 7;        // ModelProto.graph
constexpr uint32_t kGraphInitializerField = 5;  // GraphProto.initializer
constexpr uint32_t kTensorRawDataField = 9;     // TensorProto.raw_data
constexpr uint32_t kLengthDelimited = 2;
constexpr uint64_t kChunk = 64ull << 20;        // write in 64 MiB pieces, reporting progress between them

uint32_t tag(uint32_t field) { return (field << 3) | kLengthDelimited; }

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Removes the graph inputs that stand for the streamed tensors (but those kept as inputs).
void drop_placeholder_inputs(onnx::GraphProto* graph, const std::vector<StreamedTensor>& streamed) {
  std::unordered_set<std::string> names;
  for (const auto& s : streamed)
    if (!s.keep_input) names.insert(s.name);
  auto* inputs = graph->mutable_input();
  int kept = 0;
  for (int i = 0; i < inputs->size(); ++i) {
    if (names.count(inputs->Get(i).name())) continue;
    if (kept != i) inputs->SwapElements(kept, i);
    ++kept;
  }
  while (inputs->size() > kept) inputs->RemoveLast();
}

onnx::TensorProto header_of(const StreamedTensor& s) {
  onnx::TensorProto t;
  t.set_name(s.name);
  t.set_data_type(s.dtype);
  for (auto d : s.dims) t.add_dims(d);
  return t;
}

class TempFile {
 public:
  explicit TempFile(std::string final_path)
      : final_(std::move(final_path)), temp_(final_ + ".tmp." + std::to_string(getpid())) {}
  ~TempFile() {
    if (!committed_) std::remove(temp_.c_str());
  }
  const std::string& path() const { return temp_; }
  // Replaces the output atomically. Over an existing file the two are exchanged and the old one,
  // now at the temporary name, removed: ext4 starts writing back the whole new file on a rename
  // that replaces a file (auto_da_alloc), which blocked an export for up to 0.28 s (vit_b_16's
  // 330 MB), while an exchange does not. Where exchange is not supported, a plain rename.
  void commit() {
    struct stat existing;
    if (::lstat(final_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
        ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) == 0) {
      committed_ = true;
      std::remove(temp_.c_str());  // the replaced file
      return;
    }
    if (std::rename(temp_.c_str(), final_.c_str()) != 0) throw ExportError("cannot rename " + temp_ + " to " + final_);
    committed_ = true;
  }

 private:
  std::string final_, temp_;
  bool committed_ = false;
};

void fail_write(const std::string& path) {
  throw ExportError("writing " + path + " failed (is the disk full?)");
}

// Writes to a file descriptor: small pieces (protobuf headers) gather in a buffer, large ones (tensor
// bytes) go from the tensor's memory straight to write(2): no copy through protobuf's or iostream's
// buffers.
class FileSink {
 public:
  // keep: the file's first bytes, already written (a head start's), are kept and writing goes on
  // after them; 0: the file is created empty.
  FileSink(const std::string& path, std::string shown_as, uint64_t keep = 0) : shown_as_(std::move(shown_as)) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | (keep ? 0 : O_TRUNC) | O_CLOEXEC, 0666);
    if (fd_ < 0) throw ExportError("cannot create " + path + ": " + std::strerror(errno));
    if (keep && (::ftruncate(fd_, off_t(keep)) != 0 || ::lseek(fd_, off_t(keep), SEEK_SET) != off_t(keep)))
      fail_write(shown_as_);
    buffer_.reserve(kBuffer);
  }
  ~FileSink() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  void put(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    // Bytes still untouched in a model's file (a .pt2's records are tensors over its mapping, small
    // ones too) go file-to-file whatever their size, above a page: never read into the process.
    const bool from_file = n >= kMinFileCopy && lazy_weights::file_span(p, n).has_value();
    if (!from_file && buffer_.size() + n <= kBuffer) {
      buffer_.insert(buffer_.end(), p, p + n);
    } else {
      flush();
      if (!from_file && n < kBuffer) buffer_.insert(buffer_.end(), p, p + n);
      else write(p, n);
    }
    written_ += n;
  }
  void put_varint(uint64_t v) {
    uint8_t bytes[10];
    put(bytes, size_t(CodedOutputStream::WriteVarint64ToArray(v, bytes) - bytes));
  }
  void put_message(const google::protobuf::MessageLite& m) {
    std::string bytes;
    if (!m.SerializeToString(&bytes)) fail_write(shown_as_);
    put(bytes.data(), bytes.size());
  }
  void close() {
    flush();
    if (::close(fd_) != 0) fail_write(shown_as_);
    fd_ = -1;
  }
  uint64_t written() const { return written_; }

 private:
  static constexpr size_t kBuffer = 1 << 20;
  static constexpr size_t kMinFileCopy = 4096;
  void flush() {
    write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  // Tensor bytes nothing has read since loading go file-to-file (lazy_weights); the rest from memory.
  void write(const char* p, size_t n) {
    if (!lazy_weights::write_bytes(fd_, p, n)) fail_write(shown_as_);
  }
  int fd_ = -1;
  std::string shown_as_;
  std::vector<char> buffer_;
  uint64_t written_ = 0;
};

// OUT.data's order: tensors whose bytes lie untouched in the .pt first, by their offset there (the
// order a head start copies them in), then the others in graph order.
std::vector<size_t> data_file_order(const std::vector<StreamedTensor>& streamed,
                                    std::vector<std::optional<lazy_weights::FileSpan>>& spans) {
  spans.assign(streamed.size(), std::nullopt);
  std::vector<size_t> order(streamed.size());
  for (size_t i = 0; i < streamed.size(); ++i) {
    order[i] = i;
    const at::Tensor& t = streamed[i].tensor;
    if (t.defined() && t.nbytes()) spans[i] = lazy_weights::file_span(t.data_ptr(), t.nbytes());
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (spans[a].has_value() != spans[b].has_value()) return spans[a].has_value();
    return spans[a] && spans[a]->offset < spans[b]->offset;
  });
  return order;
}

uint64_t aligned64(uint64_t offset) { return (offset + 63) / 64 * 64; }

// How many of the first placements (in `order`) the head start already holds, each the same bytes
// of the same file at the offset this writer gives it.
size_t head_start_kept(const WeightsHeadStart& head_start, size_t copied, const std::vector<StreamedTensor>& streamed,
                       const std::vector<size_t>& order, const std::vector<std::optional<lazy_weights::FileSpan>>& spans) {
  uint64_t offset = 0;
  size_t kept = 0;
  for (; kept < order.size() && kept < copied && kept < head_start.records.size(); ++kept) {
    const auto& span = spans[order[kept]];
    const auto& record = head_start.records[kept];
    if (!span || span->device != head_start.device || span->inode != head_start.inode || span->size != head_start.size ||
        span->mtime_ns != head_start.mtime_ns)
      break;
    if (span->offset != record.source_offset || streamed[order[kept]].tensor.nbytes() != record.length ||
        record.data_offset != aligned64(offset))
      break;
    offset = record.data_offset + record.length;
  }
  return kept;
}

}  // namespace

WriteResult write_model(onnx::ModelProto& skeleton, std::vector<StreamedTensor>& streamed, const std::string& out_path,
                        bool force_external, const std::function<void(uint64_t, uint64_t)>& progress,
                        const WeightsHeadStart* head_start) {
  WriteResult result;
  uint64_t weight_bytes = 0;
  for (const auto& s : streamed) weight_bytes += s.tensor.nbytes();
  uint64_t total = weight_bytes + skeleton.ByteSizeLong();
  result.external = force_external || total > kInlineLimitBytes;
  auto report = [&](uint64_t done) {
    if (progress) progress(done, total);
  };

  if (result.external) {
    // Weights to OUT.data (64-byte aligned offsets), the model proper refers to them.
    result.data_path = out_path + ".data";
    const std::string location = base_name(result.data_path);
    TempFile data_tmp(result.data_path);
    std::unordered_map<std::string, std::pair<uint64_t, uint64_t>> placed;  // name -> offset, length
    {
      std::vector<std::optional<lazy_weights::FileSpan>> spans;
      const std::vector<size_t> order = data_file_order(streamed, spans);
      // The head start's copy into this temporary file ends before anything here writes to it.
      size_t kept = 0;
      uint64_t offset = 0;
      if (head_start && head_start->data_temp_path == data_tmp.path()) {
        const size_t copied = head_start->wait ? head_start->wait() : 0;
        kept = head_start_kept(*head_start, copied, streamed, order, spans);
        for (size_t k = 0; k < kept; ++k) {
          const auto& record = head_start->records[k];
          placed[streamed[order[k]].name] = {record.data_offset, record.length};
          offset = record.data_offset + record.length;
          result.bytes_ahead += record.length;
          streamed[order[k]].tensor = at::Tensor();
        }
        report(offset);
      }
      FileSink data(data_tmp.path(), result.data_path, offset);
      static const char zeros[64] = {0};
      for (size_t i = kept; i < order.size(); ++i) {
        auto& s = streamed[order[i]];
        uint64_t pad = (64 - offset % 64) % 64;
        data.put(zeros, pad);
        offset += pad;
        uint64_t n = s.tensor.nbytes();
        placed[s.name] = {offset, n};
        uint64_t done = 0;
        deferred::stream_bytes(s.tensor, kChunk, [&](const char* p, size_t k) {
          data.put(p, k);
          report(offset + (done += k));
        });
        offset += n;
        s.tensor = at::Tensor();  // written: let the memory go
      }
      data.close();
      result.bytes_written += offset;
    }
    drop_placeholder_inputs(skeleton.mutable_graph(), streamed);
    for (const auto& s : streamed) {
      auto* t = skeleton.mutable_graph()->add_initializer();
      *t = header_of(s);
      t->set_data_location(onnx::TensorProto::EXTERNAL);
      const auto& where = placed.at(s.name);
      auto add = [&](const char* key, const std::string& value) {
        auto* e = t->add_external_data();
        e->set_key(key);
        e->set_value(value);
      };
      add("location", location);
      add("offset", std::to_string(where.first));
      add("length", std::to_string(where.second));
    }
    TempFile model_tmp(out_path);
    {
      std::ofstream out(model_tmp.path(), std::ios::binary | std::ios::trunc);
      if (!out || !skeleton.SerializeToOstream(&out)) fail_write(out_path);
      out.close();
      if (!out) fail_write(out_path);
    }
    result.bytes_written += skeleton.ByteSizeLong();
    data_tmp.commit();
    model_tmp.commit();
    return result;
  }

  if (head_start && head_start->stop) head_start->stop();  // the weights go inline: not used
  // Inline: one protobuf, written field by field so the weights go straight from the tensors to the
  // file. Protobuf parsers accept fields in any order, so the streamed initializers follow the rest
  // of the graph.
  onnx::GraphProto graph = std::move(*skeleton.mutable_graph());
  skeleton.clear_graph();
  drop_placeholder_inputs(&graph, streamed);
  std::vector<onnx::TensorProto> headers;
  std::vector<uint64_t> entry_sizes;
  uint64_t graph_size = graph.ByteSizeLong();
  for (const auto& s : streamed) {
    headers.push_back(header_of(s));
    const auto& h = headers.back();
    uint64_t n = s.tensor.nbytes();
    uint64_t tensor_size = h.ByteSizeLong() + 1 + CodedOutputStream::VarintSize64(n) + n;
    entry_sizes.push_back(tensor_size);
    graph_size += 1 + CodedOutputStream::VarintSize64(tensor_size) + tensor_size;
  }
  TempFile model_tmp(out_path);
  {
    FileSink out(model_tmp.path(), out_path);
    out.put_message(skeleton);
    out.put_varint(tag(kModelGraphField));
    out.put_varint(graph_size);
    out.put_message(graph);
    uint64_t done = 0;
    for (size_t i = 0; i < streamed.size(); ++i) {
      auto& s = streamed[i];
      uint64_t n = s.tensor.nbytes();
      out.put_varint(tag(kGraphInitializerField));
      out.put_varint(entry_sizes[i]);
      out.put_message(headers[i]);
      out.put_varint(tag(kTensorRawDataField));
      out.put_varint(n);
      deferred::stream_bytes(s.tensor, kChunk, [&](const char* p, size_t k) {
        out.put(p, k);
        report(done += k);
      });
      s.tensor = at::Tensor();  // written: let the memory go
    }
    out.close();
    result.bytes_written = out.written();
  }
  model_tmp.commit();
  return result;
}

}  // namespace t2o::core
