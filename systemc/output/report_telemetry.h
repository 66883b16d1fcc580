// report.html's section "Telemetry": FlowRadar (thesis ch. 4) and LossRadar (ch. 5) as the run's
// collectors hand them over (run/flowradar_collector.*, run/flowradar_loss_report.*,
// run/lossradar_collector.*), typed, and the figures drawn from them. The precision and recall
// table reads the scores those collectors wrote into summary.json, so it shows the same numbers.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "blocks/lossradar_analyzer.h"
#include "output/plot.h"

namespace netasic {

// One FlowRadar epoch, summed over the switches that exported it: the flows the switches
// counted (ground truth) and those SingleDecode and NetDecode found.
struct flowradar_epoch_flows {
  uint64_t epoch = 0, flows = 0, single_decoded = 0, decoded = 0;
};

// One LossRadar batch: its losses by class (loss_class's order), as the collector listed and
// classified them (by the batch ID the upstream meter wrote) and as the drop log knows them (by
// the drop's time, the cause the simulator recorded).
constexpr size_t loss_classes = 5;
struct lossradar_batch_losses {
  uint64_t batch = 0;
  std::array<uint64_t, loss_classes> listed{}, dropped{};
};

struct telemetry_result {
  bool flowradar = false, lossradar = false;   // on in this run
  // FlowRadar
  double epoch_ms = 0;
  std::vector<flowradar_epoch_flows> epochs;   // in epoch order
  // The loss map (§4.6.2): for every observable data drop it reported, the time from the drop to
  // the export that reported it; the CDF's denominator is every observable drop (loss_map_dropped_packets).
  std::vector<double> loss_delay_ms;
  uint64_t loss_map_drops = 0;
  // LossRadar
  double batch_ms = 0;
  std::vector<lossradar_batch_losses> batches;   // every batch from 0 to the last with a loss
};

struct telemetry_figure {
  std::string system;   // "FlowRadar" or "LossRadar"
  plot_spec spec;       // id left for the page to set
  std::string caption;  // plain text
};

// The section's plots, FlowRadar's then LossRadar's; none for a part the run did not have or
// that has nothing to draw.
std::vector<telemetry_figure> telemetry_figures(const telemetry_result& t);

namespace report {
struct page;
// The section "Telemetry": the figures, then precision and recall per fault and class from
// `summary`'s "flowradar" and "lossradar" objects.
void telemetry_section(page& pg, const telemetry_result& t, const nlohmann::json& summary);
}  // namespace report

}  // namespace netasic
