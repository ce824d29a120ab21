#include "model_writer.hpp"

#include "torch2onnx/core/exporter.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cstdio>
#include <fstream>
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

// Removes the graph inputs that stand for the streamed tensors.
void drop_placeholder_inputs(onnx::GraphProto* graph, const std::vector<StreamedTensor>& streamed) {
  std::unordered_set<std::string> names;
  for (const auto& s : streamed) names.insert(s.name);
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
  void commit() {
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

}  // namespace

WriteResult write_model(onnx::ModelProto& skeleton, std::vector<StreamedTensor>& streamed, const std::string& out_path,
                        bool force_external, const std::function<void(uint64_t, uint64_t)>& progress) {
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
      std::ofstream data(data_tmp.path(), std::ios::binary | std::ios::trunc);
      if (!data) throw ExportError("cannot create " + data_tmp.path());
      uint64_t offset = 0;
      static const char zeros[64] = {0};
      for (auto& s : streamed) {
        uint64_t pad = (64 - offset % 64) % 64;
        data.write(zeros, (std::streamsize)pad);
        offset += pad;
        const char* p = static_cast<const char*>(s.tensor.data_ptr());
        uint64_t n = s.tensor.nbytes();
        placed[s.name] = {offset, n};
        for (uint64_t done = 0; done < n; done += kChunk) {
          data.write(p + done, (std::streamsize)std::min(kChunk, n - done));
          report(offset + done);
        }
        offset += n;
        s.tensor = at::Tensor();  // written: let the memory go
        if (!data) fail_write(result.data_path);
      }
      data.close();
      if (!data) fail_write(result.data_path);
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
    std::ofstream out(model_tmp.path(), std::ios::binary | std::ios::trunc);
    if (!out) throw ExportError("cannot create " + model_tmp.path());
    {
      google::protobuf::io::OstreamOutputStream raw(&out);
      CodedOutputStream coded(&raw);
      skeleton.SerializeToCodedStream(&coded);
      coded.WriteTag(tag(kModelGraphField));
      coded.WriteVarint64(graph_size);
      graph.SerializeToCodedStream(&coded);
      uint64_t done = 0;
      for (size_t i = 0; i < streamed.size(); ++i) {
        auto& s = streamed[i];
        const char* p = static_cast<const char*>(s.tensor.data_ptr());
        uint64_t n = s.tensor.nbytes();
        coded.WriteTag(tag(kGraphInitializerField));
        coded.WriteVarint64(entry_sizes[i]);
        headers[i].SerializeToCodedStream(&coded);
        coded.WriteTag(tag(kTensorRawDataField));
        coded.WriteVarint64(n);
        for (uint64_t off = 0; off < n; off += kChunk) {
          coded.WriteRaw(p + off, (int)std::min(kChunk, n - off));
          report(done + off);
        }
        done += n;
        s.tensor = at::Tensor();
      }
      if (coded.HadError()) fail_write(out_path);
      result.bytes_written = (uint64_t)coded.ByteCount();
    }
    out.close();
    if (!out) fail_write(out_path);
  }
  model_tmp.commit();
  return result;
}

}  // namespace t2o::core
