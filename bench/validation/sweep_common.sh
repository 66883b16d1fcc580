# Sourced by bench/validation/*.sh after they set `out` (their default OUTDIR): reads
# [BIN] [OUTDIR] [SWEEP...] and SEEDS, JOBS, SCALE, and defines `sweep NAME ARGS...`, which runs
# `netasic sweep ARGS --seeds SEEDS` into OUTDIR/NAME unless only other sweeps were named or its
# sweep.csv is already there (delete its directory to run it again), and `once DIR ARGS...`,
# one `netasic run ARGS` into DIR unless its summary.json is there.
bin=${1:-build/netasic}
out=${2:-$out}
shift $(($# < 2 ? $# : 2))
only=" $* "
seeds=${SEEDS:-5}
jobs=${JOBS:-2}
scale=${SCALE:-1}
[ -x "$bin" ] || { echo "error: $bin not found; build the netasic target first" >&2; exit 1; }

sweep() {
  local name=$1
  shift
  if [ "$only" != "  " ] && [[ $only != *" $name "* ]]; then return; fi
  if [ -f "$out/$name/sweep.csv" ]; then
    echo "== $name: kept ($out/$name)" >&2
    return
  fi
  echo "== $name" >&2
  rm -rf "${out:?}/$name"
  "$bin" sweep "$@" --seeds "$seeds" -j "$jobs" --quiet --out "$out/$name" >&2
}

once() {
  local dir=$1
  shift
  [ -f "$dir/summary.json" ] || "$bin" run "$@" --quiet --out "$dir"
}
