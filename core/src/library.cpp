// The library entry points of torch2onnx/torch2onnx.hpp that are not the exporter's own.
#include "torch2onnx/torch2onnx.hpp"

#include "torch2onnx/core/custom_ops.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace t2o {

namespace core {

// The directory of the binary that holds this code: lib/ for the torch2onnx program's command library
// libtorch2onnx_cli.so (which links the core statically) and for libtorch2onnx_core.so, bin/ for a
// program linking the core itself. Bundled packs and kernel libraries are found from
// here, so the program and the library each find their own installation (or build tree).
std::string core_binary_dir() {
  // For code in the main program, dladdr names it as argv[0] (maybe a bare name found on PATH): the
  // program's own path is better asked of the system.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&core_binary_dir), &info) && info.dli_fname &&
      std::strchr(info.dli_fname, '/')) {
    std::error_code ec, self_ec;
    auto path = std::filesystem::canonical(info.dli_fname, ec);
    auto self = std::filesystem::canonical("/proc/self/exe", self_ec);
    if (!ec && (self_ec || path != self)) return path.parent_path().string();
  }
  return t2o::registry::executable_dir();
}

}  // namespace core

std::unique_ptr<Registry> load_packs(const std::vector<std::string>& plugin_paths, bool bundled) {
  auto packs = std::make_unique<Registry>();
  // Packs declaring a custom-op schema that libtorch cannot parse are refused at load time.
  packs->set_schema_checker(&core::check_custom_op_schema);
  // plugin_search_path() looks in DIR/../lib/torch2onnx/plugins: from bin/ and from lib/ alike.
  for (const auto& entry : registry::plugin_search_path(core::core_binary_dir(), plugin_paths)) {
    if (!bundled && entry.origin == registry::Origin::Bundled) continue;
    packs->load_directory(entry.dir, entry.origin);
  }
  return packs;
}

std::string optional_pack(const std::string& name) {
  const std::string dir = core::core_binary_dir();
  auto names = registry::optional_pack_names(dir);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw ExportError("optional pack " + name + ": none of that name (available: " +
                      (list.empty() ? std::string("none") : list) + ")");
  }
  return registry::optional_pack_dir(dir, name);
}

const char* library_version() { return T2O_VERSION_STRING; }

}  // namespace t2o
