#include "tlm/deter_queue_log.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace netasic {
namespace {
constexpr char magic[] = "NETASIC-DETERQ2\n";
constexpr char magic_v1[] = "NETASIC-DETERQ1\n";   // before time_us
constexpr size_t magic_len = sizeof(magic) - 1;

// The record count of a log that starts with `head` (at least the header, if the file has it)
// and holds `size` bytes, once the header and the size agree; throws naming `path` otherwise.
uint64_t checked_count(const std::string& path, const std::string& head, uint64_t size) {
  if (head.compare(0, magic_len, magic_v1) == 0)
    throw std::runtime_error(path + ": a DETER queue log of an older netasic (NETASIC-DETERQ1, without times): record it again");
  if (size < magic_len + 8 || head.compare(0, magic_len, magic) != 0)
    throw std::runtime_error(path + ": not a DETER queue log (no NETASIC-DETERQ2 header)");
  uint64_t n;
  std::memcpy(&n, head.data() + magic_len, sizeof n);
  if (size != magic_len + 8 + n * sizeof(deter_hop))
    throw std::runtime_error(path + ": truncated: the header counts " + std::to_string(n) + " records, the file holds " +
                             std::to_string((size - magic_len - 8) / sizeof(deter_hop)));
  return n;
}

std::ifstream open_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the DETER queue log (the record run writes it beside deter.rec)");
  return in;
}

}  // namespace

std::string deter_queue_log::serialize() const {
  std::string out(magic, magic_len);
  const uint64_t n = hops.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(reinterpret_cast<const char*>(hops.data()), hops.size() * sizeof(deter_hop));
  return out;
}

void deter_queue_log::check(const std::string& path) {
  std::ifstream in = open_log(path);
  std::string head(magic_len + 8, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  in.clear();
  in.seekg(0, std::ios::end);
  checked_count(path, head, uint64_t(in.tellg()));
}

deter_queue_log deter_queue_log::load(const std::string& path) {
  std::ifstream in = open_log(path);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const uint64_t n = checked_count(path, data, data.size());
  deter_queue_log log;
  log.hops.resize(n);
  std::memcpy(log.hops.data(), data.data() + magic_len + 8, n * sizeof(deter_hop));
  return log;
}

}  // namespace netasic
