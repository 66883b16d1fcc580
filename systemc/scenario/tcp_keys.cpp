#include "scenario/tcp_keys.h"

#include <fmt/format.h>

#include <limits>

#include "scenario/key_binding.h"

namespace netasic {
namespace {

const names<nic_transport> transport_names{{nic_transport::roce, "roce"}, {nic_transport::tcp, "tcp"}};
const names<tcp_cc> tcp_cc_names{{tcp_cc::newreno, "newreno"}, {tcp_cc::dctcp, "dctcp"}, {tcp_cc::cubic, "cubic"}};

template <class K>
void transport_keys(K& k) {
  k.choice("nic.transport", transport_names, &nic_config::transport, "Every host's transport: the RoCEv2 NIC (go-back-N, cc.*) or the TCP host (tcp.*; see docs/datasheets/tcp_host.md)");
}

template <class K>
void tcp_keys(K& k) {
  using T = tcp_config;
  k.choice("tcp.cc", tcp_cc_names, &T::cc, "TCP congestion control: NewReno (RFC 5681, RFC 6582), DCTCP (RFC 8257; ECN always on) or CUBIC (RFC 9438; NewReno's recovery)");
  k.boolean("tcp.ecn", &T::ecn, "NewReno with ECN (RFC 3168): data is ECT(0), an ECE halves cwnd once per window");
  k.integer("tcp.init_cwnd", "segments", &T::init_cwnd_segments, 1, 1000, "Initial congestion window (RFC 6928: 10); a segment carries nic.mtu payload bytes");
  k.real("tcp.rto_min", ms_as_ps, &T::rto_min_ps, 1e-6, 1e6, "Lower bound of the retransmission timeout (RFC 6298 (2.4); Linux's 200 ms; datacenters lower it)");
  k.real("tcp.rto_initial", ms_as_ps, &T::rto_initial_ps, 1e-6, 1e6, "Retransmission timeout before the first RTT sample (RFC 6298 (2.1): 1 s)");
  k.real("tcp.rto_max", ms_as_ps, &T::rto_max_ps, 1e-6, 1e8, "Upper bound of the backed-off retransmission timeout (RFC 6298 (2.5): at least 60 s)");
  k.real("tcp.delayed_ack", ms_as_ps, &T::delack_ps, 0, 1e4, "Delayed-ACK timer (Linux's 40 ms); an ACK goes at least every second segment; 0 = an ACK per segment");
  k.integer("tcp.rwnd", "bytes", &T::rwnd_bytes, 1, 1LL << 30, "Receive window every receiver advertises; the sender keeps min(cwnd, rwnd) in flight");
  k.real("tcp.host_delay", us_as_ps, &T::host_delay_ps, 0, 1e6, "Host processing delay added to each data segment's departure (DETER thesis ch. 6 section 6.2: 10 us); the host keeps its line-rate pace");
  k.real("tcp.host_jitter", ns_as_ps, &T::host_jitter_ps, 0, 1e6, "Sigma of a normal jitter on tcp.host_delay, drawn per data segment and clamped at a delay >= 0 (section 6.2's butterfly effect: 0-1000 ns)");
  k.integer("tcp.jitter_seed", "", &T::jitter_seed, 0, std::numeric_limits<int64_t>::max(), "Seed of the tcp.host_jitter draws alone (each host its own stream): the same traffic, another jitter");
  k.real("tcp.dctcp_g", "", &T::dctcp_g, 1e-6, 1, "DCTCP: alpha EWMA gain g (RFC 8257: 1/16)");
  k.real("tcp.cubic_beta", "", &T::cubic_beta, 0.5, 0.95, "CUBIC: window kept on a congestion event, beta_cubic (RFC 9438 section 4.6: 0.7)");
  k.real("tcp.cubic_c", "segments/s^3", &T::cubic_c, 0.01, 10, "CUBIC: the curve's scale C (RFC 9438 section 5: 0.4)");
}

}  // namespace

void declare_tcp_keys(param_registry& r) {
  declare_keys<nic_config> nic(r);
  transport_keys(nic);
  declare_keys<tcp_config> tcp(r);
  tcp_keys(tcp);
}

void read_tcp(const config& c, const switch_config& sw, nic_config& nic) {
  apply_keys<nic_config> t(c, nic);
  transport_keys(t);
  if (nic.transport == nic_transport::roce) {
    unused_by_mode(c, keys_under("tcp."), "with nic.transport = \"roce\"");
    return;
  }
  apply_keys<tcp_config> k(c, nic.tcp);
  tcp_keys(k);
  tcp_config& tc = nic.tcp;
  tc.mss_bytes = nic.mtu_payload;
  const std::string why = "with nic.transport = \"tcp\"";
  unused_by_mode(c, {"nic.window", "nic.rto", "nic.scheduler.engines", "nic.scheduler.visit_cycles"}, why + " (RoCEv2 NIC only)");
  if (tc.cc == tcp_cc::dctcp) unused_by_mode(c, {"tcp.ecn"}, "with tcp.cc = \"dctcp\" (ECN is always on)");
  else unused_by_mode(c, {"tcp.dctcp_g"}, fmt::format("with tcp.cc = \"{}\"", tcp_cc_names.of(tc.cc)));
  if (tc.cc != tcp_cc::cubic) unused_by_mode(c, {"tcp.cubic_beta", "tcp.cubic_c"}, fmt::format("with tcp.cc = \"{}\"", tcp_cc_names.of(tc.cc)));
  if (c.string("cc.algorithm") != "none")
    fail(c, "cc.algorithm", fmt::format("\"{}\" is the RoCEv2 NIC's congestion control; {} it must be \"none\" and tcp.cc "
                                        "chooses TCP's", c.string("cc.algorithm"), why));
  if (nic.int_enabled) fail(c, "nic.int_padding", "is true, but TCP frames carry no INT padding " + why);
  if (nic.flowcut) fail(c, "flowcut.form", "\"nic\" is a RoCEv2 NIC's table; " + why + " use \"off\" or a switch form");
  if (tc.rwnd_bytes < tc.mss_bytes)
    fail(c, "tcp.rwnd", fmt::format("{} bytes is less than one segment (nic.mtu = {} bytes): nothing could be sent", tc.rwnd_bytes, tc.mss_bytes));
  if (tc.rto_min_ps > tc.rto_max_ps) fail(c, "tcp.rto_min", "is above tcp.rto_max");
  if (tc.ecn_capable() && !sw.tm.ecn[nic.data_priority].enabled)
    fail(c, "ecn.priorities", fmt::format("does not include nic.data_priority {}, but TCP runs with ECN ({}) and nothing would mark",
                                          nic.data_priority, tc.cc == tcp_cc::dctcp ? "tcp.cc = \"dctcp\"" : "tcp.ecn = true"));
}

}  // namespace netasic
