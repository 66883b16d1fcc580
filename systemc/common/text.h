// Text helpers shared by the command line's verbs.
#pragma once
#include <string>

namespace netasic {

// A POSIX shell word: unchanged when it holds only characters no shell treats specially
// (letters, digits and _-./=:,+%@), else in single quotes with each ' written as '\''.
std::string shell_quote(const std::string& word);

}  // namespace netasic
