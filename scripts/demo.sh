#!/usr/bin/env bash
# Sets everything up and runs the referee's main job on the embedded SQLite
# default (referee.db in the current directory, or $REFEREE_DB): stores a new
# match, shows who must act and the board, imports and audits a recorded
# game, then checks the scenario library. Each run stores a new demo match
# and a new copy of the sample record beside those of earlier runs.
# --no-setup skips scripts/setup.sh (after a first run).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = "--no-setup" ] || scripts/setup.sh
referee=.venv/bin/referee
store="${REFEREE_DB:-sqlite:///referee.db}"
# The referee's own "Next:" lines say who acts in the match; the demo says
# what to do next once, at its end.
quiet_next() { grep -v '^Next:' || true; }

said=$(mktemp)
trap 'rm -f "$said"' EXIT
match=$($referee new --deck A=scenarios/decks/alice.yaml --deck B=scenarios/decks/bob.yaml \
        --name A=Alice --name B=Bob --seed 1 --title "Demo match" 2>"$said") || { cat "$said" >&2; exit 1; }
echo "== a new match, $match, stored in $store"
sed 's/ Next: .*//' "$said"
echo "-- A chooses an opening character: the events it caused"
$referee act "$match" A choose_opening "Palace Herald" | quiet_next
echo "-- who must act now, and every legal action"
$referee legal "$match" | sed 's/^Next: /Now: /'
echo "-- the board as the judge sees it"
$referee state "$match" | quiet_next
played=""
if [ -f scenarios/records/complete-legal-game.yaml ]; then
    echo "== a whole recorded game, imported and audited"
    # Typed by hand, so it carries no signed chain: it is stored with a warning and a note in its log.
    played=$($referee import scenarios/records/complete-legal-game.yaml --name "Sample record")
    echo "-- stored as $played; exported again, it is signed by this store's key ($referee key)"
    $referee export "$played" | tail -n 1
    echo "-- its board just after event 300, as player A may see it"
    $referee state "$played" --at 300 --as A | quiet_next
    $referee audit scenarios/records/complete-legal-game.yaml || true
fi
echo "== the scenario library"
$referee scenario check scenarios/
echo
echo "The demo match is $match${played:+ and the sample record $played}, stored in $store;"
fresh="delete the store's tables to start afresh"
case "$store" in sqlite:///*) fresh="delete ${store#sqlite:///} to start afresh" ;; esac
echo "every run of this script adds new ones ($referee matches lists them all; $fresh)."
echo "Next:"
echo "  play the demo match on:  $referee legal $match   (docs/tutorials/first-match.md)"
echo "  see it in a browser:     $referee serve, then open http://127.0.0.1:8000/matches/$match"
echo "  read on:                 README.md's contents (tutorials, how-to guides, reference, explanation)"
