#include "common/file_io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace netasic {

bool open_input(std::ifstream& in, const std::string& path, std::ios::openmode mode) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;
  in.open(path, mode);
  return bool(in);
}

void write_file(const std::string& path, const std::function<void(std::ostream&)>& fill) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  fill(out);
  out.close();   // a full disk may only show when the last buffer goes out
  if (out.fail()) throw std::runtime_error("error while writing " + path);
}

void write_file(const std::string& path, const std::string& text) {
  write_file(path, [&](std::ostream& out) { out.write(text.data(), std::streamsize(text.size())); });
}

std::string running_executable() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw std::runtime_error("cannot find this executable (/proc/self/exe: " + ec.message() +
                             "): pass the netasic executable explicitly");
  return p.string();
}

}  // namespace netasic
