#!/bin/bash
# The VM suite's scenarios; runs inside the guest that scripts/vm-e2e.sh boots, as root, over the
# host's filesystem. Usage: guest.sh OUT_DIR BIN_DIR REPO_DIR
# Writes OUT_DIR/results.txt: one 'PASS name' / 'FAIL name: why' line per scenario.
set -u
OUT=$1
BIN=$2
REPO=$3
CTL="$BIN/touchrouterctl"
CONFIG="$REPO/scripts/vm/config.json5"
EVEMU="$REPO/Tests/Fixtures/recordings/evemu"
RESULTS="$OUT/results.txt"
# The results directory is shared with the host (9p): no fifos there.
FIFOS=$(mktemp -d /run/touchrouter-vm.XXXXXX 2>/dev/null || mktemp -d)
: > "$RESULTS"
exec > "$OUT/guest.log" 2>&1
set -x

pass() { echo "PASS $1" >> "$RESULTS"; }
fail() { echo "FAIL $1: $2" >> "$RESULTS"; }

# count FILE PATTERN: lines matching (extended regex), 0 when none or no file.
count() { local n; n=$(grep -Ec -- "$2" "$1" 2>/dev/null); echo "${n:-0}"; }

# wait_for FILE PATTERN N SECONDS: until FILE has at least N lines matching PATTERN.
wait_for() {
    local deadline=$((SECONDS + $4))
    while [ "$(count "$1" "$2")" -lt "$3" ]; do
        [ "$SECONDS" -ge "$deadline" ] && return 1
        sleep 0.2
    done
}

# The one live reader for the whole run: devices come and go under it with no restart.
READER_OUT="$OUT/reader.out"
start_reader() {
    "$CTL" input-events --config "$CONFIG" > "$READER_OUT" 2> "$OUT/reader.log" &
    READER_PID=$!
    wait_for "$READER_OUT" '^ready$' 1 60
}

# added_id NAME: the newest dev id the reader assigned to a device of that name.
added_id() { grep -E "^added dev=[0-9]+ screen=[^ ]+ name=$1\$" "$READER_OUT" | tail -1 | sed -E 's/^added dev=([0-9]+).*/\1/'; }

# device_frames ID: the reader's frame lines of one device.
device_frames() { grep -E "^frame [^ ]+ [0-9]+ dev=$1( |\$)" "$READER_OUT"; }

# inject_recording DESC EVENTS TAG: plays EVENTS through our injector; leaves the live transcript
# in $OUT/TAG.live. Returns non-zero when the device never showed up or never went away.
inject_recording() {
    local desc=$1 events=$2 tag=$3 name fifo="$FIFOS/$3.go" before id
    name=$(sed -n 's/^N: //p' "$desc")
    before=$(count "$READER_OUT" '^added ')
    mkfifo "$fifo"
    "$CTL" inject --device-desc "$desc" --recording "$events" --wait-stdin --start-delay 0 \
        < "$fifo" > "$OUT/$tag.inject" 2>&1 &
    local pid=$!
    exec 7> "$fifo"
    wait_for "$READER_OUT" '^added ' $((before + 1)) 30 || { exec 7>&-; kill $pid; return 1; }
    id=$(added_id "$name")
    echo go >&7
    exec 7>&-
    wait $pid || return 1
    wait_for "$READER_OUT" "^removed dev=$id " 1 60 || return 1
    device_frames "$id" > "$OUT/$tag.live"
}

# evemu_recording DESC EVENTS TAG: the same through evemu-device + evemu-play.
evemu_recording() {
    local desc=$1 events=$2 tag=$3 name before id node
    name=$(sed -n 's/^N: //p' "$desc")
    before=$(count "$READER_OUT" '^added ')
    evemu-device "$desc" > "$OUT/$tag.evemu" 2>&1 &
    local pid=$!
    wait_for "$READER_OUT" '^added ' $((before + 1)) 30 || { kill $pid; return 1; }
    id=$(added_id "$name")
    node=$(grep -o '/dev/input/event[0-9]*' "$OUT/$tag.evemu" | head -1)
    evemu-play "$node" < "$events" || { kill $pid; return 1; }
    sleep 0.5
    kill $pid
    wait $pid
    wait_for "$READER_OUT" "^removed dev=$id " 1 60 || return 1
    device_frames "$id" > "$OUT/$tag.live"
}

# expected TAG DESC EVENTS: the replay decoder's transcript of the recording (same config).
expected() {
    "$CTL" input-events --config "$CONFIG" --replay "$3" --device-desc "$2" > "$OUT/$1.expected" 2> "$OUT/$1.expected.log"
}

# compare TAG: the live transcript against the decoder's, contact by contact.
compare() {
    "$CTL" transcript-diff "$OUT/$1.expected" "$OUT/$1.live" > "$OUT/$1.diff" 2>&1
}

modprobe uinput
/lib/systemd/systemd-udevd --daemon
udevadm trigger && udevadm settle

start_reader || { fail reader "input-events never became ready"; exit 0; }

