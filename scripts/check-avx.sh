#!/usr/bin/env bash
# Checks that a binary built for the x86-64 baseline (-DNPUSCOPE_MARCH=x86-64, as packaged) runs
# on any x86-64 CPU: AVX, AVX2, BMI, LZCNT and PCLMUL instructions appear only in the code that is
# called after a run-time CPU check (simdjson's haswell/icelake kernels, npuscope::avx2 and the
# copies renamed by cmake/localise_avx2_object.cmake). BMI mnemonics are matched whole (SSE2's
# andnpd is not BMI's andn). Usage: check-avx.sh BINARY
set -euo pipefail
bin=${1:?usage: check-avx.sh BINARY}
objdump -d --no-show-raw-insn "$bin" | awk '
  /^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn); next }
  /^ +[0-9a-f]+:\t/ {
    split($0, parts, "\t"); insn = parts[2]; split(insn, w, " "); op = w[1]
    if (insn ~ /%[yz]mm/ || op ~ /^v/ || op ~ /^(andn|bextr|blsi|blsmsk|blsr|bzhi|lzcnt|mulx|pdep|pext|rorx|sarx|shlx|shrx)[bwlq]?$/ || op ~ /^pclmul/) {
      if (fn ~ /8simdjson(7haswell|7icelake)|8npuscope4avx2|\.npuscope_avx2|makeAvx2ChunkParser/) { allowed++; next }
      if (!(fn in bad)) { bad[fn] = op; nbad++ }
    }
  }
  END {
    for (f in bad) {
      cmd = "c++filt \"" f "\""; cmd | getline name; close(cmd)
      printf "check-avx: %s uses %s outside the run-time dispatched code\n", name, bad[f] > "/dev/stderr"
    }
    printf "check-avx: %d instructions in dispatched code, %d functions outside it\n", allowed, nbad
    exit nbad > 0
  }'
