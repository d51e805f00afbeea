#!/usr/bin/env bash
# Sets everything up and runs the whole test suite, PostgreSQL included.
#
# The storage tests run against SQLite and PostgreSQL. Point
# REFEREE_TEST_POSTGRES at a server you have, or run this as root on Debian and
# .ci/postgres.sh installs and starts one from Debian's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
if [ -z "${REFEREE_TEST_POSTGRES:-}" ] && [ -z "${REFEREE_SKIP_POSTGRES:-}" ]; then
    REFEREE_TEST_POSTGRES="$(bash .ci/postgres.sh)"
    export REFEREE_TEST_POSTGRES
fi
exec .venv/bin/python -m pytest "$@"
