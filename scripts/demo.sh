#!/bin/sh
# The touchrouter demo: build, start touchrouterd on the example kiosk layout with a real
# touchscreen recording replayed in a loop, and watch the routed touches (view ids and local
# coordinates) with touchrouterctl monitor. Ctrl-C stops both. Needs no touch hardware.
# On a fresh machine it first installs the C libraries it links (scripts/setup, only what is missing).
#   scripts/demo.sh
set -eu
cd "$(dirname "$0")/.."
scripts/setup --no-vm
swift build --product touchrouterd
swift build --product touchrouterctl
bin="$(swift build --show-bin-path)"
socket="${TMPDIR:-/tmp}/touchrouter-demo-$$.sock"
"$bin/touchrouterd" --config config/kiosk.json5 --socket "$socket" \
    --replay Tests/Fixtures/recordings/libinput/ep0430m09-4-finger-drag-down.yml --loop --replay-wait &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null' EXIT INT TERM
while [ ! -S "$socket" ]; do
    kill -0 $daemon 2>/dev/null || exit 1
    sleep 0.1
done
"$bin/touchrouterctl" monitor --socket "$socket"
