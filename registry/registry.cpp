// The registry: the symbolic table, its dispatch, and the loading of op packs.
//
// RULES (the contract the rest of torch2onnx relies on)
//
// Loading a pack (load_file). Each step refuses the pack with a one-line reason in refused(); the
// registry never throws out of load_file/load_directory and keeps nothing of a refused pack:
//  1. the file must exist and dlopen (Boost.DLL, rtld_now | rtld_local) must accept it
//     (the reason carries dlerror's message);
//  2. it must export T2O_ENTRY_SYMBOL_NAME ("t2o_plugin_entry"), and the entry must return non-NULL;
//  3. descriptor: struct_size must cover abi_major/abi_minor; abi_major must equal T2O_ABI_MAJOR
//     ("built for ABI 2.0, host speaks 1.0 (major differs)"). Any minor is accepted: a pack built
//     for a newer minor than the host's must check host->struct_size (T2O_HAS_MEMBER) before using
//     a member the host may not have, and the C++ wrapper does. Then struct_size must cover the
//     whole 1.0 descriptor and register_symbolics must be set;
//  4. register_symbolics must return T2O_OK (the reason includes the message the pack gave via
//     set_error), and every registration must be valid: non-NULL op and fn, op qualified
//     ("ns::name"), since_opset >= 1, no (op, domain, since_opset) twice within the pack; every
//     declared schema must be non-empty and contain "::" and "(", and pass the schema checker
//     the host installed (the core's TorchScript schema parser). A registration the host
//     rejected refuses the pack even if the pack ignores the status and returns T2O_OK.
//  5. Registration is transactional: everything is staged, checked against the table, and
//     committed only if the whole pack is acceptable.
//  A file already loaded (same canonical path, or the same library reached by another name) is
//  refused as "already loaded"; the first load stays.
//  A file named *.json is a declarative pack (json_pack.cpp): parsed and validated instead of
//  dlopened, then steps 4-5 as for a library.
//  Libraries are never unloaded, refused ones included: every handle goes into a container that is
//  intentionally never destroyed, so no pack is unmapped at exit while something may point into it.
//
// Precedence for the same key (op, domain, since_opset) registered by two packs (or by add()):
//  - explicit over bundled: a UserPath registration replaces a Bundled one, whatever the load order
//    (a Bundled registration arriving after a UserPath one for the same key is shadowed: the pack is
//    accepted, the UserPath symbolic stays);
//  - same origin: the later registration replaces the earlier one only if it sets
//    T2O_SYMBOLIC_OVERRIDE; otherwise the later pack is refused as a whole, with a reason naming
//    both files (add() returns that reason and changes nothing).
//  Registrations for different since_opset values never conflict: they are versions of one op.
//
// Dispatch (lookup): for (op, domain), the registration with the highest since_opset <= target
// among the explicit (UserPath) registrations if one of them qualifies, else among all: a pack on
// --plugin-path that registers aten::gelu at 9 wins at every target >= 9, even where a bundled
// pack has a later version (explicit paths over bundled packs).
// The domain "ai.onnx" is the default domain and is stored as "".
// The table is a hash map from (op, domain) to a vector sorted by since_opset: a lookup is one hash
// plus a binary search; an insertion is one hash plus an insertion into a small vector.
#include <torch2onnx/registry.hpp>

#include "json_pack.hpp"

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#if !defined(_WIN32)
#include <dlfcn.h>
#endif

