#!/usr/bin/env bash
# Configures and builds npuscope into ./build (Release with debug info).
set -euo pipefail
cd "$(dirname "$0")/.."
# With Open MPI installed (scripts/deps.sh), the test build also builds cluster-summary for mpirun
# and registers its multi-process tests; the package build (check-package.sh) stays MPI-free.
mpi=()
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  mpi=(-DNPUSCOPE_MPI=ON)
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${mpi[@]}" >/dev/null
cmake --build build -j"$(nproc)"
