#!/usr/bin/env bash
# Configures and builds npuscope into ./build (Release with line tables): every target, or only
# the targets named as arguments (the demo builds `npuscope`, which brings `npuscope-gui`).
# NPUSCOPE_MARCH=x86-64 builds for any x86-64 CPU instead of this machine's (CI does, so that
# the package check can package this same build instead of compiling everything again).
set -euo pipefail
cd "$(dirname "$0")/.."
# With Open MPI installed (scripts/deps.sh), the test build also builds cluster-summary for mpirun
# and registers its multi-process tests; the package build (check-package.sh) stays MPI-free.
mpi=()
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  mpi=(-DNPUSCOPE_MPI=ON)
fi
march=()
if [ -n "${NPUSCOPE_MARCH:-}" ]; then
  march=(-DNPUSCOPE_MARCH="$NPUSCOPE_MARCH")
fi
# Line tables only (-g1): backtraces and perf keep file and line, and the build (about 70
# executables) compiles and links faster than with full debug info.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "${mpi[@]}" "${march[@]}" >/dev/null
# One job more than cores: a core is not left idle while another job links or writes.
cmake --build build -j"$(( $(nproc) + 1 ))" ${1:+--target "$@"}
