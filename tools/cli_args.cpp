#include "cli_args.hpp"

namespace t2o::cli {

Args::Args(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) words_.emplace_back(argv[i]);
}

bool Args::flag(const std::string& name) {
  if (done() || words_[pos_] != name) return false;
  ++pos_;
  return true;
}

bool Args::option(const std::string& name, std::string& value) {
  if (done()) return false;
  const std::string& w = words_[pos_];
  if (w == name) {
    if (pos_ + 1 >= words_.size()) throw UsageError(name + " needs a value");
    value = words_[pos_ + 1];
    pos_ += 2;
    return true;
  }
  if (w.size() > name.size() && w.compare(0, name.size(), name) == 0 && w[name.size()] == '=') {
    value = w.substr(name.size() + 1);
    ++pos_;
    return true;
  }
  return false;
}

std::string Args::positional() {
  const std::string& w = words_[pos_];
  if (w.size() > 1 && w[0] == '-') throw UsageError("unknown option " + w + " (see --help)");
  ++pos_;
  return w;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& name : out)
    if (name.empty()) throw UsageError("empty name in '" + s + "'");
  return out;
}

int64_t parse_int(const std::string& option, const std::string& text) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw UsageError(option + " expects an integer, got '" + text + "'");
  }
}

}  // namespace t2o::cli
