#!/usr/bin/env bash
# Times `npuscope cluster-summary` on one machine: P = 1, 2 and 4 mpirun processes (one folder
# at a time each) and the one-process thread pool, on a generated cluster, and checks that every
# run wrote the same bytes. docs/CLUSTER-SUMMARY.md extrapolates the figures to N nodes.
#
#   bash bench/cluster_summary.sh [--bin build/app/npuscope] [--ranks 16] [--rank-mb 20] [--out DIR] [--runs 3]
#
# Needs a binary built with -DNPUSCOPE_MPI=ON and mpirun for the P rows (without them only the
# thread-pool row is printed).
set -euo pipefail
bin=build/app/npuscope ranks=16 rank_mb=20 out=/tmp/npuscope-cluster-bench runs=3
while (($#)); do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --rank-mb) rank_mb=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "cluster_summary.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "cluster_summary.sh: no binary at $bin (build first, or --bin)" >&2; exit 1; }
root=$out/cluster-$ranks-x-${rank_mb}mb
if [ ! -d "$root" ]; then
  "$bin" synth "$root" --scenario cluster-slowrank --ranks "$ranks" --target-mb "$rank_mb" --quiet
  rm -rf "$root/cluster_analysis_output"   # the ranks' own files are the input
fi
bytes=$(du -sb "$root" | cut -f1)
mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}')
echo "cluster: $ranks ranks, $mb MB in $root; $(nproc) cores; median of $runs runs"

# Median wall time (s) of a command over $runs runs.
timed() {
  local t=()
  for ((i = 0; i < runs; i++)); do
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "cluster_summary.sh: failed: $*" >&2; exit 1; }
    e=$(date +%s.%N)
    t+=("$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.3f", e-s}')")
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

printf '%-26s %9s %9s %12s\n' run seconds MB/s summary_KB
ref=$out/threads.json
s=$(timed "$bin" cluster-summary "$root" -o "$ref" --quiet)
printf '%-26s %9s %9s %12s\n' "threads ($(nproc))" "$s" "$(awk -v m="$mb" -v s="$s" 'BEGIN{printf "%.0f", m/s}')" \
  "$(( $(stat -c %s "$ref") / 1024 ))"
if command -v mpirun >/dev/null && "$bin" cluster-summary --help 2>&1 | grep -q "runs under mpirun"; then
  for p in 1 2 4; do
    f=$out/mpi$p.json
    s=$(timed mpirun --oversubscribe --allow-run-as-root -np "$p" "$bin" cluster-summary "$root" -o "$f" --quiet)
    same=$(cmp -s "$f" "$ref" && echo same || echo DIFFERENT)
    printf '%-26s %9s %9s %12s  %s\n' "mpirun -np $p" "$s" "$(awk -v m="$mb" -v s="$s" 'BEGIN{printf "%.0f", m/s}')" \
      "$(( $(stat -c %s "$f") / 1024 ))" "$same bytes as threads"
    [ "$same" = same ] || exit 1
  done
fi
