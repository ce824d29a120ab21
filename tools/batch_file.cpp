#include "batch_file.hpp"

#include "cli_args.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace t2o::cli {

std::vector<std::string> split_batch_line(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '#' && !in_word) {
      break;  // a comment to the end of the line
    } else if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      if (end == std::string::npos) throw std::invalid_argument("unterminated ' quote");
      word += line.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && (line[j + 1] == '"' || line[j + 1] == '\\')) ++j;
        word += line[j];
      }
      if (j >= line.size()) throw std::invalid_argument("unterminated \" quote");
      in_word = true;
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= line.size()) throw std::invalid_argument("a backslash at the end of the line");
      word += line[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::vector<BatchJob> read_batch_file(const std::string& path) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path);
    if (!file) throw UsageError("--batch " + path + ": cannot read it (" + std::strerror(errno) + ")");
    in = &file;
  }
  std::vector<BatchJob> jobs;
  std::string text;
  for (int number = 1; std::getline(*in, text); ++number) {
    BatchJob job;
    job.line = number;
    try {
      job.words = split_batch_line(text);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--batch " + path + ":" + std::to_string(number) + ": " + e.what());
    }
    if (!job.words.empty()) jobs.push_back(std::move(job));
  }
  if (in->bad()) throw UsageError("--batch " + path + ": read error");
  if (jobs.empty()) throw UsageError("--batch " + path + ": no export in it (one per line: MODEL.pt -o OUT.onnx [options])");
  return jobs;
}

}  // namespace t2o::cli
