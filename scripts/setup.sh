#!/usr/bin/env bash
# Installs the Debian packages netasic needs, and only those that are missing.
# Idempotent: a second run installs nothing. Debian packages only, no other download.
set -euo pipefail

packages=(
  build-essential cmake pkg-config     # compiler and build
  libsystemc-dev                       # SystemC 2.3.4 + TLM-2.0 (built as C++17)
  libtomlplusplus-dev                  # scenario files
  libcli11-dev                         # command line
  nlohmann-json3-dev                   # summary.json
  libfmt-dev                           # formatting
  libgtest-dev libgmock-dev            # testbenches
  libbenchmark-dev                     # bench/
  gnuplot-nox                          # plots in report.html
  verilator                            # RTL lint and cosimulation (rtl/, cosim/)
  yosys                                # netasic synth: cells, flip-flops and memory bits
  libpcap-dev                          # --pcap captures and pcap trace input
  slurm-wlm munge                      # the Slurm test: a single-node cluster runs an emitted sweep
  parallel                             # GNU parallel runs an emitted sweep's jobs.txt
  libeigen3-dev                        # FlowRadar's CounterDecode (sparse least squares)
  libglpk-dev                          # netasic paths --throughput: the max-concurrent-flow LP
)

# `setup.sh --fuzz` (make fuzz) also installs clang, whose libFuzzer the fuzz targets need.
if [ "${1:-}" = "--fuzz" ]; then packages+=(clang); fi

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
