#include "nic/cc/cc_factory.h"

namespace netasic {

std::unique_ptr<congestion_control> make_cc(const cc_config& cfg, uint64_t line_rate_bps) {
  switch (cfg.algorithm) {
    case cc_algorithm::none: return nullptr;
    case cc_algorithm::hpcc: {
      hpcc_config c = cfg.hpcc;
      c.line_rate_bps = line_rate_bps;
      c.base_rtt_ps = cfg.base_rtt_ps;
      return std::make_unique<hpcc>(c, cfg.table.get());
    }
    case cc_algorithm::dcqcn: {
      dcqcn_config c = cfg.dcqcn;
      c.line_rate_bps = line_rate_bps;
      c.base_rtt_ps = cfg.base_rtt_ps;
      const double scale = double(line_rate_bps) / double(cc_config::dcqcn_step_reference_bps);
      c.rate_ai_bps = uint64_t(double(c.rate_ai_bps) * scale);
      c.rate_hai_bps = uint64_t(double(c.rate_hai_bps) * scale);
      return std::make_unique<dcqcn>(c);
    }
    case cc_algorithm::dctcp: {
      dctcp_config c = cfg.dctcp;
      c.line_rate_bps = line_rate_bps;
      c.base_rtt_ps = cfg.base_rtt_ps;
      return std::make_unique<dctcp>(c);
    }
    case cc_algorithm::timely: {
      timely_config c = cfg.timely;
      c.line_rate_bps = line_rate_bps;
      c.base_rtt_ps = cfg.base_rtt_ps;
      c.delta_bps = uint64_t(double(c.delta_bps) * double(line_rate_bps) / double(cc_config::timely_step_reference_bps));
      return std::make_unique<timely>(c);
    }
  }
  return nullptr;
}

}  // namespace netasic