# 1. Every shared recording through our injector and through evemu-play agrees with the decoder.
for events in "$EVEMU"/*.events; do
    base=$(basename "$events" .events)
    device=${base%%.*}
    desc="$EVEMU/$device.desc"
    tag=$(echo "$base" | tr ' ' '_')
    for route in inject evemu; do
        name="recording $route $base"
        if [ $route = inject ]; then
            inject_recording "$desc" "$events" "$tag.$route" || { fail "$name" "device not seen or not removed"; continue; }
        else
            evemu_recording "$desc" "$events" "$tag.$route" || { fail "$name" "device not seen or not removed"; continue; }
        fi
        frames=$(wc -l < "$OUT/$tag.$route.live")
        if [ "$frames" -eq 0 ]; then fail "$name" "no frames"; continue; fi
        if "$CTL" help transcript-diff > /dev/null 2>&1; then
            expected "$tag.$route" "$desc" "$events" && compare "$tag.$route" \
                && pass "$name ($frames frames agree with the replay decoder)" \
                || fail "$name" "$(head -3 "$OUT/$tag.$route.diff" | tr '\n' ';')"
        else
            pass "$name ($frames frames; no decoder to compare with yet)"
        fi
    done
done

# 2. Unplug mid-touch: two fingers down, the device destroyed → removed (each touch cancelled);
#    a new device of the same name routes again with the same reader (no restart).
unplug() {
    local name="touchrouter virtual touchscreen" before id id2 pid
    before=$(count "$READER_OUT" '^added ')
    "$CTL" inject --gesture "hold 100 100 60000|hold 1500 900 60000" --start-delay 3000 \
        > "$OUT/unplug.inject" 2>&1 &
    pid=$!
    wait_for "$READER_OUT" '^added ' $((before + 1)) 60 || { kill $pid; echo "device not seen"; return 1; }
    id=$(added_id "$name")
    wait_for "$READER_OUT" "^frame main [0-9]+ dev=$id .*down" 1 60 || { kill $pid; echo "no down"; return 1; }
    local downs
    downs=$(device_frames "$id" | grep -o 'down:' | wc -l)
    [ "$downs" -eq 2 ] || { kill $pid; echo "$downs fingers down, expected 2"; return 1; }
    kill -TERM $pid
    wait $pid
    wait_for "$READER_OUT" "^removed dev=$id " 1 60 || { echo "no removal after SIGTERM"; return 1; }
    if device_frames "$id" | grep -q 'up:'; then echo "a finger went up instead of being cancelled"; return 1; fi
    grep -q "device /dev/input/event" "$OUT/unplug.inject" || { echo "injector did not report its node"; return 1; }
    # Re-plug: a new id, frames again, same reader process.
    before=$(count "$READER_OUT" '^added ')
    "$CTL" inject --gesture "tap 1000 500" --start-delay 3000 > "$OUT/replug.inject" 2>&1 || { echo "re-inject failed"; return 1; }
    wait_for "$READER_OUT" '^added ' $((before + 1)) 10 || { echo "re-plugged device not seen"; return 1; }
    id2=$(added_id "$name")
    [ "$id2" != "$id" ] || { echo "re-plugged device kept id $id"; return 1; }
    wait_for "$READER_OUT" "^removed dev=$id2 " 1 60 || { echo "re-plugged device not removed"; return 1; }
    device_frames "$id2" | grep -q " down:[0-9]+:1000.000:500.000" -E || { echo "no down at (1000, 500) after re-plug"; return 1; }
    kill -0 "$READER_PID" || { echo "the reader died"; return 1; }
    echo "dev $id: 2 fingers down then removed with no up; dev $id2 routes after re-plug"
}
if detail=$(unplug); then pass "unplug mid-touch and re-plug ($detail)"; else fail "unplug mid-touch and re-plug" "$detail"; fi

# 3. A keyboard appears: ignored (logged once), no touch device added.
keyboard() {
    local before pid
    before=$(count "$READER_OUT" '^added ')
    "$CTL" inject --keyboard --hold --name "touchrouter test keyboard" > "$OUT/keyboard.inject" 2>&1 &
    pid=$!
    wait_for "$OUT/reader.log" 'ignoring touchrouter test keyboard .*not a touch device' 1 60 \
        || { kill $pid; echo "no 'ignoring' log line"; return 1; }
    kill -TERM $pid
    wait $pid
    [ "$(count "$READER_OUT" '^added ')" -eq "$before" ] || { echo "the keyboard was added as a touch device"; return 1; }
    [ "$(count "$OUT/reader.log" 'ignoring touchrouter test keyboard')" -eq 1 ] || { echo "logged more than once"; return 1; }
    echo "logged once, not used"
}
if detail=$(keyboard); then pass "keyboard ignored ($detail)"; else fail "keyboard ignored" "$detail"; fi

# 4. Two touchscreens on two screens: each taps at axis (480, 270) of 1920x1080 = (0.25, 0.25);
#    'left' (1000x500) gets (250, 125); 'right' (800x600, rotation 90) gets (600, 150).
two_screens() {
    local before left right
    before=$(count "$READER_OUT" '^added ')
    "$CTL" inject --name "left panel" --gesture "tap 480 270" --start-delay 4000 > "$OUT/left.inject" 2>&1 &
    left=$!
    "$CTL" inject --name "right panel" --gesture "tap 480 270" --start-delay 4000 > "$OUT/right.inject" 2>&1 &
    right=$!
    wait $left; wait $right
    wait_for "$READER_OUT" '^added ' $((before + 2)) 10 || { echo "both devices not seen"; return 1; }
    local lid rid
    lid=$(added_id "left panel"); rid=$(added_id "right panel")
    wait_for "$READER_OUT" "^removed dev=($lid|$rid) " 2 60 || { echo "not both removed"; return 1; }
    device_frames "$lid" | grep -Eq '^frame left .* down:[0-9]+:250.000:125.000' \
        || { echo "left: $(device_frames "$lid" | head -1)"; return 1; }
    device_frames "$rid" | grep -Eq '^frame right .* down:[0-9]+:600.000:150.000' \
        || { echo "right: $(device_frames "$rid" | head -1)"; return 1; }
    echo "left (250, 125), right rotated (600, 150)"
}
if detail=$(two_screens); then pass "two touchscreens, two screens ($detail)"; else fail "two touchscreens, two screens" "$detail"; fi

kill "$READER_PID"
echo "guest done" >> "$OUT/guest.log"
