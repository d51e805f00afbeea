#!/usr/bin/env bash
# Creates .venv and installs the referee into it (editable), with the test
# tools when called with --test, at the versions pinned in constraints.txt
# (the ones the tests pass with; scripts/lock.sh updates them). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
extra=""
[ "${1:-}" = "--test" ] && extra="[test]"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".${extra}"
