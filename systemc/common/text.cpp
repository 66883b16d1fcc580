#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>
#include <unordered_set>
#include <vector>

namespace netasic {

std::string shell_quote(const std::string& word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || (c != 0 && std::strchr("_-./=:,+%@", c) != nullptr);
  });
  if (safe) return word;
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

shared_text::shared_text(const std::string& s) {
  // Nodes of an unordered_set never move, so the pointers stay valid for the process.
  static std::unordered_set<std::string> texts;
  static std::mutex lock;
  const std::lock_guard<std::mutex> hold(lock);
  text_ = &*texts.insert(s).first;
}

}  // namespace netasic
