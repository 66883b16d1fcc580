#!/usr/bin/env bash
# Installs the Debian packages netasic needs, and only those that are missing.
# Idempotent: a second run installs nothing. Debian packages only, no other download.
set -euo pipefail

# What the simulator needs to build and `make demo` to run.
packages=(
  build-essential cmake pkg-config     # compiler and build
  libsystemc-dev                       # SystemC 2.3.4 + TLM-2.0 (built as C++17)
  libtomlplusplus-dev                  # scenario files
  libcli11-dev                         # command line
  nlohmann-json3-dev                   # summary.json
  libfmt-dev                           # formatting
  libgtest-dev libgmock-dev            # testbenches (CMake's configure looks for them)
  gnuplot-nox                          # plots in report.html
  verilator                            # RTL lint and cosimulation (rtl/, cosim/)
  libpcap-dev                          # --pcap captures and pcap trace input
  libeigen3-dev                        # FlowRadar's CounterDecode (sparse least squares)
  libglpk-dev                          # netasic paths --throughput: the max-concurrent-flow LP
)
# What only the test suite needs (`make test`). `setup.sh --demo` (make demo) leaves these out:
# with what they pull in (Yosys brings Graphviz, xdot and GTK 3; Slurm its daemons), they are 41
# of the 81 packages a fresh Debian 12 machine installed for its first demo.
test_packages=(
  yosys                                # netasic synth: cells, flip-flops and memory bits
  slurm-wlm munge                      # the Slurm test: a single-node cluster runs an emitted sweep
  parallel                             # GNU parallel runs an emitted sweep's jobs.txt
)

case "${1:-}" in
  --demo) ;;
  --fuzz) packages+=("${test_packages[@]}" clang) ;;   # make fuzz: clang's libFuzzer as well
  "") packages+=("${test_packages[@]}") ;;
  *) echo "setup: unknown option '$1' (--demo, --fuzz, or none)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when a package is unknown to them.
for p in "${missing[@]}"; do
  if ! apt-cache show "$p" >/dev/null 2>&1; then $sudo apt-get update -q; break; fi
done
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
