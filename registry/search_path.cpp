// Where packs are looked for: the bundled directory next to the program (build tree and installed
// tree share the layout bin/ + lib/torch2onnx/plugins/), then TORCH2ONNX_PLUGIN_PATH, then the
// directories given on the command line. The last two are explicit (Origin::UserPath).
#include <torch2onnx/registry.hpp>

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

namespace t2o::registry {

namespace fs = std::filesystem;

std::vector<SearchPath> plugin_search_path(const std::string& executable_dir,
                                           const std::vector<std::string>& user_dirs) {
  std::vector<SearchPath> out;
  fs::path bundled = (fs::path(executable_dir) / ".." / "lib" / "torch2onnx" / "plugins").lexically_normal();
  std::string b = bundled.string();
  while (b.size() > 1 && b.back() == '/') b.pop_back();  // "a/b/" -> "a/b"
  out.push_back(SearchPath{b, Origin::Bundled});

  if (const char* env = std::getenv("TORCH2ONNX_PLUGIN_PATH")) {
#if defined(_WIN32)
    const char sep = ';';
#else
    const char sep = ':';
#endif
    std::string value(env);
    size_t start = 0;
    while (start <= value.size()) {
      size_t end = value.find(sep, start);
      if (end == std::string::npos) end = value.size();
      if (end > start) out.push_back(SearchPath{value.substr(start, end - start), Origin::UserPath});
      start = end + 1;
    }
  }

  for (const auto& d : user_dirs)
    if (!d.empty()) out.push_back(SearchPath{d, Origin::UserPath});
  return out;
}

std::string executable_dir() {
  try {
    boost::dll::fs::error_code ec;
    auto loc = boost::dll::program_location(ec);
    if (!ec && !loc.empty()) return loc.parent_path().string();
  } catch (...) {
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && !self.empty()) return self.parent_path().string();
  return {};
}

}  // namespace t2o::registry

namespace t2o::registry {

std::string optional_pack_dir(const std::string& executable_dir, const std::string& name) {
  return (fs::path(executable_dir) / ".." / "lib" / "torch2onnx" / "optional" / name).lexically_normal().string();
}

std::vector<std::string> optional_pack_names(const std::string& executable_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path root = (fs::path(executable_dir) / ".." / "lib" / "torch2onnx" / "optional").lexically_normal();
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dec;
    if (it->is_directory(dec)) out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace t2o::registry
