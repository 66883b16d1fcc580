// `netasic sweep`: the grid, the points' command lines, running and gathering them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/netasic/sweep.h"

#include "output_samples.h"

using namespace netasic;
using namespace netasic::output_test;

TEST(Sweep, ExpandGridIsTheCartesianProduct) {
  auto points = expand_grid({"topology.leaves=2,4,8", "workload.load=0.3,0.5"});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0], (grid_point{{"topology.leaves", "2"}, {"workload.load", "0.3"}}));
  EXPECT_EQ(points[1], (grid_point{{"topology.leaves", "2"}, {"workload.load", "0.5"}}));
  EXPECT_EQ(points[5], (grid_point{{"topology.leaves", "8"}, {"workload.load", "0.5"}}));
  std::set<grid_point> unique(points.begin(), points.end());
  EXPECT_EQ(unique.size(), 6u);
  EXPECT_EQ(expand_grid({}).size(), 1u);
  EXPECT_EQ(expand_grid({"a=x"}), (std::vector<grid_point>{{{"a", "x"}}}));
}

TEST(Sweep, GridErrorsNameTheArgument) {
  for (const std::string bad : {"leaves", "=1,2", "leaves=", "leaves=1,,2", "leaves=1,", "leaves=2,2", "le aves=1",
                                "seed=one"}) {
    try {
      expand_grid({"ok=1", bad});
      ADD_FAILURE() << "accepted --grid " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--grid '" + bad + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(expand_grid({"a=1", "a=2"}), std::invalid_argument);
}

TEST(Sweep, PointCommandLine) {
  sweep_options o;
  o.netasic_exe = "bin/netasic";
  o.scenario = "s.toml";
  o.sets = {"sim.time_us=10"};
  o.seed = 5;
  auto argv = point_command(o, {{"topology.leaves", "4"}}, "out/point-002");
  EXPECT_EQ(argv, (std::vector<std::string>{"bin/netasic", "run", "s.toml", "--set", "sim.time_us=10", "--set",
                                            "topology.leaves=4", "--seed", "5", "--out", "out/point-002", "--quiet"}));
  o.seed.reset();
  argv = point_command(o, {{"seed", "9"}}, "d");
  EXPECT_EQ(argv[argv.size() - 5], "--seed");
  EXPECT_EQ(argv[argv.size() - 4], "9");
  EXPECT_EQ(point_dir_name(3, 12), "point-003");
  EXPECT_EQ(point_dir_name(42, 1200), "point-0042");
}

TEST(Sweep, RunsPointsAndGathersSummaries) {
  temp_dir dir("sweep");
  // A stand-in for `netasic run`: load=0.9 fails, other points write a summary.json.
  fs::path exe = dir.path / "fake-netasic";
  {
    std::ofstream f(exe);
    f << "#!/bin/sh\n"
         "out=; leaves=; load=\n"
         "while [ $# -gt 0 ]; do case $1 in\n"
         "  --set) case $2 in leaves=*) leaves=${2#*=};; load=*) load=${2#*=};; esac; shift 2;;\n"
         "  --out) out=$2; shift 2;; *) shift;; esac; done\n"
         "echo \"point leaves=$leaves load=$load\" >&2\n"
         "[ \"$load\" = 0.9 ] && { echo 'diverged' >&2; exit 3; }\n"
         "echo \"{\\\"fct_slowdown\\\": {\\\"p50\\\": $leaves, \\\"p99\\\": $load}, \\\"note\\\": \\\"x\\\"}\" > $out/summary.json\n";
  }
  fs::permissions(exe, fs::perms::owner_all);
  sweep_options o;
  o.netasic_exe = exe.string();
  o.scenario = "s.toml";
  o.grid = {"leaves=1,10,100", "load=0.5,0.9"};
  o.out_dir = (dir.path / "out").string();
  o.jobs = 2;
  o.quiet = true;
  EXPECT_EQ(run_sweep(o), 1);   // three points fail
  auto lines = split(slurp(dir.path / "out" / "sweep.csv"), '\n');
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[0], "point,leaves,load,status,fct_slowdown.p50,fct_slowdown.p99");
  EXPECT_EQ(lines[1], "1,1,0.5,ok,1,0.5");
  EXPECT_EQ(lines[2], "2,1,0.9,exit 3,,");
  EXPECT_EQ(lines[5], "5,100,0.5,ok,100,0.5");
  EXPECT_NE(slurp(dir.path / "out" / "point-002" / "log.txt").find("diverged"), std::string::npos);
  std::string html = slurp(dir.path / "out" / "sweep.html");
  EXPECT_EQ(count(html, "<svg"), 2u);   // one plot per metric
  EXPECT_EQ(html.find("http"), std::string::npos);

  // Emitting writes job files and runs nothing.
  o.emit = "parallel";
  o.out_dir = (dir.path / "emit").string();
  EXPECT_EQ(run_sweep(o), 0);
  auto jobs = split(slurp(dir.path / "emit" / "jobs.txt"), '\n');
  EXPECT_EQ(jobs.size(), 7u);
  EXPECT_NE(jobs[0].find("--set leaves=1 --set load=0.5"), std::string::npos) << jobs[0];
  EXPECT_FALSE(fs::exists(dir.path / "emit" / "point-001" / "summary.json"));
  o.emit = "slurm";
  EXPECT_EQ(run_sweep(o), 0);
  EXPECT_NE(slurp(dir.path / "emit" / "sweep.slurm").find("#SBATCH --array=1-6%2"), std::string::npos);

  // Bad options: exit code 2, nothing run.
  o.emit = "";
  o.grid = {"leaves"};
  EXPECT_EQ(run_sweep(o), 2);
}


// --seeds N: each point runs N times with seeds first .. first + N - 1, and sweep.csv gives each
// metric's mean, min, max and Student t interval. The stand-in writes its seed as the metric,
// so with seeds 3..7 the mean is 5, s = sqrt(10 / 4) = 1.5811 and the 95 % interval is
// 5 +- t(0.975, 4) 1.5811 / sqrt(5) = 5 +- 2.776445 x 0.70711 = 5 +- 1.96324.
TEST(Sweep, SeedsAggregateToMeanAndStudentInterval) {
  temp_dir dir("sweep_seeds");
  fs::path exe = dir.path / "fake-netasic";
  {
    std::ofstream f(exe);
    f << "#!/bin/sh\n"
         "out=; seed=; lv=\n"
         "while [ $# -gt 0 ]; do case $1 in\n"
         "  --seed) seed=$2; shift 2;; --set) lv=${2#*=}; shift 2;;\n"
         "  --out) out=$2; shift 2;; *) shift;; esac; done\n"
         "echo \"{\\\"m\\\": $seed, \\\"lv\\\": $lv}\" > $out/summary.json\n";
  }
  fs::permissions(exe, fs::perms::owner_all);
  sweep_options o;
  o.netasic_exe = exe.string();
  o.scenario = "s.toml";
  o.grid = {"leaves=2,4"};
  o.out_dir = (dir.path / "out").string();
  o.seeds = 5;
  o.seed = 3;
  o.metrics = {"m"};
  o.quiet = true;
  ASSERT_EQ(run_sweep(o), 0);
  auto lines = split(slurp(dir.path / "out" / "sweep.csv"), '\n');
  ASSERT_EQ(lines.size(), 4u);   // the header, two points, the empty piece after the last newline
  EXPECT_EQ(lines[0], "point,leaves,status,seeds_ok,lv.mean,lv.min,lv.max,lv.ci95_low,lv.ci95_high,"
                      "m.mean,m.min,m.max,m.ci95_low,m.ci95_high");
  auto cells = split(lines[2], ',');
  ASSERT_EQ(cells.size(), 14u);
  EXPECT_EQ(cells[3], "5");
  EXPECT_EQ(std::stod(cells[4]), 4);   // every seed of point 2 has lv 4: an interval of width 0
  EXPECT_EQ(std::stod(cells[7]), 4);
  EXPECT_EQ(std::stod(cells[9]), 5);
  EXPECT_EQ(std::stod(cells[10]), 3);
  EXPECT_EQ(std::stod(cells[11]), 7);
  EXPECT_NEAR(std::stod(cells[12]), 5 - 1.96324, 1e-5);
  EXPECT_NEAR(std::stod(cells[13]), 5 + 1.96324, 1e-5);
  // Every run is kept, in its own directory, and listed in runs.csv.
  EXPECT_TRUE(fs::exists(dir.path / "out" / "point-001" / "seed-7" / "summary.json"));
  EXPECT_EQ(split(slurp(dir.path / "out" / "runs.csv"), '\n').size(), 12u);
  const std::string html = slurp(dir.path / "out" / "sweep.html");
  EXPECT_NE(html.find("95 % confidence interval"), std::string::npos);
  EXPECT_NE(html.find("5 ± 1.963"), std::string::npos) << "the points table gives mean ± half-width";

  // Job files carry each run's seed.
  o.emit = "parallel";
  o.out_dir = (dir.path / "emit").string();
  ASSERT_EQ(run_sweep(o), 0);
  auto jobs = split(slurp(dir.path / "emit" / "jobs.txt"), '\n');
  ASSERT_EQ(jobs.size(), 11u);
  EXPECT_NE(jobs[4].find("--seed 7 --out"), std::string::npos) << jobs[4];
  EXPECT_NE(jobs[4].find("point-001/seed-7"), std::string::npos) << jobs[4];

  // A grid over the seed itself cannot go with --seeds.
  o.emit = "";
  o.grid = {"sim.seed=1,2"};
  EXPECT_EQ(run_sweep(o), 2);
  o.grid = {"seed=1,2"};
  EXPECT_EQ(run_sweep(o), 2);
}

// Slurm's --array list of the runs to redo: consecutive ids joined, against a plain model (a set
// of ids written out one by one) over random subsets.
TEST(Sweep, ArrayRangesListExactlyTheTasks) {
  EXPECT_EQ(array_ranges({}), "");
  EXPECT_EQ(array_ranges({7}), "7");
  EXPECT_EQ(array_ranges({2, 3, 4, 9}), "2-4,9");
  EXPECT_EQ(array_ranges({1, 3, 5, 6}), "1,3,5-6");
  uint64_t lcg = 1;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<size_t> tasks;
    for (size_t t = 1; t <= 40; ++t) {
      lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
      if ((lcg >> 33) % 3 == 0) tasks.push_back(t);
    }
    std::set<size_t> expanded;   // the list read back as Slurm reads it
    for (const std::string& r : split(array_ranges(tasks), ',')) {
      if (r.empty()) continue;
      const size_t dash = r.find('-');
      const size_t a = std::stoul(r.substr(0, dash)), b = dash == std::string::npos ? a : std::stoul(r.substr(dash + 1));
      ASSERT_LT(a, b + (dash == std::string::npos ? 1 : 0)) << "trial " << trial << ": " << r;
      for (size_t t = a; t <= b; ++t) EXPECT_TRUE(expanded.insert(t).second) << "trial " << trial << ": " << t << " twice";
    }
    EXPECT_EQ(expanded, std::set<size_t>(tasks.begin(), tasks.end())) << "trial " << trial;
  }
}

