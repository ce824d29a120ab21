#include "commands.hpp"

#include <torch2onnx/core/custom_ops.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

#include <iostream>
#include <map>

namespace t2o::cli {

namespace {

const char* kPluginsHelp =
    "usage: torch2onnx plugins [--json] [--strict] [--plugin-path DIR]... [--enable-pack NAME]...\n"
    "\n"
    "Lists the op packs found (bundled, TORCH2ONNX_PLUGIN_PATH, --plugin-path): file, name,\n"
    "version, ABI and how many ops each registers per opset; then every refused file and why.\n"
    "--enable-pack NAME also loads an optional pack shipped with the program (e.g. com.microsoft).\n"
    "--strict exits with status 1 when any file was refused (to check packs in a build or CI).\n";

const char* origin_name(t2o::registry::Origin o) { return o == t2o::registry::Origin::Bundled ? "bundled" : "user"; }

}  // namespace

void load_plugins(t2o::registry::Registry& registry, const std::vector<std::string>& user_dirs) {
  // Packs declaring a custom-op schema that libtorch cannot parse are refused at load time.
  registry.set_schema_checker(&t2o::core::check_custom_op_schema);
  for (const auto& entry : t2o::registry::plugin_search_path(t2o::registry::executable_dir(), user_dirs))
    registry.load_directory(entry.dir, entry.origin);
}

std::string optional_pack_path(const std::string& name) {
  const std::string exe = t2o::registry::executable_dir();
  auto names = t2o::registry::optional_pack_names(exe);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw UsageError("--enable-pack " + name + ": no optional pack of that name (available: " +
                     (list.empty() ? std::string("none") : list) + ")");
  }
  return t2o::registry::optional_pack_dir(exe, name);
}

void warn_refused(const t2o::registry::Registry& registry) {
  for (const auto& r : registry.refused()) print_warning("skipped plugin " + r.path + ": " + r.reason);
}

int run_plugins(Args& args) {
  bool json = false, strict = false;
  std::vector<std::string> dirs;
  std::string value;
  while (!args.done()) {
    if (args.flag("--help") || args.flag("-h")) {
      std::cout << kPluginsHelp;
      return 0;
    } else if (args.flag("--json")) {
      json = true;
    } else if (args.flag("--strict")) {
      strict = true;
    } else if (args.option("--plugin-path", value)) {
      dirs.push_back(value);
    } else if (args.option("--enable-pack", value)) {
      dirs.push_back(optional_pack_path(value));
    } else {
      throw UsageError("unexpected argument '" + args.peek() + "' (see torch2onnx plugins --help)");
    }
  }
  t2o::registry::Registry registry;
  load_plugins(registry, dirs);

  // ops per (pack, domain, since_opset)
  std::vector<std::map<std::pair<std::string, int64_t>, size_t>> per_pack(registry.plugins().size());
  for (const auto* s : registry.all())
    if (s->plugin_index < per_pack.size()) ++per_pack[s->plugin_index][{s->domain, s->since_opset}];

  if (json) {
    nlohmann::json out;
    out["abi"] = std::to_string(T2O_ABI_MAJOR) + "." + std::to_string(T2O_ABI_MINOR);
    out["plugins"] = nlohmann::json::array();
    for (size_t i = 0; i < registry.plugins().size(); ++i) {
      const auto& p = registry.plugins()[i];
      nlohmann::json ops = nlohmann::json::array();
      for (const auto& [key, n] : per_pack[i])
        ops.push_back({{"domain", key.first}, {"since_opset", key.second}, {"ops", n}});
      out["plugins"].push_back({{"file", p.path}, {"name", p.name}, {"version", p.version},
                                {"abi", std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor)},
                                {"origin", origin_name(p.origin)}, {"format", p.format}, {"symbolics", ops}});
    }
    out["refused"] = nlohmann::json::array();
    for (const auto& r : registry.refused()) out["refused"].push_back({{"file", r.path}, {"reason", r.reason}});
    std::cout << out.dump(2) << std::endl;
    return strict && !registry.refused().empty() ? 1 : 0;
  }
  std::cout << "host plugin ABI " << T2O_ABI_MAJOR << "." << T2O_ABI_MINOR << "\n";
  if (registry.plugins().empty()) std::cout << "no op packs loaded\n";
  for (size_t i = 0; i < registry.plugins().size(); ++i) {
    const auto& p = registry.plugins()[i];
    std::cout << p.name << " " << p.version << "  (ABI " << p.abi_major << "." << p.abi_minor << ", "
              << origin_name(p.origin) << (p.format == "json" ? ", JSON" : "") << ")  " << p.path << "\n";
    for (const auto& [key, n] : per_pack[i])
      std::cout << "    " << (key.first.empty() ? "ai.onnx" : key.first) << " opset " << key.second << ": " << n
                << " op" << (n == 1 ? "" : "s") << "\n";
  }
  if (!registry.refused().empty()) {
    std::cout << "refused:\n";
    for (const auto& r : registry.refused()) std::cout << "  " << r.path << ": " << r.reason << "\n";
  }
  return strict && !registry.refused().empty() ? 1 : 0;
}

}  // namespace t2o::cli
