// Test harness entry: SystemC's main() calls sc_main, which runs GoogleTest. SystemC warnings
// and errors become test failures instead of scrolling past.
#include <gtest/gtest.h>

#include <cstdlib>

#include <systemc>

namespace {
const bool no_banner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1) == 0;

void fail_on_report(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if (r.get_severity() >= sc_core::SC_WARNING) ADD_FAILURE() << "SystemC " << r.what();
  sc_core::sc_report_handler::default_handler(r, actions);
}
}  // namespace

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_handler(fail_on_report);
  return RUN_ALL_TESTS();
}
