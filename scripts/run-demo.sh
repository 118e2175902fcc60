#!/usr/bin/env bash
# The main job: install what is missing, build, and open the GUI on the bundled demo profile
# (generated on first run). Without a display it prints the demo's top operators and advisor
# summary instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the two programs are built: the tests are scripts/test.sh's.
bash scripts/deps.sh --build-only
bash scripts/build.sh npuscope
exec ./build/app/npuscope --demo "$@"
