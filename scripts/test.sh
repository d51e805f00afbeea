#!/usr/bin/env bash
# Sets everything up and runs the whole test suite, PostgreSQL and the browser included.
#
# The storage tests run against SQLite and PostgreSQL. Point
# REFEREE_TEST_POSTGRES at a server you have, or run this as root on Debian and
# .ci/postgres.sh installs and starts one from Debian's packages.
# The board's browser tests drive Debian's chromium: REFEREE_CHROMIUM names a
# browser you have, else .ci/chromium.sh installs it (as root on Debian).
# Not root? REFEREE_SKIP_POSTGRES=1 and REFEREE_SKIP_BROWSER=1 skip those tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
if [ -z "${REFEREE_TEST_POSTGRES:-}" ] && [ -z "${REFEREE_SKIP_POSTGRES:-}" ]; then
    REFEREE_TEST_POSTGRES="$(bash .ci/postgres.sh)"
    export REFEREE_TEST_POSTGRES
fi
if [ -z "${REFEREE_CHROMIUM:-}" ] && [ -z "${REFEREE_SKIP_BROWSER:-}" ]; then
    REFEREE_CHROMIUM="$(bash .ci/chromium.sh)"
    export REFEREE_CHROMIUM
fi
# The log ends with the 15 slowest tests (where CI's time goes) and the
# reason of every skipped test (why it did not run here).
exec .venv/bin/python -m pytest --durations=15 -rs "$@"
