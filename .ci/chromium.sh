#!/usr/bin/env bash
# Chromium for the referee's browser tests (tests/browser/), on a fresh Debian
# machine (run as root), as .ci/postgres.sh does for PostgreSQL.
#
# Installs Debian's `chromium` package if it is missing (the only network it
# needs is the Debian mirror; Playwright never downloads a browser of its own)
# and prints the browser's path as the only line on standard output:
#
#     export REFEREE_CHROMIUM="$(.ci/chromium.sh)"
#     .venv/bin/pytest tests/browser
#
# Safe to run again: with the browser there it installs nothing and works
# offline. Progress goes to stderr.
set -euo pipefail

say() { echo "chromium.sh: $*" >&2; }

browser=""
for candidate in /usr/bin/chromium "$(command -v chromium 2>/dev/null || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then browser="$candidate"; break; fi
done

if [ -z "$browser" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        say "chromium is not installed and I am not root: run me as root, install Debian's chromium package, or set REFEREE_SKIP_BROWSER=1 to skip the browser tests"
        exit 1
    fi
    say "installing chromium from the Debian packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y chromium >&2
    browser=/usr/bin/chromium
fi

"$browser" --version >&2 2>/dev/null || { say "$browser does not run"; exit 1; }
echo "$browser"
