#include "run/run_outputs.h"

#include <filesystem>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/file_io.h"
#include "output/csv.h"
#include "output/fst_writer.h"
#include "output/gtkw.h"
#include "output/report.h"
#include "output/vcd.h"

namespace netasic {

namespace {

// What a run writes (and a sweep's log beside it): a folder with only these is a run directory.
bool run_file(const std::string& name) {
  static const char* names[] = {"summary.json", "config.toml", "flows.csv", "probes.csv", "links.csv", "waves.vcd",
                                "waves.fst", "waves.gtkw", "report.html", "log.txt", "pcap", "deter.rec", "deter_queues.bin",
                                "deter_qdiff.csv", "flowradar.csv", "flowradar_loss.csv", "lossradar.csv", "lossradar_drops.csv", "memory.csv", incomplete_marker};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

}  // namespace

void prepare_run_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path d(dir);
  if (fs::exists(d)) {
    if (!fs::is_directory(d)) throw config_error(fmt::format("--out {}: is a file, not a run directory", dir));
    std::vector<fs::path> old;
    for (const auto& e : fs::directory_iterator(d)) {
      if (!run_file(e.path().filename().string()))
        throw config_error(fmt::format("--out {}: holds '{}', which no run writes; give a new or a run's directory",
                                       dir, e.path().filename().string()));
      if (e.path().filename() != "log.txt") old.push_back(e.path());
    }
    fs::remove(d / "summary.json");   // first: from here on the folder is not a complete run
    for (const auto& p : old) fs::remove_all(p);
  }
  fs::create_directories(d);
  write_file((d / incomplete_marker).string(),
             "netasic is writing this run, or was stopped while it did: the files here are not a complete run.\n");
}

void write_run_outputs(const std::string& dir, const config& cfg, const run_result& r, bool fst) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const fs::path d(dir);
  write_file((d / "config.toml").string(), cfg.to_toml());
  write_flows_csv((d / "flows.csv").string(), r.flows);
  write_probes_csv((d / "probes.csv").string(), r.probes);
  write_links_csv((d / "links.csv").string(), r.links);
  if (r.waves) {
    const char* dump = fst ? "waves.fst" : "waves.vcd";
    if (fst) write_fst((d / dump).string(), *r.waves);
    else write_vcd((d / dump).string(), *r.waves);
    write_gtkw((d / "waves.gtkw").string(), dump, *r.waves);
  }
  for (const auto& [name, bytes] : r.files) {
    // A file missing from run_file's list would make the folder refused as --out next time.
    if (!run_file(name)) throw std::logic_error("run outputs: '" + name + "' is not in run_file's list of what a run writes");
    write_file((d / name).string(), bytes);
  }
  write_report_html((d / "report.html").string(), r.summary, r.flows, r.probes, r.clock ? &*r.clock : nullptr,
                    &r.telemetry);
  write_file((d / "summary.json").string(), r.summary.dump(2) + "\n");   // last: its presence says complete
  fs::remove(d / incomplete_marker);
}

}  // namespace netasic
