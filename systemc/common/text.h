// Text helpers shared by the command line's verbs.
#pragma once
#include <cstddef>
#include <string>

namespace netasic {

// A POSIX shell word: unchanged when it holds only characters no shell treats specially
// (letters, digits and _-./=:,+%@), else in single quotes with each ' written as '\''.
std::string shell_quote(const std::string& word);

// Levenshtein distance (insertions, deletions, substitutions): how the errors find the closest
// valid name to a misspelt one.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace netasic
