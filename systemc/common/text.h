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

// A text many records share (a probe series' device or unit): each distinct text is kept once
// for the whole process, and a record holds a pointer to it, 8 B instead of a 32-byte string.
class shared_text {
 public:
  shared_text(const std::string& s);
  shared_text(const char* s) : shared_text(std::string(s)) {}
  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }
  bool empty() const { return text_->empty(); }

 private:
  const std::string* text_;
};
// Beside a std::string or a literal, compared and joined as its text, never made into a
// shared_text (which would keep a copy of the other side for the process).
inline bool operator==(const shared_text& a, const shared_text& b) { return a.str() == b.str(); }
inline bool operator==(const shared_text& a, const std::string& b) { return a.str() == b; }
inline bool operator==(const std::string& a, const shared_text& b) { return a == b.str(); }
inline bool operator==(const shared_text& a, const char* b) { return a.str() == b; }
inline bool operator!=(const shared_text& a, const shared_text& b) { return !(a == b); }
inline bool operator!=(const shared_text& a, const char* b) { return !(a == b); }
inline bool operator!=(const shared_text& a, const std::string& b) { return !(a == b); }
inline bool operator!=(const std::string& a, const shared_text& b) { return !(a == b); }
inline std::string operator+(const shared_text& a, const std::string& b) { return a.str() + b; }
inline std::string operator+(const shared_text& a, const char* b) { return a.str() + b; }
inline std::string operator+(const std::string& a, const shared_text& b) { return a + b.str(); }
inline std::string operator+(const char* a, const shared_text& b) { return a + b.str(); }

}  // namespace netasic
