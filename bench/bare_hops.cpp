// Baseline for the LS128 benchmark: a bare SystemC model that spends exactly one timed
// notification and one method activation per hop and does no other work. Each "port" keeps a
// FIFO of tokens in flight, like netasic's link channel; a delivered token is forwarded to a
// pseudo-random port after a fixed delay. Prints hops per wall second.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include <systemc>

struct port;
static std::vector<std::unique_ptr<port>> ports;
static uint64_t hops = 0, lcg = 12345;
static const bool no_banner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1) == 0;

struct port : sc_core::sc_module {
  SC_HAS_PROCESS(port);
  std::deque<std::pair<uint64_t, uint32_t>> fifo;
  sc_core::sc_event ev;
  explicit port(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    SC_METHOD(fire);
    sensitive << ev;
    dont_initialize();
  }
  void push(uint64_t at, uint32_t token) {
    if (fifo.empty()) ev.notify(sc_core::sc_time::from_value(at - sc_core::sc_time_stamp().value()));
    fifo.push_back({at, token});
  }
  void fire() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    while (!fifo.empty() && fifo.front().first <= now) {
      const uint32_t tok = fifo.front().second;
      fifo.pop_front();
      ++hops;
      lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
      ports[(lcg >> 33) % ports.size()]->push(now + 1'000'000, tok);   // 1 us
    }
    if (!fifo.empty()) ev.notify(sc_core::sc_time::from_value(fifo.front().first - now));
  }
};

int sc_main(int argc, char** argv) {
  const unsigned n_ports = argc > 1 ? unsigned(std::atoi(argv[1])) : 320;
  const unsigned tokens = argc > 2 ? unsigned(std::atoi(argv[2])) : 8192;
  const double sim_ms = argc > 3 ? std::atof(argv[3]) : 5.0;
  for (unsigned i = 0; i < n_ports; ++i) ports.push_back(std::make_unique<port>(sc_core::sc_gen_unique_name("p")));
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (unsigned t = 0; t < tokens; ++t) ports[t % n_ports]->push(1 + t * 97ull % 1'000'000, t);
  const auto w0 = std::chrono::steady_clock::now();
  sc_core::sc_start(sc_core::sc_time(sim_ms, sc_core::SC_MS));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  std::printf("{\"ports\": %u, \"tokens\": %u, \"hops\": %llu, \"wall_time_s\": %.3f, \"hops_per_s\": %.0f}\n",
              n_ports, tokens, (unsigned long long)hops, wall, double(hops) / wall);
  return 0;
}
