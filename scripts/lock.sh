#!/usr/bin/env bash
# Rebuilds constraints.txt from the newest releases the package index serves
# that satisfy pyproject.toml, in a throwaway virtual environment. Run it on
# purpose (to take new versions), then scripts/test.sh, then commit both.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[test]"
{
    echo "# The versions the referee's tests pass with: scripts/setup.sh installs with"
    echo "# pip install -c constraints.txt. Update on purpose: scripts/lock.sh rebuilds it"
    echo "# from the newest releases, then run scripts/test.sh before committing it."
    "$tmp/venv/bin/python" -m pip freeze --exclude-editable --disable-pip-version-check | grep -v '^referee'
} >constraints.txt
echo "constraints.txt rebuilt; run scripts/test.sh, then commit it" >&2
