#!/usr/bin/env bash
# Makes the committed seed corpus of fuzz_pipeline (fuzz/corpus/pipeline/) from every text file
# of the real samples: the slot byte of fuzz_pipeline.cpp's kSlots that the file's kind goes to,
# then the file's first MAX bytes (default 8192). SQLite exports are left out (the pipeline's
# folder is a text export). Run again when samples are added: bash fuzz/seed-pipeline.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
samples="${NPUSCOPE_SAMPLES:-$here/../../shared/samples/real}"
out="${1:-$here/corpus/pipeline}"
max="${MAX:-8192}"
rm -rf "$out" && mkdir -p "$out"
n=0
while IFS= read -r f; do
  b="$(basename "$f")"
  case "$b" in
    *.db|*.md) continue ;;
    kernel_details*|op_summary*) slot=1 ;;
    op_statistic*) slot=2 ;;
    cluster_step_trace*|step_trace_time*) slot=3 ;;
    *communication_matrix*.json) slot=5 ;;
    *communication*.json) slot=4 ;;
    memory_record*) slot=6 ;;
    npu_module_mem*) slot=7 ;;
    operator_memory*) slot=8 ;;
    operator_details*) slot=9 ;;
    profiler_info*|info.json*) slot=10 ;;
    profiler_metadata*) slot=11 ;;
    l2_cache*) slot=12 ;;
    api_statistic*) slot=13 ;;
    *.json) slot=0 ;;
    *) slot=2 ;;
  esac
  n=$((n + 1))
  { printf "\\x$(printf %02x "$slot")"; head -c "$max" "$f"; } >"$out/$(printf %03d "$n")-$b"
done < <(find "$samples" -type f | LC_ALL=C sort)
echo "seed-pipeline: $n seeds, $(du -sk "$out" | cut -f1) KiB in $out"