namespace t2o::registry {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// small helpers

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string abi_string(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string normalize_domain(const std::string& domain) { return domain == "ai.onnx" ? std::string() : domain; }

// (op, domain) as one hash key; '\0' cannot occur in either (validated).
std::string table_key(const std::string& op, const std::string& domain) {
  std::string k;
  k.reserve(op.size() + 1 + domain.size());
  k += op;
  k += '\0';
  k += domain;
  return k;
}

std::string describe(const std::string& op, const std::string& domain, int64_t since) {
  return op + " (domain " + (domain.empty() ? std::string("default") : "'" + domain + "'") + ", since opset " +
         std::to_string(since) + ")";
}

bool has_bad_char(const std::string& s) {
  for (unsigned char c : s)
    if (c <= ' ' || c == 0x7f) return true;
  return false;
}

// Returns the reason a registration is invalid, or "" when it is fine.
std::string validate(const Symbolic& s) {
  if (s.op.empty()) return "registration with an empty op name";
  auto sep = s.op.find("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 >= s.op.size())
    return "op '" + s.op + "' is not qualified (expected namespace::name)";
  if (has_bad_char(s.op)) return "op '" + one_line(s.op) + "' contains whitespace or control characters";
  if (has_bad_char(s.domain)) return "domain '" + one_line(s.domain) + "' of " + s.op + " contains whitespace or control characters";
  if (s.fn == nullptr) return describe(s.op, s.domain, s.since_opset) + ": NULL symbolic function";
  if (s.since_opset < 1) return describe(s.op, s.domain, s.since_opset) + ": since_opset must be >= 1";
  return {};
}

std::string validate_schema(const char* schema) {
  if (schema == nullptr || schema[0] == '\0') return "empty schema string declared";
  std::string s(schema);
  if (s.find("::") == std::string::npos || s.find('(') == std::string::npos)
    return "malformed schema '" + one_line(s) + "' (expected 'namespace::name(args) -> returns')";
  return {};
}

// Every library ever loaded: intentionally leaked, so never unloaded (not even at exit).
struct LoadedLibraries {
  std::mutex mutex;
  std::vector<boost::dll::shared_library> libraries;
};
LoadedLibraries& loaded_libraries() {
  static LoadedLibraries* libs = new LoadedLibraries();
  return *libs;
}

// ---------------------------------------------------------------------------------------------
// the registrar handed to a pack's register_symbolics

struct Registrar {
  const Registry::SchemaChecker* schema_checker = nullptr;
  std::vector<Symbolic> staged;
  std::unordered_set<std::string> staged_keys;  // table_key + since
  std::vector<std::string> schemas;
  std::string pack_message;  // what the pack said through set_error
  std::string rejection;     // the first registration the host rejected

  t2o_status reject(std::string why) {
    if (rejection.empty()) rejection = one_line(std::move(why));
    return T2O_ERROR;
  }
};

Registrar* as_registrar(t2o_registrar* raw) { return reinterpret_cast<Registrar*>(raw); }

t2o_status registrar_register_symbolic(t2o_registrar* raw, const t2o_symbolic_desc* desc) noexcept {
  Registrar* r = as_registrar(raw);
  if (r == nullptr) return T2O_ERROR;
  try {
    if (desc == nullptr) return r->reject("register_symbolic called with a NULL descriptor");
    constexpr size_t needed = offsetof(t2o_symbolic_desc, flags) + sizeof(desc->flags);
    if (desc->struct_size < needed)
      return r->reject("t2o_symbolic_desc struct_size " + std::to_string(desc->struct_size) + " is smaller than " +
                       std::to_string(needed));
    if (desc->op == nullptr) return r->reject("registration with a NULL op name");
    Symbolic s;
    s.op = desc->op;
    s.domain = normalize_domain(desc->domain ? desc->domain : "");
    s.since_opset = desc->since_opset;
    s.fn = desc->fn;
    s.user_data = desc->user_data;
    s.flags = desc->flags;
    std::string why = validate(s);
    if (!why.empty()) return r->reject(why);
    std::string key = table_key(s.op, s.domain) + '\0' + std::to_string(s.since_opset);
    if (!r->staged_keys.insert(key).second)
      return r->reject("duplicate registration of " + describe(s.op, s.domain, s.since_opset) + " within the pack");
    r->staged.push_back(std::move(s));
    return T2O_OK;
  } catch (...) {
    return r->reject("host error while registering (out of memory?)");
  }
}

t2o_status registrar_declare_schema(t2o_registrar* raw, const char* schema) noexcept {
  Registrar* r = as_registrar(raw);
  if (r == nullptr) return T2O_ERROR;
  try {
    std::string why = validate_schema(schema);
    if (!why.empty()) return r->reject(why);
    if (r->schema_checker && *r->schema_checker) {
      why = (*r->schema_checker)(schema);
      if (!why.empty()) return r->reject("schema '" + one_line(schema) + "' does not parse: " + one_line(why));
    }
    r->schemas.emplace_back(schema);
    return T2O_OK;
  } catch (...) {
    return r->reject("host error while declaring a schema (out of memory?)");
  }
}

void registrar_set_error(t2o_registrar* raw, const char* message) noexcept {
  Registrar* r = as_registrar(raw);
  if (r == nullptr) return;
  try {
    r->pack_message = one_line(message ? message : "");
  } catch (...) {
  }
}

const t2o_registrar_api& registrar_api() {
  static const t2o_registrar_api api = {sizeof(t2o_registrar_api), T2O_ABI_MAJOR, T2O_ABI_MINOR,
                                        &registrar_register_symbolic, &registrar_declare_schema,
                                        &registrar_set_error};
  return api;
}

std::string dlopen_error(const std::string& path, const boost::dll::fs::error_code& ec) {
#if !defined(_WIN32)
  if (const char* e = ::dlerror()) return one_line(e);
  // Boost may have cleared the message: ask the loader again (it fails the same way).
  if (void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    ::dlclose(h);
  } else if (const char* e2 = ::dlerror()) {
    return one_line(e2);
  }
#else
  (void)path;
#endif
  return one_line(ec ? ec.message() : std::string("unknown error"));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Registry::Impl

struct Registry::Impl {
  struct Entry {
    Symbolic symbolic;
    Origin origin = Origin::Bundled;
    std::string source;  // the pack's path, or "<in-process>"
  };

  std::vector<PluginInfo> plugins;
  std::vector<RefusedPlugin> refused;
  std::vector<DeclaredSchema> schemas;
  std::deque<Entry> entries;  // stable addresses; lookup hands out pointers into it
  std::unordered_map<std::string, std::vector<Entry*>> table;  // (op, domain) -> sorted by since_opset
  std::unordered_map<std::string, std::string> loaded_paths;  // canonical path -> path (accepted packs)
  std::unordered_map<const void*, std::string> loaded_descriptors;  // descriptor -> path
  Registry::SchemaChecker schema_checker;
  std::unordered_map<std::string, std::map<std::string, size_t>> domains_by_op;  // op -> domain -> count

  enum class Action { Insert, Replace, Shadowed, Conflict };
  struct Decision {
    Action action = Action::Insert;
    Entry* existing = nullptr;
  };

  Entry* find_exact(const std::string& op, const std::string& domain, int64_t since) {
    auto it = table.find(table_key(op, domain));
    if (it == table.end()) return nullptr;
    auto& v = it->second;
    auto pos = std::lower_bound(v.begin(), v.end(), since,
                                [](const Entry* e, int64_t s) { return e->symbolic.since_opset < s; });
    return (pos != v.end() && (*pos)->symbolic.since_opset == since) ? *pos : nullptr;
  }

  Decision decide(const Symbolic& s, Origin origin) {
    Decision d;
    d.existing = find_exact(s.op, s.domain, s.since_opset);
    if (d.existing == nullptr) d.action = Action::Insert;
    else if (origin == Origin::UserPath && d.existing->origin == Origin::Bundled) d.action = Action::Replace;
    else if (origin == Origin::Bundled && d.existing->origin == Origin::UserPath) d.action = Action::Shadowed;
    else if (s.flags & T2O_SYMBOLIC_OVERRIDE) d.action = Action::Replace;
    else d.action = Action::Conflict;
    return d;
  }

  static std::string conflict_reason(const Symbolic& s, const std::string& source, const Entry& existing) {
    return describe(s.op, s.domain, s.since_opset) + " from " + source + " is already registered by " +
           existing.source + " (same origin; set T2O_SYMBOLIC_OVERRIDE to replace it)";
  }

  void apply(Symbolic s, Origin origin, const std::string& source, const Decision& d) {
    switch (d.action) {
      case Action::Insert: {
        entries.push_back(Entry{std::move(s), origin, source});
        Entry* e = &entries.back();
        auto& v = table[table_key(e->symbolic.op, e->symbolic.domain)];
        auto pos = std::upper_bound(v.begin(), v.end(), e->symbolic.since_opset,
                                    [](int64_t since, const Entry* x) { return since < x->symbolic.since_opset; });
        v.insert(pos, e);
        ++domains_by_op[e->symbolic.op][e->symbolic.domain];
        break;
      }
      case Action::Replace:
        d.existing->symbolic = std::move(s);
        d.existing->origin = origin;
        d.existing->source = source;
        break;
      case Action::Shadowed:
      case Action::Conflict:
        break;
    }
  }

  void refuse(const std::string& path, const std::string& reason) {
    try {
      refused.push_back(RefusedPlugin{path, one_line(reason)});
    } catch (...) {
    }
  }

  bool load_file(const std::string& path, Origin origin);
  bool load_json(const std::string& path, const std::string& canonical, Origin origin);
  bool commit(Registrar& reg, PluginInfo info, Origin origin, const std::string& path, const std::string& canonical,
              const void* descriptor);
  std::vector<std::string> pack_files(const std::string& dir, Origin origin);
  void load_directory(const std::string& dir, Origin origin);
};

bool Registry::Impl::load_file(const std::string& path_in, Origin origin) {
  std::error_code ec;
  fs::path p(path_in);
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  abs = abs.lexically_normal();
  const std::string path = abs.string();
  const std::string file = abs.filename().string();
  auto fail = [&](const std::string& why) {
    refuse(path, file + ": " + why);
    return false;
  };

  auto st = fs::status(abs, ec);
  if (!fs::exists(st)) return fail("no such file");
  if (fs::is_directory(st)) return fail("is a directory, not a plugin file");

  std::string canonical = fs::canonical(abs, ec).string();
  if (ec) canonical = path;
  if (auto it = loaded_paths.find(canonical); it != loaded_paths.end())
    return fail("already loaded as " + it->second + "; ignored");
  if (abs.extension() == ".json") return load_json(path, canonical, origin);

  // 1. dlopen. Kept loaded for the life of the process, whatever happens next.
  boost::dll::shared_library lib;
  {
    boost::dll::fs::error_code bec;
#if !defined(_WIN32)
    ::dlerror();  // clear any stale message
#endif
    lib.load(boost::dll::fs::path(path), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, bec);
    if (bec || !lib.is_loaded()) return fail("cannot be loaded: " + dlopen_error(path, bec));
  }
  {
    auto& libs = loaded_libraries();
    std::lock_guard<std::mutex> lock(libs.mutex);
    libs.libraries.push_back(lib);  // a second reference: this one is never released
  }

  // 2. the entry symbol and the descriptor.
  if (!lib.has(T2O_ENTRY_SYMBOL_NAME))
    return fail("no " T2O_ENTRY_SYMBOL_NAME " symbol exported (not a torch2onnx op pack)");
  auto& entry = lib.get<const t2o_plugin_descriptor*()>(T2O_ENTRY_SYMBOL_NAME);
  const t2o_plugin_descriptor* desc = nullptr;
  try {
    desc = entry();
  } catch (...) {
    return fail(T2O_ENTRY_SYMBOL_NAME " threw a C++ exception");
  }
  if (desc == nullptr) return fail(T2O_ENTRY_SYMBOL_NAME " returned NULL");

  // 3. ABI negotiation.
  constexpr size_t version_end = offsetof(t2o_plugin_descriptor, abi_minor) + sizeof(uint32_t);
  if (desc->struct_size < version_end)
    return fail("descriptor struct_size " + std::to_string(desc->struct_size) + " is too small (at least " +
                std::to_string(version_end) + " expected)");
  const std::string host_abi = abi_string(T2O_ABI_MAJOR, T2O_ABI_MINOR);
  const std::string pack_abi = abi_string(desc->abi_major, desc->abi_minor);
  if (desc->abi_major != T2O_ABI_MAJOR)
    return fail("built for ABI " + pack_abi + ", host speaks " + host_abi + " (major differs)");
  // A newer minor is accepted: members it relies on beyond the host's are checked by the pack
  // against host->struct_size / api->struct_size.
  if (desc->struct_size < sizeof(t2o_plugin_descriptor))
    return fail("descriptor struct_size " + std::to_string(desc->struct_size) + " is smaller than " +
                std::to_string(sizeof(t2o_plugin_descriptor)) + " (ABI " + pack_abi + ")");
  if (desc->register_symbolics == nullptr) return fail("descriptor has no register_symbolics function");
  if (auto it = loaded_descriptors.find(desc); it != loaded_descriptors.end())
    return fail("same library as " + it->second + ", already loaded; ignored");

  PluginInfo info;
  info.path = path;
  info.name = (desc->name && desc->name[0]) ? one_line(desc->name) : abs.stem().string();
  info.version = desc->version ? one_line(desc->version) : std::string();
  info.abi_major = desc->abi_major;
  info.abi_minor = desc->abi_minor;
  info.origin = origin;

  // 4. registration, staged.
  Registrar reg;
  reg.schema_checker = &schema_checker;
  t2o_status status = T2O_ERROR;
  try {
    status = desc->register_symbolics(&registrar_api(), reinterpret_cast<t2o_registrar*>(&reg));
  } catch (...) {
    return fail("register_symbolics threw a C++ exception across the C ABI");
  }
  if (status != T2O_OK) {
    std::string why = "register_symbolics failed (status " + std::to_string(status) + ")";
    if (!reg.pack_message.empty()) why += ": " + reg.pack_message;
    if (!reg.rejection.empty()) why += (reg.pack_message.empty() ? ": " : "; ") + std::string("rejected: ") + reg.rejection;
    if (reg.pack_message.empty() && reg.rejection.empty()) why += " without a message";
    return fail(why);
  }
  if (!reg.rejection.empty()) return fail("rejected registration: " + reg.rejection);
  return commit(reg, std::move(info), origin, path, canonical, desc);
}

bool Registry::Impl::load_json(const std::string& path, const std::string& canonical, Origin origin) {
  const std::string file = fs::path(path).filename().string();
  json_pack::Parsed parsed = json_pack::parse_file(path);
  if (!parsed.error.empty()) {
    refuse(path, file + ": " + parsed.error);
    return false;
  }
  Registrar reg;
  reg.schema_checker = &schema_checker;
  for (const auto& schema : parsed.schemas) registrar_declare_schema(reinterpret_cast<t2o_registrar*>(&reg), schema.c_str());
  for (const auto& s : parsed.symbolics) {
    std::string why = validate(s);
    if (!why.empty()) {
      reg.reject(why);
      break;
    }
    std::string key = table_key(s.op, s.domain) + '\0' + std::to_string(s.since_opset);
    if (!reg.staged_keys.insert(key).second) {
      reg.reject("duplicate registration of " + describe(s.op, s.domain, s.since_opset) + " within the pack");
      break;
    }
    reg.staged.push_back(s);
  }
  if (!reg.rejection.empty()) {
    refuse(path, file + ": rejected registration: " + reg.rejection);
    return false;
  }
  PluginInfo info;
  info.path = path;
  info.name = one_line(parsed.name);
  info.version = one_line(parsed.version);
  info.abi_major = T2O_ABI_MAJOR;
  info.abi_minor = T2O_ABI_MINOR;
  info.origin = origin;
  info.format = "json";
  return commit(reg, std::move(info), origin, path, canonical, nullptr);
}

bool Registry::Impl::commit(Registrar& reg, PluginInfo info, Origin origin, const std::string& path,
                            const std::string& canonical, const void* desc) {
  const std::string file = fs::path(path).filename().string();
  auto fail = [&](const std::string& why) {
    refuse(path, file + ": " + why);
    return false;
  };
  // 5. check against the table, then commit all or nothing.
  std::vector<Decision> decisions;
  decisions.reserve(reg.staged.size());
  size_t conflicts = 0;
  std::string first_conflict;
  for (const auto& s : reg.staged) {
    Decision d = decide(s, origin);
    if (d.action == Action::Conflict && conflicts++ == 0) first_conflict = conflict_reason(s, path, *d.existing);
    decisions.push_back(d);
  }
  if (conflicts > 0) {
    if (conflicts > 1) first_conflict += " (and " + std::to_string(conflicts - 1) + " more)";
    return fail(first_conflict);
  }

  const size_t index = plugins.size();
  info.num_symbolics = reg.staged.size();
  plugins.push_back(std::move(info));
  for (size_t i = 0; i < reg.staged.size(); ++i) {
    reg.staged[i].plugin_index = index;
    apply(std::move(reg.staged[i]), origin, path, decisions[i]);
  }
  for (auto& schema : reg.schemas) schemas.push_back(DeclaredSchema{std::move(schema), index});
  loaded_paths.emplace(canonical, path);
  if (desc) loaded_descriptors.emplace(desc, path);
  return true;
}

std::vector<std::string> Registry::Impl::pack_files(const std::string& dir, Origin origin) {
  std::error_code ec;
  fs::path d(dir);
  auto st = fs::status(d, ec);
  if (!fs::exists(st)) {
    if (origin == Origin::UserPath) refuse(dir, dir + ": plugin directory does not exist");
    return {};
  }
  if (fs::is_regular_file(st)) return {dir};  // a pack named directly
  if (!fs::is_directory(st)) {
    refuse(dir, dir + ": neither a directory nor a file");
    return {};
  }
  std::vector<fs::path> files;
  fs::directory_iterator it(d, ec), end;
  if (ec) {
    refuse(dir, dir + ": cannot read directory: " + ec.message());
    return {};
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      refuse(dir, dir + ": error while reading directory: " + ec.message());
      break;
    }
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    const std::string ext = it->path().extension().string();
    if (ext == ".so" || ext == ".dylib" || ext == ".dll" || ext == ".json") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.string());
  return out;
}

void Registry::Impl::load_directory(const std::string& dir, Origin origin) {
  for (const auto& f : pack_files(dir, origin)) load_file(f, origin);
}

// ---------------------------------------------------------------------------------------------
// Registry

Registry::Registry() : impl_(std::make_unique<Impl>()) {}
Registry::~Registry() = default;

void Registry::load_directory(const std::string& dir, Origin origin) {
  try {
    impl_->load_directory(dir, origin);
  } catch (const std::exception& e) {
    impl_->refuse(dir, dir + ": internal error: " + e.what());
  } catch (...) {
    impl_->refuse(dir, dir + ": internal error");
  }
}

std::vector<std::string> Registry::pack_files(const std::string& dir, Origin origin) {
  try {
    return impl_->pack_files(dir, origin);
  } catch (const std::exception& e) {
    impl_->refuse(dir, dir + ": internal error: " + e.what());
  } catch (...) {
    impl_->refuse(dir, dir + ": internal error");
  }
  return {};
}

bool Registry::load_file(const std::string& path, Origin origin) {
  try {
    return impl_->load_file(path, origin);
  } catch (const std::exception& e) {
    impl_->refuse(path, path + ": internal error: " + e.what());
  } catch (...) {
    impl_->refuse(path, path + ": internal error");
  }
  return false;
}

const std::vector<PluginInfo>& Registry::plugins() const { return impl_->plugins; }
const std::vector<RefusedPlugin>& Registry::refused() const { return impl_->refused; }
const std::vector<DeclaredSchema>& Registry::schemas() const { return impl_->schemas; }

const Symbolic* Registry::lookup(const std::string& op, const std::string& domain, int64_t target_opset) const {
  auto it = impl_->table.find(table_key(op, normalize_domain(domain)));
  if (it == impl_->table.end()) return nullptr;
  const auto& v = it->second;
  auto pos = std::upper_bound(v.begin(), v.end(), target_opset,
                              [](int64_t t, const Impl::Entry* e) { return t < e->symbolic.since_opset; });
  if (pos == v.begin()) return nullptr;
  // Explicit over bundled: the highest qualifying UserPath registration, if any.
  for (auto p = pos; p != v.begin(); --p)
    if ((*(p - 1))->origin == Origin::UserPath) return &(*(p - 1))->symbolic;
  return &(*(pos - 1))->symbolic;
}

std::vector<std::string> Registry::domains_of(const std::string& op) const {
  std::vector<std::string> out;
  auto it = impl_->domains_by_op.find(op);
  if (it != impl_->domains_by_op.end())
    for (const auto& entry : it->second) out.push_back(entry.first);
  return out;
}

void Registry::set_schema_checker(SchemaChecker checker) { impl_->schema_checker = std::move(checker); }

std::optional<int64_t> Registry::min_opset(const std::string& op, const std::string& domain) const {
  auto it = impl_->table.find(table_key(op, normalize_domain(domain)));
  if (it == impl_->table.end() || it->second.empty()) return std::nullopt;
  return it->second.front()->symbolic.since_opset;
}

std::vector<const Symbolic*> Registry::all() const {
  std::vector<const Symbolic*> out;
  out.reserve(impl_->entries.size());
  for (const auto& e : impl_->entries) out.push_back(&e.symbolic);
  std::sort(out.begin(), out.end(), [](const Symbolic* a, const Symbolic* b) {
    if (a->op != b->op) return a->op < b->op;
    if (a->domain != b->domain) return a->domain < b->domain;
    return a->since_opset < b->since_opset;
  });
  return out;
}

std::string Registry::add(Symbolic symbolic, Origin origin) {
  try {
    symbolic.domain = normalize_domain(symbolic.domain);
    if (symbolic.op.find('\0') != std::string::npos || symbolic.domain.find('\0') != std::string::npos)
      return "op or domain contains a NUL character";
    std::string why = validate(symbolic);
    if (!why.empty()) return why;
    const std::string source = symbolic.plugin_index < impl_->plugins.size()
                                   ? impl_->plugins[symbolic.plugin_index].path
                                   : std::string("<in-process>");
    Impl::Decision d = impl_->decide(symbolic, origin);
    if (d.action == Impl::Action::Conflict) return Impl::conflict_reason(symbolic, source, *d.existing);
    impl_->apply(std::move(symbolic), origin, source, d);
    return {};
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what();
  } catch (...) {
    return "internal error";
  }
}

}  // namespace t2o::registry
