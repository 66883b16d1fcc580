#include "run/run_outputs.h"

#include <filesystem>

#include "common/file_io.h"
#include "output/csv.h"
#include "output/gtkw.h"
#include "output/report.h"
#include "output/vcd.h"

namespace netasic {

void write_run_outputs(const std::string& dir, const config& cfg, const run_result& r, bool vcd) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const fs::path d(dir);
  write_file((d / "summary.json").string(), r.summary.dump(2) + "\n");
  write_file((d / "config.toml").string(), cfg.to_toml());
  write_flows_csv((d / "flows.csv").string(), r.flows);
  write_probes_csv((d / "probes.csv").string(), r.probes);
  write_links_csv((d / "links.csv").string(), r.links);
  if (vcd) {
    write_vcd((d / "waves.vcd").string(), r.probes);
    write_gtkw((d / "waves.gtkw").string(), "waves.vcd", r.probes);
  }
  for (const auto& [name, bytes] : r.files) write_file((d / name).string(), bytes);
  write_report_html((d / "report.html").string(), r.summary, r.flows, r.probes, r.clock ? &*r.clock : nullptr);
}

}  // namespace netasic
