// cosim_fault BLOCK [NAME=VALUE ...]: runs BLOCK's bench (at that parameter set of
// rtl/bench_sets.txt, or its defaults) against the RTL built with its planted one-bit fault
// (NETASIC_FAULT) and succeeds only if the bench reports a mismatch: a bench that cannot fail
// proves nothing.
#include <iostream>

#include "cosim/harness/cosim_run.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: cosim_fault BLOCK [NAME=VALUE ...]\n";
    return 2;
  }
  netasic::cosim::run_options opt;
  opt.timing = false;
  opt.params.assign(argv + 2, argv + argc);
  opt.mismatch_vcd = std::string(argv[1]) + (argc > 2 ? "_set2" : "") + "_fault_window.vcd";
  try {
    const auto r = netasic::cosim::run(argv[1], opt);
    std::cout << netasic::cosim::describe(argv[1], opt, r);
    if (r.match) {
      std::cerr << "error: the bench did not catch the planted fault in " << opt.cycles << " cycles\n";
      return 1;
    }
    std::cout << "planted fault caught\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
