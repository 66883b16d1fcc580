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
}  // namespace

std::string deter_queue_log::serialize() const {
  std::string out(magic, magic_len);
  const uint64_t n = hops.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(reinterpret_cast<const char*>(hops.data()), hops.size() * sizeof(deter_hop));
  return out;
}

deter_queue_log deter_queue_log::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the DETER queue log (the record run writes it beside deter.rec)");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.compare(0, magic_len, magic_v1) == 0)
    throw std::runtime_error(path + ": a DETER queue log of an older netasic (NETASIC-DETERQ1, without times): record it again");
  if (data.size() < magic_len + 8 || data.compare(0, magic_len, magic) != 0)
    throw std::runtime_error(path + ": not a DETER queue log (no NETASIC-DETERQ2 header)");
  uint64_t n;
  std::memcpy(&n, data.data() + magic_len, sizeof n);
  if (data.size() != magic_len + 8 + n * sizeof(deter_hop))
    throw std::runtime_error(path + ": truncated: the header counts " + std::to_string(n) + " records, the file holds " +
                             std::to_string((data.size() - magic_len - 8) / sizeof(deter_hop)));
  deter_queue_log log;
  log.hops.resize(n);
  std::memcpy(log.hops.data(), data.data() + magic_len + 8, n * sizeof(deter_hop));
  return log;
}

}  // namespace netasic
