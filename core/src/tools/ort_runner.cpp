// node running ort_runner.js for verify: found once, then one process per model run, its stderr read
// back for the one-line message (ORT_ERROR: a model ONNX Runtime refuses; ORT_MISSING / USAGE: a
// request that cannot work).
#include "tools/ort_runner.hpp"

#include "torch2onnx/core/verify.hpp"

#include <torch2onnx/registry.hpp>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace t2o::core {

namespace {

namespace fs = std::filesystem;

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string p = path;
  size_t start = 0;
  while (start <= p.size()) {
    size_t colon = p.find(':', start);
    std::string dir = p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) {
      fs::path candidate = fs::path(dir) / name;
      if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate.string();
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

bool has_ort(const fs::path& dir) {
  return fs::exists(dir / "onnxruntime-node" / "package.json") || (fs::exists(dir / "package.json") && fs::exists(dir / "dist"));
}

}  // namespace

OrtRunner::OrtRunner(const std::string& ort_dir_option) {
  const char* node_env = std::getenv("TORCH2ONNX_NODE");
  node_ = node_env && *node_env ? node_env : find_on_path("node");
  if (node_.empty()) node_ = find_on_path("nodejs");
  if (node_.empty())
    throw VerifyRequestError("verify needs node (Node.js) to run ONNX Runtime, and none is on PATH (scripts/setup.sh installs it)");
  const fs::path exe = t2o::registry::executable_dir();
  script_ = (exe / ".." / "share" / "torch2onnx" / "ort_runner.js").lexically_normal().string();
  if (!fs::exists(script_)) throw VerifyRequestError("the ONNX Runtime runner " + script_ + " is missing (reinstall torch2onnx)");
  std::string source;
  const char* env = std::getenv("TORCH2ONNX_ORT_DIR");
  if (!ort_dir_option.empty()) {
    ort_dir_ = ort_dir_option;
    source = "--ort-dir";
  } else if (env && *env) {
    ort_dir_ = env;
    source = "TORCH2ONNX_ORT_DIR";
  } else {
    ort_dir_ = T2O_DEFAULT_ORT_DIR;
    source = "the default";
  }
  if (!has_ort(ort_dir_))
    throw VerifyRequestError("no onnxruntime-node in " + ort_dir_ + " (" + source +
                     "): give --ort-dir DIR or TORCH2ONNX_ORT_DIR, a node_modules holding onnxruntime-node "
                     "(scripts/setup.sh installs it in tests/ort/node_modules)");
}

void OrtRunner::run(const std::string& model, const std::string& in_dir, const std::string& out_dir,
                    const std::vector<std::string>& outputs) const {
  std::vector<std::string> words = {node_, script_, ort_dir_, model, in_dir, out_dir};
  words.insert(words.end(), outputs.begin(), outputs.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const std::string err_file = out_dir + "/ort_stderr.txt";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, node_.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw VerifyRequestError("cannot start " + node_ + " for ONNX Runtime");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(err_file);
  std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string line = err.substr(0, err.find('\n'));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  for (const char* tag : {"ORT_ERROR: ", "ORT_MISSING: ", "USAGE: "}) {
    if (line.rfind(tag, 0) != 0) continue;
    std::string msg = line.substr(std::string(tag).size());
    if (std::string(tag) == "ORT_ERROR: ") throw ExportError(msg);
    throw VerifyRequestError(msg);
  }
  throw ExportError("ONNX Runtime (node " + script_ + ") failed" +
                               (WIFSIGNALED(status) ? " with signal " + std::to_string(WTERMSIG(status)) : "") +
                               (line.empty() ? "" : ": " + line));
}

}  // namespace t2o::core