// --collect --missing: one line per run without a complete directory, and the rerun commands.
TEST(Sweep, MissingListsTheIncompleteRunsAndHowToRerunThem) {
  temp_dir dir("sweep_missing");
  std::vector<run_job> jobs;
  std::vector<run_outcome> runs(5);
  for (size_t i = 0; i < 5; ++i) jobs.push_back({{}, (dir.path / point_dir_name(i + 1, 5)).string(), ""});
  for (size_t i : {0, 2, 3}) runs[i].status = "ok";
  runs[1].status = "no summary.json";
  std::ofstream(dir.path / "sweep.slurm") << "#!/bin/bash\n";
  std::ofstream(dir.path / "jobs.txt") << "x\n";
  std::ostringstream out, err;
  EXPECT_EQ(list_missing(jobs, runs, dir.path.string(), "sweep", out, err), 2u);
  EXPECT_EQ(out.str(), "2\t" + jobs[1].dir + "\tno summary.json\n5\t" + jobs[4].dir + "\tnot run\n");
  EXPECT_NE(err.str().find("sbatch --array=2,5 "), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("sed -n '2p;5p' "), std::string::npos) << err.str();
  for (auto& r : runs) r.status = "ok";
  std::ostringstream out2, err2;
  EXPECT_EQ(list_missing(jobs, runs, dir.path.string(), "sweep", out2, err2), 0u);
  EXPECT_EQ(out2.str() + err2.str(), "");
}
