#!/usr/bin/env bash
# Builds the seed corpora for the fuzz harnesses from the real samples (FORMATS.md §8) into
# OUT/<harness>/ (default build-fuzz/seeds). Seeds are small: whole files up to MAX bytes, and
# prefixes of larger ones (which are also the "truncated mid-write" case). Harnesses that cover
# several readers take a first byte choosing the reader (fuzz_reader.cpp); their seeds carry it.
# Nothing here is committed: fuzz/regressions/ holds the committed inputs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
samples="${NPUSCOPE_SAMPLES:-$here/../../shared/samples/real}"
out="${1:-$here/../build-fuzz/seeds}"
max="${MAX:-16384}"
[ -d "$samples" ] || { echo "seed.sh: no samples at $samples" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

n=0
# add HARNESS PICK FILE: copy the file (or its first $max bytes), after the pick byte when PICK
# is not "-". Two prefixes of a larger file give both a mid-file and an early cut.
add() {
  local harness="$1" pick="$2" file="$3" dir="$out/$1"
  mkdir -p "$dir"
  n=$((n + 1))
  local size; size=$(stat -c %s "$file")
  local cuts=("$max")
  if [ "$size" -gt "$max" ]; then cuts=("$max" $((max / 4))); fi
  for cut in "${cuts[@]}"; do
    local dst="$dir/$(basename "$file").$n.$cut"
    if [ "$pick" = "-" ]; then
      head -c "$cut" "$file" > "$dst"
    else
      { printf "\\x$(printf %02x "$pick")"; head -c "$cut" "$file"; } > "$dst"
    fi
  done
}

find_each() { find "$samples" -type f -name "$1" | sort; }

for f in $(find_each 'trace_view*.json') $(find_each 'msprof_*.json') \
         $(find "$samples/chrome-trace" -type f -name '*.json' -size -20k | sort); do
  add timeline_json - "$f"
done
for f in $(find_each 'kernel_details*.csv') $(find_each 'op_summary*.csv'); do add kernel_csv - "$f"; done
# table_csv picks: 0 op_statistic, 1 api_statistic, 2 communication_statistic, 3 task_time,
# 4 step_trace_time, 5 memory (npu_mem, memory_record, npu_module_mem), 6 l2_cache, 7 cluster step trace
for f in $(find_each 'op_statistic*.csv'); do add table_csv 0 "$f"; done
for f in $(find_each 'api_statistic*.csv'); do add table_csv 1 "$f"; done
for f in $(find_each 'communication_statistic*.csv'); do add table_csv 2 "$f"; done
for f in $(find_each 'task_time*.csv'); do add table_csv 3 "$f"; done
for f in $(find_each 'step_trace_time*.csv' | grep -v cluster_); do add table_csv 4 "$f"; done
for f in $(find_each 'memory_record*.csv') $(find_each 'npu_module_mem*.csv') $(find_each 'npu_mem*.csv'); do
  add table_csv 5 "$f"
done
for f in $(find_each 'l2_cache*.csv'); do add table_csv 6 "$f"; done
for f in $(find_each 'cluster_step_trace_time*.csv'); do add table_csv 7 "$f"; done
# comm_json picks: 0 communication, 1 communication_matrix, 2 cluster_communication, 3 cluster matrix
for f in $(find_each 'communication.json'); do add comm_json 0 "$f"; done
for f in $(find_each 'communication_matrix.json'); do add comm_json 1 "$f"; done
for f in $(find_each 'cluster_communication.json'); do add comm_json 2 "$f"; done
for f in $(find_each 'cluster_communication_matrix.json'); do add comm_json 3 "$f"; done
# info_json picks: 0 info.json, 1 profiler_info, 2 profiler_metadata
for f in $(find_each 'info.json*'); do add info_json 0 "$f"; done
for f in $(find_each 'profiler_info*.json'); do add info_json 1 "$f"; done
for f in $(find_each 'profiler_metadata*.json'); do add info_json 2 "$f"; done
# sqlite_db picks: 0 profiler db, 1 analysis.db. Whole pages matter to SQLite: keep the
# small analysis databases whole and only the smallest profiler db.
for f in $(find_each 'analysis.db' | head -2); do max=32768 add sqlite_db 1 "$f"; done
for f in $(find_each 'ascend_pytorch_profiler*.db' | head -1); do max=700000 add sqlite_db 0 "$f"; done

# The simplified task JSON has no real sample (FORMATS.md §7): two tiny hand-written ones.
mkdir -p "$out/simplified_json"
printf '%s' '{"tasks":[{"name":"matmul","start_time":0.5,"end_time":1.25,"ai_core_utilization":0.8,"l2_cache_hit_rate":93,"memory_read_bytes":1024,"memory_write_bytes":2048},{"name":"add","start_time":1.3,"end_time":1.4}]}' \
  > "$out/simplified_json/two_tasks.json"
printf '%s' '{"tasks":[]}' > "$out/simplified_json/empty.json"
cp "$out/simplified_json/two_tasks.json" "$out/timeline_json/simplified.json"

for d in "$out"/*/; do echo "$(basename "$d"): $(ls "$d" | wc -l) seeds, $(du -sk "$d" | cut -f1) KiB"; done
