#!/usr/bin/env bash
# Sets everything up and runs the referee's main job on the embedded SQLite
# default (referee.db in the current directory): stores a new match, shows
# who must act and the board, then checks the scenario library.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
referee=.venv/bin/referee
match=$($referee new --deck A=scenarios/decks/alice.yaml --deck B=scenarios/decks/bob.yaml \
        --name A=Alice --name B=Bob --seed 1 --title "Demo match")
echo "== stored match $match in referee.db"
$referee act "$match" A choose_opening "Palace Herald"
$referee legal "$match"
echo "== the board as the judge sees it"
$referee state "$match"
if [ -f scenarios/records/complete-legal-game.yaml ]; then
    echo "== a whole recorded game, imported and audited"
    # Typed by hand, so it carries no signed chain: it is stored with a warning and a note in its log.
    played=$($referee import scenarios/records/complete-legal-game.yaml --name "Sample record")
    echo "-- exported again, it is signed by this store's key ($referee key)"
    $referee export "$played" | tail -n 1
    echo "-- its board just after event 300, as player A may see it"
    $referee state "$played" --at 300 --as A
    $referee audit scenarios/records/complete-legal-game.yaml || true
fi
echo "== the scenario library"
$referee scenario check scenarios/
echo "== the judges' board in a browser"
echo "Run:  $referee serve"
echo "then open http://127.0.0.1:8000/matches/$match (the demo match; the first page lists every match)."
