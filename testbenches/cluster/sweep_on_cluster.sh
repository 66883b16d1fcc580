#!/usr/bin/env bash
# An emitted sweep run for real by a cluster manager, then gathered with --collect, must give the
# same sweep.csv as the same four points run locally with -j2 (same columns, same values; only
# the numbers measured on the host, wall time, its rate, peak memory and the heap the allocator
# counted per switch, NIC and link, differ).
#   slurm:    a single-node Slurm (munged, slurmctld, slurmd) started here in a scratch
#             directory, on loopback ports, and stopped on every exit; `sbatch --wait` runs the
#             array. Control: one point's run directory removed, --collect and --missing name
#             exactly that task, the comparison fails, and a one-task array with an offset reruns it.
#   parallel: GNU parallel runs jobs.txt.
# Usage: sweep_on_cluster.sh slurm|parallel NETASIC SOURCE_DIR
set -uo pipefail
mode=$1 netasic=$2 src=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$mode" = slurm ] || [ "$mode" = parallel ] || fail "mode '$mode': expected slurm or parallel"
need() { for t in "$@"; do command -v "$t" >/dev/null || fail "'$t' not found: scripts/setup.sh installs it (Debian slurm-wlm, munge, parallel)"; done; }
if [ "$mode" = slurm ]; then
  need munged slurmctld slurmd sbatch sinfo scontrol
  [ "$(id -u)" -eq 0 ] || fail "a single-node Slurm needs root here (slurmd starts jobs as their user); run this test as root"
else
  need parallel
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/netasic-cluster-$mode.XXXXXX") || fail "no scratch directory"
chmod 755 "$work"   # munged wants its socket's directory readable by everyone
daemons=()          # pid files of what this test started
cleanup() {
  local rc=$?
  for p in "${daemons[@]}"; do
    [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
  done
  for p in "${daemons[@]}"; do   # wait up to 10 s each for them to go
    for _ in $(seq 100); do [ -s "$p" ] && kill -0 "$(cat "$p")" 2>/dev/null || break; sleep 0.1; done
  done
  if [ $rc -ne 0 ]; then
    for l in "$work"/*.log; do [ -f "$l" ] && { echo "--- $l"; tail -n 20 "$l"; }; done >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Four points, each a fraction of a second: the demo's two leaves, two hosts each, 100 us.
sweep=(sweep "$src/scenarios/demo.toml" --quiet --grid traffic.load=0.2,0.4 --grid topology.spines=1,2
       --set topology.hosts_per_leaf=2 --set 'traffic.flows=[]' --set sim.duration=100)

# Compares two sweep.csv: the same header and every cell equal but the host-measured ones.
same_csv() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
host = {"wall_time_s", "packet_hops_per_s", "peak_memory_bytes",   # and what the allocator measured
        "memory.per_switch_bytes", "memory.per_host_bytes", "memory.per_link_bytes"}
a, b = (list(csv.reader(open(p))) for p in sys.argv[1:3])
if a[0] != b[0]: sys.exit(f"columns differ:\n  {a[0]}\n  {b[0]}")
if len(a) != 5 or len(b) != 5: sys.exit(f"expected 4 points, got {len(a) - 1} and {len(b) - 1}")
missing = host - set(a[0])
if missing: sys.exit(f"no column {sorted(missing)}")
for ra, rb in zip(a[1:], b[1:]):
    if ra[a[0].index("status")] != "ok": sys.exit(f"point {ra[0]}: {ra[a[0].index('status')]}")
    for name, x, y in zip(a[0], ra, rb):
        if name not in host and x != y: sys.exit(f"point {ra[0]} column {name}: {x} != {y}")
print(f"sweep.csv equal: {len(a) - 1} points, {len(a[0])} columns ({len(host)} measured on the host)")
PY
}

cd "$work" || fail "cannot enter $work"
"$netasic" "${sweep[@]}" -j 2 --out local || fail "the local -j2 sweep failed"

if [ "$mode" = parallel ]; then
  "$netasic" "${sweep[@]}" --emit parallel --out cluster 2>/dev/null || fail "--emit parallel failed"
  parallel --will-cite --jobs 2 < cluster/jobs.txt || fail "GNU parallel reported a failed job"
  "$netasic" "${sweep[@]}" --collect --out cluster || fail "--collect found failed points"
  same_csv cluster/sweep.csv local/sweep.csv || fail "the GNU parallel sweep differs from the local one"
  echo "PASS: GNU parallel ran the emitted sweep; --collect equals the local -j2 sweep"
  exit 0
fi

# Munge: a fresh key, its socket in the scratch directory.
head -c 1024 /dev/urandom > munge.key && chmod 600 munge.key
daemons+=("$work/munged.pid")
munged --force --key-file="$work/munge.key" --socket="$work/munge.sock" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munge.seed" || fail "munged did not start"

# Two free loopback ports for slurmctld and slurmd.
read -r ctld_port d_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
mkdir -p state spool
cat > slurm.conf <<EOF
ClusterName=netasic-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=n1 Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
daemons+=("$work/slurmd.pid" "$work/slurmctld.pid")
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N n1 || fail "slurmd did not start"
for _ in $(seq 300); do [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break; sleep 0.1; done
[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] || fail "the Slurm node did not come up idle within 30 s: $(sinfo 2>&1)"

"$netasic" "${sweep[@]}" --emit slurm --out cluster 2>/dev/null || fail "--emit slurm failed"
timeout 300 sbatch --wait --quiet cluster/sweep.slurm || fail "the Slurm array failed or did not finish in 300 s"
"$netasic" "${sweep[@]}" --collect --out cluster || fail "--collect found failed points"
same_csv cluster/sweep.csv local/sweep.csv || fail "the Slurm sweep differs from the local one"

# Control: task 3's run directory gone. --missing names it, the comparison fails, a rerun of
# that line alone restores it.
rm -rf cluster/point-003
listing=$("$netasic" "${sweep[@]}" --collect --missing --out cluster 2>missing.err)
rc=$?
[ $rc -eq 1 ] || fail "--collect --missing exited $rc with a run directory gone (expected 1)"
[ "$(cut -f1,2 <<<"$listing")" = "$(printf '3\tcluster/point-003')" ] || fail "--missing listed: $listing"
grep -q -- "sbatch --array=3 " missing.err || fail "--missing gave no rerun command: $(cat missing.err)"
"$netasic" "${sweep[@]}" --collect --out cluster 2>/dev/null && fail "--collect passed with point 3 gone"
same_csv cluster/sweep.csv local/sweep.csv >/dev/null 2>&1 && fail "the comparison passed with point 3 gone"
# The rerun as a slice with an offset (for clusters whose MaxArraySize is below the run count):
# task 1 + offset 2 is line 3.
timeout 300 sbatch --wait --quiet --array=1 --export=ALL,NETASIC_TASK_OFFSET=2 cluster/sweep.slurm ||
  fail "the rerun of line 3 (task 1, offset 2) failed"
"$netasic" "${sweep[@]}" --collect --missing --out cluster >/dev/null || fail "--missing still lists runs after the rerun"
"$netasic" "${sweep[@]}" --collect --out cluster || fail "--collect failed after the rerun"
same_csv cluster/sweep.csv local/sweep.csv || fail "the Slurm sweep differs from the local one after the rerun"
echo "PASS: Slurm ran the emitted array; --collect equals the local -j2 sweep; --missing found and a rerun of that line restored point 3"
