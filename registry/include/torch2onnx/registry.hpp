// Plugin discovery, loading (Boost.DLL), ABI negotiation and the symbolic table.
// Never includes libtorch or ONNX headers: it only knows the C ABI of sdk/.
#ifndef TORCH2ONNX_REGISTRY_HPP
#define TORCH2ONNX_REGISTRY_HPP

#include <torch2onnx/plugin.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace t2o::registry {

// Where a pack came from; explicit paths take precedence over bundled packs.
enum class Origin { Bundled, UserPath };

struct PluginInfo {
  std::string path;
  std::string name;
  std::string version;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  Origin origin = Origin::Bundled;
  size_t num_symbolics = 0;
  std::string format = "library";  // "library" (a shared library) or "json" (a declarative pack)
};

struct RefusedPlugin {
  std::string path;
  std::string reason;  // one line, e.g. "ABI 2.0, host speaks 1.0 (major differs)"
};

struct Symbolic {
  std::string op;      // "aten::relu"
  std::string domain;  // "" = default ONNX domain
  int64_t since_opset = 0;
  t2o_symbolic_fn fn = nullptr;
  void* user_data = nullptr;
  uint32_t flags = 0;
  size_t plugin_index = 0;  // into Registry::plugins()
};

struct DeclaredSchema {
  std::string schema;
  size_t plugin_index = 0;
};

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Loads every pack in dir, in name order: shared libraries (*.so / *.dylib / *.dll) and
  // declarative JSON packs (*.json, see json_pack.cpp). A missing dir is skipped silently for
  // Bundled, recorded as refused for UserPath.
  void load_directory(const std::string& dir, Origin origin);
  // load_directory's two steps, for a caller that times them: the pack files of dir in load order
  // (dir itself when it names a file; dir recorded as refused, as load_directory does, when it
  // cannot be read), then load_file on each.
  std::vector<std::string> pack_files(const std::string& dir, Origin origin);
  // Loads one pack (a shared library, or a JSON pack when the name ends in .json). On any problem the file is recorded in refused() and nothing of it is kept.
  // Returns true when the pack was accepted.
  bool load_file(const std::string& path, Origin origin);

  const std::vector<PluginInfo>& plugins() const;
  const std::vector<RefusedPlugin>& refused() const;
  const std::vector<DeclaredSchema>& schemas() const;

  // Checks each declared TorchScript schema while a pack loads; returns "" when the schema is
  // acceptable, else the reason (the pack is then refused). The registry itself only checks the
  // shape of the string; the host installs a real parser (the core's, which knows libtorch).
  using SchemaChecker = std::function<std::string(const std::string& schema)>;
  void set_schema_checker(SchemaChecker checker);

  // Dispatch for (op, domain) and a target opset: the registration with the highest
  // since_opset <= target among those from explicit paths (Origin::UserPath), if any qualifies;
  // otherwise among all. nullptr if there is none.
  const Symbolic* lookup(const std::string& op, const std::string& domain, int64_t target_opset) const;
  // The lowest since_opset registered for (op, domain), if any ("needs --opset M").
  std::optional<int64_t> min_opset(const std::string& op, const std::string& domain) const;
  // The domains under which op has registrations ("" = default domain), sorted.
  std::vector<std::string> domains_of(const std::string& op) const;
  // Every registration, ordered by op, domain, since_opset (for the support matrix).
  std::vector<const Symbolic*> all() const;

  // Registers one symbolic directly (tests, in-process packs). Same rules as a pack's register.
  // Returns an empty string on success, else the reason.
  std::string add(Symbolic symbolic, Origin origin);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The directories to search, in load order: bundled (relative to the executable's directory:
// ../lib/torch2onnx/plugins), then TORCH2ONNX_PLUGIN_PATH entries (':'-separated), then --plugin-path.
struct SearchPath {
  std::string dir;
  Origin origin;
};
std::vector<SearchPath> plugin_search_path(const std::string& executable_dir,
                                           const std::vector<std::string>& user_dirs);

// Optional packs ship with the program but are not loaded by default: each lives in
// ../lib/torch2onnx/optional/<name>/ relative to the executable and is enabled by name
// (torch2onnx --enable-pack <name>), which loads that directory as an explicit path (UserPath).
std::string optional_pack_dir(const std::string& executable_dir, const std::string& name);
std::vector<std::string> optional_pack_names(const std::string& executable_dir);  // sorted

// The directory holding the running executable.
std::string executable_dir();

}  // namespace t2o::registry

#endif  // TORCH2ONNX_REGISTRY_HPP
