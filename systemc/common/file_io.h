// Whole-file writes that fail loudly, and where the running program lives.
#pragma once
#include <functional>
#include <fstream>
#include <string>

namespace netasic {

// Writes `text` to `path`, replacing the file. Throws std::runtime_error naming the path when
// the file cannot be opened, written or closed: a run never leaves a silently short output.
void write_file(const std::string& path, const std::string& text);

// The same for a writer that streams a large file (a probe CSV, a VCD) instead of building it
// in memory first: `fill` writes to the open file.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& fill);

// Opens `path` for reading. False for a path that cannot be opened and for a directory, which
// the stream would otherwise open and read as an empty file.
bool open_input(std::ifstream& in, const std::string& path, std::ios::openmode mode = std::ios::in);

// The path of the running executable, so that a sweep starts the same netasic it runs in.
// Throws std::runtime_error when the system does not say.
std::string running_executable();

}  // namespace netasic
