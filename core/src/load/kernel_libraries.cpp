// Kernel libraries loaded before the model: see kernel_libraries.hpp.
#include "load/kernel_libraries.hpp"

#include "load/model_loader.hpp"
#include "torch2onnx/core/exporter.hpp"

#include <torch2onnx/registry.hpp>

#include <dlfcn.h>
#include <elf.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

namespace t2o::core {

namespace {

// The libraries found automatically. Adding one is one line here.
const DefaultKernelLibrary kDefaultKernelLibraries[] = {
    // torch2onnx's own: the torch.onnx.ops ops (onnx_symbolic::*, onnx::RotaryEmbedding/Attention), ops/.
    {"torch2onnx_ops", "lib/libtorch2onnx_ops.so"},
    // torch2onnx's own: the ops PyTorch 2.x writes into TorchScript and libtorch 1.13 lacks
    // (scaled_dot_product_attention, rms_norm, squeeze.dims, …), compat/.
    {"torch2onnx_compat", "lib/libtorch2onnx_compat.so"},
    // torchvision's C++ ops (nms, roi_align, roi_pool, ps_roi_*, deform_conv2d) with CPU kernels, as
    // Debian's python3-torchvision installs them (its _C extension has no Python symbols).
    {"torchvision", "/usr/lib/python3/dist-packages/torchvision/_C*.so"},
};

std::mutex mutex;
std::atomic<bool> probe_defaults{true};                // set_default_kernel_library_probe
std::vector<std::string> loaded;                      // paths as given, in load order
std::set<std::pair<dev_t, ino_t>> loaded_files;       // the same file under another name is the same library

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The parent of the directory of the binary holding the core: of lib/ for the program's command
// library (libtorch2onnx_cli.so) and for libtorch2onnx_core.so, of bin/ for a program linking the core
// statically (library.cpp).
std::string install_prefix() {
  std::string dir = core_binary_dir();
  if (dir.empty()) return {};
  return std::filesystem::path(dir).parent_path().string();
}

std::string first_match(const std::string& pattern) {
  glob_t found{};
  std::string match;
  if (glob(pattern.c_str(), 0, nullptr, &found) == 0 && found.gl_pathc > 0) match = found.gl_pathv[0];
  globfree(&found);
  return match;
}

// Says why `path` is not a loadable shared library, "" if it looks like one.
std::string not_a_library(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be opened for reading";
  unsigned char header[EI_NIDENT + 2] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  if (in.gcount() < (std::streamsize)sizeof header || std::memcmp(header, ELFMAG, SELFMAG) != 0)
    return "not a shared library (no ELF header)";
  // e_type follows e_ident; the host is little-endian x86-64/aarch64 (dlopen reports other mismatches).
  uint16_t type = uint16_t(header[EI_NIDENT] | (header[EI_NIDENT + 1] << 8));
  if (type == ET_REL) return "an object file (.o), not a shared library";
  if (type != ET_DYN) return "not a shared library (an ELF executable or core file)";
  return {};
}

// Loads `file` in a forked child. "" when the child loads it (or fails the way dlopen reports, which
// the parent then reports itself); otherwise the reason the child died, from what it printed.
std::string probe_in_child(const std::string& file) {
  int out[2];
  if (pipe(out) != 0) return {};
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return {};  // cannot probe: load directly
  }
  if (pid == 0) {
    struct rlimit no_core {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // an abort here is expected: no core dump of a libtorch process
    dup2(out[1], 2);
    close(out[0]);
    close(out[1]);
    try {
      void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
      _exit(handle ? 0 : 3);
    } catch (const std::exception& e) {
      // Some unwinders carry the exception out of dlopen; others call std::terminate (below).
      std::string line = std::string("\nwhat():  ") + e.what() + "\n";
      ssize_t ignored = write(2, line.data(), line.size());
      (void)ignored;
      _exit(4);
    } catch (...) {
      _exit(4);
    }
  }
  close(out[1]);
  std::string printed;
  char buffer[4096];
  for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (printed.size() < (1u << 20)) printed.append(buffer, size_t(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // 0: loaded; 3: dlopen failed (the parent's own dlopen then says why).
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3)) return {};
  // std::terminate printed "terminate called after throwing ...\n  what():  <c10 message>".
  auto what = printed.find("what():");
  if (what != std::string::npos) {
    std::string message = printed.substr(what + 7);
    message.erase(0, message.find_first_not_of(' '));
    message = one_line(error_reason(message));
    // c10 appends where the first registration was made: keep the sentence that names the op.
    auto registered = message.find(" Each overload");
    if (registered != std::string::npos) message = message.substr(0, registered);
    return message;
  }
  return WIFSIGNALED(status) ? std::string("loading it crashed (") + strsignal(WTERMSIG(status)) + ")"
                             : std::string("loading it failed");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> default_kernel_libraries() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string prefix = install_prefix();
  for (const auto& lib : kDefaultKernelLibraries) {
    std::string pattern = lib.pattern;
    if (!pattern.empty() && pattern[0] != '/') {
      if (prefix.empty()) continue;
      pattern = prefix + "/" + pattern;
    }
    std::string path = first_match(pattern);
    if (!path.empty()) out.emplace_back(lib.name, path);
  }
  return out;
}

void set_default_kernel_library_probe(bool probe) { probe_defaults = probe; }

void load_kernel_library(const std::string& path, bool probe) {
  const std::string where = "kernel library " + path;
  struct stat st {};
  if (path.empty()) throw ExportError("--load-library: empty path");
  if (stat(path.c_str(), &st) != 0) throw ExportError(where + ": no such file");
  if (S_ISDIR(st.st_mode)) throw ExportError(where + ": is a directory, not a shared library");
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded_files.count({st.st_dev, st.st_ino})) return;
  std::string why = not_a_library(path);
  if (!why.empty()) throw ExportError(where + ": " + why);
  // dlopen takes a name without '/' as a search in the library path; the user meant this file.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // The library's static initialisers register its ops. A registration that clashes with one
  // already made (an op defined twice, e.g. by a second copy of a library) throws c10::Error out of
  // a static initialiser, which no caller can catch: the process aborts. So the load is tried first
  // in a child process, which inherits the registrations made so far.
  std::string clash = probe ? probe_in_child(file) : std::string();
  if (!clash.empty()) throw ExportError(where + ": its op registrations clash with ops already registered: " + clash);
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* reason = dlerror();
    std::string text = reason ? one_line(reason) : std::string("unknown reason");
    // dlerror repeats the path first; keep only the reason.
    if (text.rfind(file + ": ", 0) == 0) text = text.substr(file.size() + 2);
    throw ExportError(where + ": cannot be loaded: " + text);
  }
  // Never closed: the registered kernels live as long as the process.
  loaded_files.insert({st.st_dev, st.st_ino});
  loaded.push_back(path);
}

void load_kernel_libraries(const std::vector<std::string>& paths, bool defaults,
                           const std::function<void(const std::string&)>& warn) {
  if (defaults)
    for (const auto& [name, path] : default_kernel_libraries()) {
      try {
        load_kernel_library(path, probe_defaults);
      } catch (const ExportError& e) {
        if (warn) warn(std::string(e.what()) + " (default " + name + " kernels; going on without them)");
      }
    }
  for (const auto& path : paths) load_kernel_library(path);
}

std::vector<std::string> loaded_kernel_libraries() {
  std::lock_guard<std::mutex> lock(mutex);
  return loaded;
}

}  // namespace t2o::core
