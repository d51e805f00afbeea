#!/usr/bin/env bash
# Sets everything up and runs the referee's main job on the embedded default:
# checks the scenario library and plays a few random games.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/referee scenario check scenarios/
.venv/bin/referee simulate --games 20 --seed 1
