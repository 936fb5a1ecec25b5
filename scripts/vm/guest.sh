#!/bin/bash
# The VM suite's scenarios; runs inside the guest that scripts/vm-e2e.sh boots, as root, over the
# host's filesystem. Usage: guest.sh OUT_DIR BIN_DIR REPO_DIR [SKIP_RECORDINGS]
# (SKIP_RECORDINGS=1 leaves scenario 1 out, for iterating on the others.)
# Writes OUT_DIR/results.txt: one 'PASS name (detail)' / 'FAIL name: why' line per scenario, and
# OUT_DIR/guest.log (a trace), reader.out / reader.log (the live reader's transcript and log).
set -u
OUT=$1
BIN=$2
REPO=$3
SKIP_RECORDINGS=${4:-0}
# ONLY=FUNCTION runs that scenario alone (with SKIP_RECORDINGS=1), for iterating on it.
ONLY=${5:-}
CTL="$BIN/touchrouterctl"
CONFIG="$REPO/scripts/vm/config.json5"
EVEMU="$REPO/Tests/Fixtures/recordings/evemu"
PROTOCOL_A="$REPO/Tests/Fixtures/recordings/protocol-a"
RESULTS="$OUT/results.txt"
: > "$RESULTS"
# The results directory is shared with the host (9p): fifos, and the files the long-running
# processes write line by line (9p writes are slow under TCG), live in the guest's own /run and
# are copied out at the end.
FIFOS=$(mktemp -d /run/touchrouter-vm.XXXXXX)
WORK=$FIFOS
trap 'cp "$WORK"/*.out "$WORK"/*.log "$WORK"/*.json5 "$OUT"/ 2>/dev/null' EXIT
exec > "$OUT/guest.log" 2>&1
set -x

pass() { echo "PASS $1" >> "$RESULTS"; }
fail() { echo "FAIL $1: $2" >> "$RESULTS"; }
# scenario NAME FUNCTION ARGS...: runs FUNCTION in a subshell; its last stdout line is the detail.
scenario() {
    local name=$1 detail started=$SECONDS
    shift
    if [ -n "$ONLY" ] && [ "$ONLY" != "$1" ]; then return 0; fi
    if detail=$("$@" 2>>"$OUT/guest.log"); then pass "$name (${detail##*$'\n'})"; else fail "$name" "${detail##*$'\n'}"; fi
    echo "scenario '$name' took $((SECONDS - started)) s"
}

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
READER_OUT="$WORK/reader.out"
READER_LOG="$WORK/reader.log"
"$CTL" input-events --config "$CONFIG" > "$READER_OUT" 2> "$READER_LOG" &
READER_PID=$!

added_pattern() { echo "^added dev=[0-9]+ screen=[^ ]+ name=$1\$"; }
# added_id NAME: the newest dev id the reader assigned to a device of that name.
added_id() { grep -E "$(added_pattern "$1")" "$READER_OUT" | tail -1 | sed -E 's/^added dev=([0-9]+).*/\1/'; }
# device_frames ID: the reader's frame lines of one device.
device_frames() { grep -E "^frame [^ ]+ [0-9]+ dev=$1( |\$)" "$READER_OUT"; }

# launch TAG COMMAND...: starts COMMAND in the background with its stdin on a fifo; sets PID_TAG
# and FD_TAG (the fifo's write end; `go TAG` writes a line to it and closes it).
launch() {
    local tag=$1 fifo="$FIFOS/$1.go" fd
    shift
    mkfifo "$fifo"
    "$@" < "$fifo" > "$OUT/$tag.device" 2>&1 &
    printf -v "PID_$tag" %s $!
    exec {fd}> "$fifo"
    printf -v "FD_$tag" %s "$fd"
}
# start_device TAG NAME COMMAND...: launches COMMAND (an injector that waits for a line on stdin
# before playing, or evemu-device) and waits until the reader has added a device called NAME.
# Under TCG udev can take seconds, so nothing is played before libinput has the device open.
# Sets PID_TAG and DEV_TAG; `go TAG` lets the injector play.
start_device() {
    local tag=$1 name=$2 before
    shift 2
    before=$(count "$READER_OUT" "$(added_pattern "$name")")
    launch "$tag" "$@"
    wait_for "$READER_OUT" "$(added_pattern "$name")" $((before + 1)) 30 || return 1
    printf -v "DEV_$tag" %s "$(added_id "$name")"
}
go() { local var="FD_$1"; echo go >&"${!var}"; eval "exec ${!var}>&-"; }
# finish TAG: waits for the injector to end and for the reader to report its device removed.
finish() {
    local pid="PID_$1" dev="DEV_$1"
    wait "${!pid}" || return 1
    wait_for "$READER_OUT" "^removed dev=${!dev} " 1 30
}

modprobe uinput
/lib/systemd/systemd-udevd --daemon
udevadm trigger && udevadm settle
wait_for "$READER_OUT" '^ready$' 1 60 || { fail reader "input-events never became ready"; exit 0; }

# The real daemon on the same seat, and a test client (touchrouterctl monitor) over its socket.
# The daemon reads a copy of the config in the guest's /run (tmpfs: inotify works there, not over
# 9p), which scenario 7 rewrites to make the daemon reload.
SOCKET=/run/touchrouter-vm.sock
MONITOR_OUT="$WORK/monitor.out"
DAEMON_LOG="$WORK/daemon.log"
DAEMON_CONFIG="$WORK/config.json5"
cp "$CONFIG" "$DAEMON_CONFIG"
"$BIN/touchrouterd" --config "$DAEMON_CONFIG" --socket "$SOCKET" > "$WORK/daemon.out" 2> "$DAEMON_LOG" &
DAEMON_PID=$!
for _ in $(seq 300); do [ -S "$SOCKET" ] && break; sleep 0.2; done
"$CTL" monitor --socket "$SOCKET" > "$MONITOR_OUT" 2> "$WORK/monitor.log" &
MONITOR_PID=$!
wait_for "$MONITOR_OUT" '^watching ' 1 60 || { fail daemon "the monitor client never subscribed"; exit 0; }

# monitor_lines: how many lines the client has printed so far.
monitor_lines() { wc -l < "$MONITOR_OUT"; }
# monitor_since N [VIEWS]: the client's touch lines after line N (of views matching the extended
# regex VIEWS, default all).
monitor_since() { tail -n +$(($1 + 1)) "$MONITOR_OUT" | grep -E "^(${2:-[^ ]+})  touch [0-9]+ "; }
# wait_settled N SECONDS [VIEWS]: until every touch begun after line N (on VIEWS) has ended or
# been cancelled.
wait_settled() {
    local deadline=$((SECONDS + $2)) began ended
    while :; do
        began=$(monitor_since "$1" "${3:-}" | grep -Ec ' began ')
        ended=$(monitor_since "$1" "${3:-}" | grep -Ec ' (ended|cancelled) ')
        [ "$began" -gt 0 ] && [ "$began" -eq "$ended" ] && return 0
        [ "$SECONDS" -ge "$deadline" ] && return 1
        sleep 0.3
    done
}

# 1. Every shared recording, and the protocol-A twins made of two of them (no slots: libinput runs
#    them through libmtdev), through our injector and through evemu-play: the live transcript of
#    libinput's frames is kept as TAG.live; the host compares it with the replay decoder's
#    (recordings.tsv: TAG, route, directory, recording, and whether the capture itself worked).
recording() {
    local route=$1 desc=$2 events=$3 tag=$4 name frames node dev pid routed
    name=$(sed -n 's/^N: //p' "$desc")
    routed=$(monitor_lines)
    if [ "$route" = inject ]; then
        start_device "$tag" "$name" "$CTL" inject --device-desc "$desc" --recording "$events" --wait-stdin \
            --start-delay 0 --linger 1500 || { echo "device never reached libinput"; return 1; }
        go "$tag"
        finish "$tag" || { echo "injector failed or device not removed"; return 1; }
    else
        start_device "$tag" "$name" evemu-device "$desc" || { echo "device never reached libinput"; return 1; }
        node=$(grep -o '/dev/input/event[0-9]*' "$OUT/$tag.device" | head -1)
        evemu-play "$node" < "$events" || { echo "evemu-play failed"; return 1; }
        sleep 1.5  # let libinput read the tail before the device goes
        pid="PID_$tag"
        kill "${!pid}"
        wait "${!pid}"
        dev="DEV_$tag"
        wait_for "$READER_OUT" "^removed dev=${!dev} " 1 30 || { echo "device not removed"; return 1; }
    fi
    dev="DEV_$tag"
    device_frames "${!dev}" > "$OUT/$tag.live"
    frames=$(wc -l < "$OUT/$tag.live")
    [ "$frames" -gt 0 ] || { echo "no frames"; return 1; }
    wait_settled "$routed" 30 || { echo "the client did not see every touch end"; return 1; }
    monitor_since "$routed" > "$OUT/$tag.routed"
    echo "$frames frames"
}
index=0
[ "$SKIP_RECORDINGS" = 1 ] || for events in "$EVEMU"/*.events "$PROTOCOL_A"/*.events; do
    dir=$(dirname "$events")
    base=$(basename "$events" .events)
    desc="$dir/${base%%.*}.desc"
    for route in inject evemu; do
        index=$((index + 1))
        if detail=$(recording "$route" "$desc" "$events" "rec$index" 2>>"$OUT/guest.log"); then status=ok; else status=fail; fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "rec$index" "$route" "$(basename "$dir")" "$base" "$status" \
            "${detail##*$'\n'}" >> "$OUT/recordings.tsv"
    done
done

# 2. Unplug mid-touch: two fingers down, the device destroyed → the reader reports it removed
#    (the tracker cancels each touch); a new device of the same name routes again, no restart.
unplug() {
    local name="touchrouter virtual touchscreen" routed
    routed=$(monitor_lines)
    start_device unplug "$name" "$CTL" inject --gesture "hold 100 100 60000|hold 1500 900 60000" --wait-stdin \
        --start-delay 0 || { echo "device never reached libinput"; return 1; }
    go unplug
    wait_for "$READER_OUT" "^frame main [0-9]+ dev=$DEV_unplug .*down" 1 30 || { echo "no down"; return 1; }
    local downs
    downs=$(device_frames "$DEV_unplug" | grep -o 'down:' | wc -l)
    [ "$downs" -eq 2 ] || { echo "$downs fingers down, expected 2"; return 1; }
    kill -TERM "$PID_unplug"
    wait "$PID_unplug"
    wait_for "$READER_OUT" "^removed dev=$DEV_unplug " 1 30 || { echo "no removal after SIGTERM"; return 1; }
    if device_frames "$DEV_unplug" | grep -q 'up:'; then echo "a finger went up instead"; return 1; fi
    wait_settled "$routed" 30 || { echo "the client did not get both touches ended"; return 1; }
    [ "$(monitor_since "$routed" | grep -Ec ' cancelled .*\(device-removed\)')" -eq 2 ] \
        || { echo "client: $(monitor_since "$routed" | tail -2 | tr '\n' ';')"; return 1; }
    monitor_since "$routed" | grep -E '^left-half .* began .*local \(100, 100\)' > /dev/null \
        && monitor_since "$routed" | grep -E '^right-half .* began .*local \(540, 900\)' > /dev/null \
        || { echo "client: touches not on left-half (100, 100) and right-half (540, 900)"; return 1; }
    routed=$(monitor_lines)
    start_device replug "$name" "$CTL" inject --gesture "tap 1000 500" --wait-stdin --start-delay 0 \
        || { echo "re-plugged device never reached libinput"; return 1; }
    go replug
    finish replug || { echo "re-plugged device not removed"; return 1; }
    [ "$DEV_replug" != "$DEV_unplug" ] || { echo "re-plugged device kept id $DEV_unplug"; return 1; }
    device_frames "$DEV_replug" | grep -Eq " down:[0-9]+:1000.000:500.000" || { echo "no down after re-plug"; return 1; }
    wait_settled "$routed" 30 || { echo "re-plugged touch never ended at the client"; return 1; }
    monitor_since "$routed" | grep -Eq '^right-half .* began .*local \(40, 500\)' \
        || { echo "client after re-plug: $(monitor_since "$routed" | head -1)"; return 1; }
    kill -0 "$READER_PID" && kill -0 "$DAEMON_PID" || { echo "the reader or the daemon died"; return 1; }
    echo "2 touches cancelled (device-removed) at the client on unplug; after re-plug a tap reaches right-half (40, 500)"
}
scenario "unplug mid-touch and re-plug" unplug

# 3. A keyboard appears: ignored and logged once, no touch device added.
keyboard() {
    local before pid name="touchrouter test keyboard"
    before=$(count "$READER_OUT" '^added ')
    "$CTL" inject --keyboard --hold --name "$name" > "$OUT/keyboard.device" 2>&1 &
    pid=$!
    wait_for "$READER_LOG" "ignoring $name .*not a touch device" 1 30 || { kill $pid; echo "no log line"; return 1; }
    kill -TERM $pid
    wait $pid
    [ "$(count "$READER_OUT" '^added ')" -eq "$before" ] || { echo "the keyboard was added"; return 1; }
    [ "$(count "$READER_LOG" "ignoring $name")" -eq 1 ] || { echo "logged more than once"; return 1; }
    [ "$(count "$DAEMON_LOG" "ignoring $name")" -eq 1 ] || { echo "the daemon did not log it once"; return 1; }
    echo "logged once by the reader and the daemon, not used"
}
scenario "keyboard ignored" keyboard

# 4. Two touchscreens on two screens at once: each taps axis (480, 270) of 1920x1080 = (0.25, 0.25);
#    'left' (1000x500) gets (250, 125); 'right' (800x600, rotation 90, udev matcher) gets (600, 150).
two_screens() {
    local routed
    routed=$(monitor_lines)
    start_device left "left panel" "$CTL" inject --name "left panel" --gesture "tap 480 270" --wait-stdin \
        --start-delay 0 || { echo "left panel never reached libinput"; return 1; }
    start_device right "right panel" "$CTL" inject --name "right panel" --gesture "tap 480 270" --wait-stdin \
        --start-delay 0 || { echo "right panel never reached libinput"; return 1; }
    go left
    go right
    finish left && finish right || { echo "not both removed"; return 1; }
    device_frames "$DEV_left" | grep -Eq '^frame left .* down:[0-9]+:250.000:125.000' \
        || { echo "left: $(device_frames "$DEV_left" | head -1)"; return 1; }
    device_frames "$DEV_right" | grep -Eq '^frame right .* down:[0-9]+:600.000:150.000' \
        || { echo "right: $(device_frames "$DEV_right" | head -1)"; return 1; }
    wait_settled "$routed" 30 || { echo "the client did not see both taps end"; return 1; }
    monitor_since "$routed" | grep -Eq '^left-root .* began .*local \(250, 125\)' \
        && monitor_since "$routed" | grep -Eq '^right-root .* began .*local \(600, 150\)' \
        || { echo "client: $(monitor_since "$routed" | grep began | tr '\n' ';')"; return 1; }
    echo "left-root (250, 125), right-root rotated 90 (600, 150), at the reader and the client"
}
scenario "two touchscreens, two screens" two_screens

# 5. Scripted gestures at once (drag + pinch, three fingers): the injector's protocol-B events reach
#    libinput as three contacts with the scripted start and end points.
gestures() {
    local name="touchrouter virtual touchscreen" routed frames
    routed=$(monitor_lines)
    start_device gestures "$name" "$CTL" inject --wait-stdin --start-delay 0 \
        --gesture "drag 100 100 500 100 200" "pinch 1400 500 100 300 200" \
        || { echo "device never reached libinput"; return 1; }
    go gestures
    finish gestures || { echo "injector failed or device not removed"; return 1; }
    frames=$(device_frames "$DEV_gestures")
    local contact
    for contact in down:100.000:100.000 down:1300.000:500.000 down:1500.000:500.000 \
        motion:500.000:100.000 motion:1100.000:500.000 motion:1700.000:500.000; do
        echo "$frames" | grep -Eq " ${contact%%:*}:[0-9]+:${contact#*:}( |\$)" || { echo "no $contact"; return 1; }
    done
    [ "$(echo "$frames" | grep -o ' up:' | wc -l)" -eq 3 ] || { echo "not 3 ups"; return 1; }
    wait_settled "$routed" 30 || { echo "the client did not see the touches end"; return 1; }
    monitor_since "$routed" | grep -Eq '^left-half .* began .*local \(100, 100\)' \
        && monitor_since "$routed" | grep -Eq '^left-half .* ended .*local \(500, 100\)' \
        || { echo "client: $(monitor_since "$routed" | grep left-half | tail -1)"; return 1; }
    echo "3 contacts from (100, 100), (1300, 500), (1500, 500) to (500, 100), (1100, 500), (1700, 500)"
}
scenario "gestures: drag and pinch at once" gestures

# 5a. The same gestures on a protocol-A touchscreen (`inject --protocol-a`: no slots, every finger in
#     every frame closed by SYN_MT_REPORT): libinput, through libmtdev, reports the three fingers
#     landing at the scripted points and lifting; their last positions within twice libmtdev's
#     filter (fuzz 1919/250 = 7 units) of the scripted ends.
gestures_protocol_a() {
    local name="touchrouter virtual touchscreen" frames contact
    start_device gesturesa "$name" "$CTL" inject --protocol-a --wait-stdin --start-delay 0 \
        --gesture "drag 100 100 500 100 200" "pinch 1400 500 100 300 200" \
        || { echo "device never reached libinput"; return 1; }
    go gesturesa
    finish gesturesa || { echo "injector failed or device not removed"; return 1; }
    frames=$(device_frames "$DEV_gesturesa")
    for contact in down:100.000:100.000 down:1300.000:500.000 down:1500.000:500.000; do
        echo "$frames" | grep -Eq " ${contact%%:*}:[0-9]+:${contact#*:}( |\$)" || { echo "no $contact"; return 1; }
    done
    [ "$(echo "$frames" | grep -o ' down:' | wc -l)" -eq 3 ] || { echo "not 3 downs"; return 1; }
    [ "$(echo "$frames" | grep -o ' up:' | wc -l)" -eq 3 ] || { echo "not 3 ups"; return 1; }
    local ends
    ends=$(echo "$frames" | grep -o ' motion:[0-9]*:[0-9.]*:[0-9.]*' | awk -F: '{ last[$2] = $3 " " $4 } END { for (s in last) print last[s] }' | sort -n)
    echo "$ends" | awk 'BEGIN { split("500 100 1100 500 1700 500", want, " ") }
        { got[NR] = $0 } END {
            n = 0; for (i = 1; i <= 3; i++) for (j = 1; j <= NR; j++) { split(got[j], p, " ")
                if ((p[1] - want[2*i-1])^2 < 196 && (p[2] - want[2*i])^2 < 196) { n++; break } }
            exit n == 3 ? 0 : 1 }' || { echo "last positions: $(echo "$ends" | tr '\n' ';')"; return 1; }
    echo "3 contacts from (100, 100), (1300, 500), (1500, 500), ending at $(echo "$ends" | tr '\n' ';' | sed 's/;$//')"
}
scenario "gestures on a protocol-A touchscreen" gestures_protocol_a

# 6. Floods and stuck fingers cannot wedge the daemon. 'stuck panel' puts three fingers down that
#    never go up (a 'hold' of 50 minutes; the device stays open); 'flood panel' then plays ten fingers
#    dragging for 20 s of samples at --speed 0 (about 66000 evdev events written as fast as
#    uinput takes them, far more than the kernel's per-client buffer: libinput sees SYN_DROPPED)
#    while 'left panel' taps. Passes when the tap reaches left-root at the client, every flood
#    touch the client saw began also ends, `touchrouterctl status` answers, and removing the stuck
#    device cancels its three touches (device-removed) at the client.
flood() {
    local routed frames active dropped finger script=()
    routed=$(monitor_lines)
    start_device stuck "stuck panel" "$CTL" inject --name "stuck panel" --wait-stdin --start-delay 0 \
        --gesture "hold 300 300 3000000|hold 900 300 3000000|hold 1500 300 3000000" \
        || { echo "stuck panel never reached libinput"; return 1; }
    go stuck
    wait_for "$MONITOR_OUT" '^stuck-root  touch [0-9]+ began ' 3 30 || { echo "the stuck fingers never began"; return 1; }
    for finger in 1 2 3 4 5 6 7 8 9 10; do script+=("drag 100 $((finger * 95)) 1800 $((finger * 95)) 20000"); done
    start_device flood "flood panel" "$CTL" inject --name "flood panel" --wait-stdin --start-delay 0 --speed 0 \
        --linger 1500 --gesture "${script[@]}" || { echo "flood panel never reached libinput"; return 1; }
    start_device floodtap "left panel" "$CTL" inject --name "left panel" --gesture "tap 480 270" --wait-stdin \
        --start-delay 0 || { echo "left panel never reached libinput"; return 1; }
    go flood
    go floodtap
    finish floodtap || { echo "the tapping device was not removed"; return 1; }
    finish flood || { echo "the flooding injector failed or its device was not removed"; return 1; }
    frames=$(device_frames "$DEV_flood" | wc -l)
    [ "$frames" -gt 0 ] || { echo "no frames from the flood"; return 1; }
    wait_settled "$routed" 60 'left-root|flood-root' || { echo "flood or tap touches never ended at the client"; return 1; }
    monitor_since "$routed" left-root | grep -Eq ' began .*local \(250, 125\)' \
        || { echo "the tap did not reach left-root (250, 125)"; return 1; }
    timeout 60 "$CTL" status --socket "$SOCKET" > "$OUT/flood.status" || { echo "touchrouterctl status did not answer"; return 1; }
    active=$(sed -n 's/^activeTouches: //p' "$OUT/flood.status")
    [ "$active" = 3 ] || { echo "status: activeTouches '$active', expected the 3 stuck ones"; return 1; }
    dropped=$(count "$READER_LOG" 'flood panel: SYN_DROPPED')
    [ "$(monitor_since "$routed" stuck-root | grep -Ec ' (ended|cancelled) ')" -eq 0 ] \
        || { echo "a stuck touch ended before its device went"; return 1; }
    kill -TERM "$PID_stuck"
    wait "$PID_stuck"
    wait_for "$READER_OUT" "^removed dev=$DEV_stuck " 1 30 || { echo "stuck device not removed"; return 1; }
    wait_settled "$routed" 30 stuck-root || { echo "the stuck touches were not cancelled"; return 1; }
    [ "$(monitor_since "$routed" stuck-root | grep -Ec ' cancelled .*\(device-removed\)')" -eq 3 ] \
        || { echo "stuck: $(monitor_since "$routed" stuck-root | tail -3 | tr '\n' ';')"; return 1; }
    kill -0 "$READER_PID" && kill -0 "$DAEMON_PID" || { echo "the reader or the daemon died"; return 1; }
    echo "$frames flood frames from 10 fingers (SYN_DROPPED logged $dropped times)," \
        "$(monitor_since "$routed" flood-root | grep -c ' began ') flood touches ended at the client; a tap" \
        "meanwhile reached left-root (250, 125); status answered (activeTouches 3);" \
        "3 stuck touches cancelled (device-removed) on removal"
}
scenario "flood and stuck fingers do not wedge the daemon" flood

# 7. Reload with devices present: SIGHUP with the file unchanged keeps the layout; then the config
#    is replaced by rename (what editors do; the daemon watches the directory with inotify) with
#    one where 'late panel', ignored until now, drives screen 'left', and screen 'right' is rotated
#    270 instead of 90. Both devices exist before the reload and tap after it (axis (480, 270) of
#    1920x1080, as in scenario 4). Passes when the client gets `layoutChanged`, late panel's tap
#    reaches left-root at (250, 125) and right panel's right-root at (200, 450), no restart.
reload() {
    local routed ignored generation
    kill -HUP "$DAEMON_PID"
    wait_for "$DAEMON_LOG" 'reload \(SIGHUP\): config unchanged' 1 30 || { echo "SIGHUP: no reload logged"; return 1; }
    ignored=$(count "$DAEMON_LOG" 'ignoring touch device late panel .*matches no screen')
    launch late "$CTL" inject --name "late panel" --gesture "tap 480 270" --wait-stdin --start-delay 0
    wait_for "$DAEMON_LOG" 'ignoring touch device late panel .*matches no screen' $((ignored + 1)) 30 \
        || { echo "the daemon did not report late panel ignored"; return 1; }
    start_device rotated "right panel" "$CTL" inject --name "right panel" --gesture "tap 480 270" --wait-stdin \
        --start-delay 0 || { echo "right panel never reached libinput"; return 1; }
    routed=$(monitor_lines)
    generation=$(grep -Eo 'layout generation [0-9]+' "$DAEMON_LOG" | tail -1 | grep -Eo '[0-9]+$')
    sed -e 's/devices: \[{ name: "left panel" }\]/devices: [{ name: "left panel" }, { name: "late panel" }]/' \
        -e '/name: "right"/s/rotation: 90,/rotation: 270,/' "$DAEMON_CONFIG" > "$DAEMON_CONFIG.new"
    mv "$DAEMON_CONFIG.new" "$DAEMON_CONFIG"
    wait_for "$MONITOR_OUT" "^layout changed: generation $((generation + 1))\$" 1 30 \
        || { echo "the client got no layoutChanged (generation $((generation + 1)))"; return 1; }
    count "$DAEMON_LOG" 'reload \(config file changed\): layout generation' | grep -vq '^0$' \
        || { echo "the daemon did not log the reload"; return 1; }
    go late
    go rotated
    wait "$PID_late" || { echo "late panel's injector failed"; return 1; }
    finish rotated || { echo "right panel not removed"; return 1; }
    wait_settled "$routed" 30 'left-root|right-root' || { echo "the taps never ended at the client"; return 1; }
    monitor_since "$routed" left-root | grep -Eq ' began .*local \(250, 125\) .*late panel' \
        || { echo "late panel: $(monitor_since "$routed" left-root | head -1)"; return 1; }
    monitor_since "$routed" right-root | grep -Eq ' began .*local \(200, 450\)' \
        || { echo "right panel after rotation 270: $(monitor_since "$routed" right-root | head -1)"; return 1; }
    kill -0 "$DAEMON_PID" || { echo "the daemon died"; return 1; }
    echo "layoutChanged at the client; ignored late panel now taps left-root (250, 125);" \
        "right panel re-rotated to 270 taps right-root (200, 450); SIGHUP unchanged kept the layout"
}
scenario "reload: ignored device mapped, rotation changed" reload

# 8. The field kit on the live path (docs/field.md): 'ghost panel' drives screen 'ghost', whose
#    filters cancel a finger still for 2 s; the ghost panel's own matcher adds the corner filter.
#    It plays a ghost burst (five taps on the four corners: raw axis minimum or maximum on both
#    axes) then a real tap at (500, 500), while another finger holds still at (1500, 500) for 5 s.
#    Passes when the client sees exactly two touches begin on ghost-root: the real tap (ended) and
#    the held finger, cancelled with reason stuck about 2 s in (its real lift later is swallowed);
#    status counts 5 stuck points and 1 stuck cancel for the device; the log has one line for the
#    burst. Then 'clean panel', on the same screen by another matcher (no filters of its own), taps
#    the (0, 0) corner: delivered, since the corner filter is the ghost panel's matcher's only.
ghosts() {
    local routed began clean
    routed=$(monitor_lines)
    start_device ghost "ghost panel" "$CTL" inject --name "ghost panel" --wait-stdin --start-delay 0 \
        --gesture "tap 0 0; tap 0 0; tap 1920 1080; tap 0 1080; tap 1920 0; tap 500 500" "hold 1500 500 5000" \
        || { echo "ghost panel never reached libinput"; return 1; }
    go ghost
    finish ghost || { echo "the ghost injector failed or its device was not removed"; return 1; }
    wait_settled "$routed" 30 ghost-root || { echo "the ghost panel's touches never settled at the client"; return 1; }
    began=$(monitor_since "$routed" ghost-root | grep -c ' began ')
    [ "$began" -eq 2 ] \
        || { echo "$began touches began, expected 2: $(monitor_since "$routed" ghost-root | tr '\n' ';')"; return 1; }
    monitor_since "$routed" ghost-root | grep -Eq ' began .*local \(500, 500\)' \
        || { echo "the real tap did not reach ghost-root (500, 500)"; return 1; }
    monitor_since "$routed" ghost-root | grep -Eq ' ended .*local \(500, 500\)' \
        || { echo "the real tap did not end"; return 1; }
    monitor_since "$routed" ghost-root | grep -Eq ' cancelled .*local \(1500, 500\).*\(stuck\)' \
        || { echo "the held finger was not cancelled as stuck"; return 1; }
    timeout 60 "$CTL" status --socket "$SOCKET" --json > "$OUT/ghost.status" \
        || { echo "touchrouterctl status did not answer"; return 1; }
    grep -q '"stuck-points":5' "$OUT/ghost.status" && grep -q '"stuck-cancels":1' "$OUT/ghost.status" \
        || { echo "status: $(grep -o '"fieldDevices":[^]]*' "$OUT/ghost.status")"; return 1; }
    [ "$(count "$DAEMON_LOG" 'touch device ghost panel: stuck-points began')" -eq 1 ] \
        || { echo "the ghost burst was not logged exactly once"; return 1; }
    clean=$(monitor_lines)
    start_device clean "clean panel" "$CTL" inject --name "clean panel" --wait-stdin --start-delay 0 \
        --gesture "tap 0 0" || { echo "clean panel never reached libinput"; return 1; }
    go clean
    finish clean || { echo "the clean injector failed or its device was not removed"; return 1; }
    wait_settled "$clean" 30 ghost-root || { echo "the clean panel's corner tap never reached the client"; return 1; }
    monitor_since "$clean" ghost-root | grep -Eq ' ended .*local \(0, 0\)' \
        || { echo "the clean panel's corner tap was filtered: $(monitor_since "$clean" ghost-root | tr '\n' ';')"; return 1; }
    echo "5 corner ghosts dropped, the real tap reached ghost-root (500, 500), the held finger" \
        "cancelled (stuck); status: 5 stuck points, 1 stuck cancel; one log line for the burst;" \
        "the clean panel's corner tap (another matcher) delivered"
}
scenario "field kit: a ghost burst and a stuck finger on the live path" ghosts

# 9. Calibration (docs/calibration.md): 'calib panel' drives screen 'calib' (1080x1920, rotation
#    90, physicalSize 68x121 mm) and reports every press where a panel needing the calibration
#    [0.95, 0, 0.02, 0, 1.04, -0.03] would (scale 0.95 / 1.04, offset +2 % / -3 %). `touchrouterctl
#    calibrate --points 5 --verify --apply --json` runs while one injector presses its six targets
#    in order, each a 300 ms drag of ±1 device unit through the distorted position (31 positions).
#    Passes when it exits 0, the matrix is within 1e-3 of the distortion, residuals <= 1 unit, the
#    verification error <= 1 mm, only that screen's calibration is added to the file (the backup is
#    the old file), and after the reload a fresh tap at the distorted (540, 1400) reaches calib-root
#    within 2 units of (540, 1400). Then a second run, measured without the applied matrix, gives
#    the same matrix; its verification press 15 mm off (238 units) exits 3, the file byte-identical.
# calib_script drag|tap X Y ...: the gesture script pressing those layout points on the distorted
# panel: a 300 ms drag of ±1 unit through each, 700 ms apart, or one tap.
calib_script() {
    python3 - "$@" <<'PY'
import sys
kind = sys.argv.pop(1)
w, h, (a, b, c, d, e, f) = 1080, 1920, (0.95, 0, 0.02, 0, 1.04, -0.03)
def raw(x, y):
    u, v = y / h, 1 - x / w  # rotation 90 undone: normalized panel coordinates after calibration
    det = a * e - b * d
    return round((e * (u - c) - b * (v - f)) / det * 1920), round((a * (v - f) - d * (u - c)) / det * 1080)
points = [raw(float(x), float(y)) for x, y in zip(sys.argv[1::2], sys.argv[2::2])]
print("; wait 700; ".join(f"drag {x - 1} {y - 1} {x + 1} {y + 1} 300" if kind == "drag" else f"tap {x} {y}"
                         for x, y in points))
PY
}
# calib_run TAG VERIFY_X VERIFY_Y: one calibrate run with the five targets and a verification press
# at (VERIFY_X, VERIFY_Y); its JSON in $OUT/TAG.json, its exit status in $OUT/TAG.status.
calib_run() {
    local tag=$1 status
    start_device "$tag" "calib panel" "$CTL" inject --name "calib panel" --wait-stdin --start-delay 0 \
        --gesture "$(calib_script drag 108 192 972 192 540 960 108 1728 972 1728 "$2" "$3")" \
        || { echo "calib panel never reached libinput"; return 1; }
    timeout 300 "$CTL" calibrate --socket "$SOCKET" --screen calib --points 5 --verify --apply --json \
        --config "$DAEMON_CONFIG" > "$OUT/$tag.json" 2> "$WORK/$tag.log" &
    local pid=$!
    wait_for "$WORK/$tag.log" '\(1 of 6\)' 1 60 || { echo "calibrate showed no target: $(cat "$WORK/$tag.log")"; return 1; }
    go "$tag"
    wait "$pid"
    status=$?
    echo "$status" > "$OUT/$tag.status"
    finish "$tag" || { echo "the calib injector failed or its device was not removed"; return 1; }
}
calibration() {
    local before routed landed
    cp "$DAEMON_CONFIG" "$WORK/calib-before.json5"
    calib_run calib1 324 1152 || return 1
    [ "$(cat "$OUT/calib1.status")" = 0 ] || { echo "calibrate exited $(cat "$OUT/calib1.status"): $(tail -3 "$WORK/calib1.log")"; return 1; }
    python3 - "$OUT/calib1.json" <<'PY' > "$WORK/calib-check.out" || { cat "$WORK/calib-check.out"; return 1; }
import json, sys
r = json.load(open(sys.argv[1]))
off = max(abs(x - y) for x, y in zip(r["matrix"], [0.95, 0, 0.02, 0, 1.04, -0.03]))
mm = (r["verification"] or {}).get("millimetres")
if off >= 1e-3 or r["maximumResidual"] > 1 or mm is None or mm > 1:
    sys.exit(f"matrix {r['matrix']} (off by {off}), residuals {r['residuals']}, verification {r['verification']}")
print(f"matrix within {off:.1e}, largest residual {r['maximumResidual']} units, verification {mm} mm")
PY
    cmp -s "$WORK/calib-before.json5" "$DAEMON_CONFIG.bak" || { echo "the backup is not the old file"; return 1; }
    # The screen's keys are on one line: the key is added on it, after `rotation`.
    [ "$(grep -c 'calibration: \[' "$DAEMON_CONFIG")" = 1 ] \
        && grep -Eq 'name: "calib", .*rotation: 90, calibration: \[' "$DAEMON_CONFIG" \
        && sed -E 's/ calibration: \[[^]]*\],//' "$DAEMON_CONFIG" | cmp -s - "$WORK/calib-before.json5" \
        || { echo "the file changed otherwise: $(diff "$WORK/calib-before.json5" "$DAEMON_CONFIG" | tr '\n' ';')"; return 1; }
    routed=$(monitor_lines)
    start_device calibtap "calib panel" "$CTL" inject --name "calib panel" --wait-stdin --start-delay 0 \
        --gesture "$(calib_script tap 540 1400)" \
        || { echo "calib panel (tap) never reached libinput"; return 1; }
    go calibtap
    finish calibtap || { echo "the tap's injector failed"; return 1; }
    wait_settled "$routed" 30 calib-root || { echo "the fresh tap never reached calib-root"; return 1; }
    landed=$(monitor_since "$routed" calib-root | grep ' began ' | grep -Eo 'local \([^)]*\)' | head -1)
    python3 -c "import sys; x, y = map(float, sys.argv[1].strip('local ()').split(', ')); sys.exit(abs(x - 540) > 2 or abs(y - 1400) > 2)" \
        "$landed" || { echo "the fresh tap at the distorted (540, 1400) landed at $landed"; return 1; }
    cp "$DAEMON_CONFIG" "$WORK/calib-after.json5"
    calib_run calib2 562 1152 || return 1
    [ "$(cat "$OUT/calib2.status")" = 3 ] || { echo "a 15 mm verification exited $(cat "$OUT/calib2.status")"; return 1; }
    cmp -s "$WORK/calib-after.json5" "$DAEMON_CONFIG" || { echo "the 15 mm run changed the file"; return 1; }
    python3 -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))['matrix'] != json.load(open(sys.argv[2]))['matrix'])" \
        "$OUT/calib1.json" "$OUT/calib2.json" || { echo "the second run's matrix differs: $(cat "$OUT/calib2.json")"; return 1; }
    # The client killed mid-session, the panel present all along: the session ends, the panel's
    # libinput matrix is the configured one again and routing resumes (a fresh distorted tap
    # lands where it did).
    routed=$(monitor_lines)
    start_device calibtap2 "calib panel" "$CTL" inject --name "calib panel" --wait-stdin --start-delay 0 \
        --gesture "$(calib_script tap 540 1400)" \
        || { echo "calib panel (tap after the kill) never reached libinput"; return 1; }
    "$CTL" calibrate --socket "$SOCKET" --screen calib --points 4 > "$WORK/calib3.log" 2>&1 &
    local killed=$!
    # (No `timeout` around it: SIGKILL must reach touchrouterctl itself.)
    wait_for "$WORK/calib3.log" '\(1 of 4\)' 1 60 \
        || { kill -KILL "$killed"; echo "calibrate (to be killed) showed no target"; return 1; }
    kill -KILL "$killed"
    wait "$killed" 2>/dev/null
    sleep 1
    go calibtap2
    finish calibtap2 || { echo "the tap's injector failed (after the kill)"; return 1; }
    wait_settled "$routed" 30 calib-root || { echo "after the client was killed, a tap never reached calib-root"; return 1; }
    local again
    again=$(monitor_since "$routed" calib-root | grep ' began ' | grep -Eo 'local \([^)]*\)' | head -1)
    python3 -c "import sys; x, y = map(float, sys.argv[1].strip('local ()').split(', ')); sys.exit(abs(x - 540) > 2 or abs(y - 1400) > 2)" \
        "$again" || { echo "after the client was killed, the tap at the distorted (540, 1400) landed at $again"; return 1; }
    echo "$(cat "$WORK/calib-check.out"); only its calibration added, backup kept; a fresh distorted tap" \
        "lands at $landed; a second run gives the same matrix, its 15 mm verification exits 3, file unchanged;" \
        "a client killed mid-session: the next tap lands at $again again"
}
scenario "calibration: a distorted panel calibrated and applied" calibration

# 10. Calibration targets on a real framebuffer: qemu's standard VGA with the bochs DRM driver gives
#     /dev/fb0. `touchrouterctl calibrate --fbdev /dev/fb0 --screen calib` (4 targets) runs; before
#     each press the pixel under the shown target is read back white and the previous target's
#     no longer white; after the run every target's pixel is the grey the screen showed before.
#     Before that, a run stopped (SIGTERM) while it connects leaves the screen as it was.
# fb_pixels X Y ...: the framebuffer's pixel values (hex) under those points of the 1080x1920
# layout, found as the tool finds them (FBIOGET_VSCREENINFO/FSCREENINFO, line_length, offsets).
fb_pixels() {
    python3 - "$@" <<'PY'
import fcntl, struct, sys
with open("/dev/fb0", "rb") as fb:
    var = fcntl.ioctl(fb, 0x4600, bytes(160))
    fix = fcntl.ioctl(fb, 0x4602, bytes(80))
    xres, yres, _, _, xoffset, yoffset, bpp = struct.unpack_from("7I", var)
    stride = struct.unpack_from("16sLIIIIHHHI", fix)[9]
    values = []
    for x, y in zip(sys.argv[1::2], sys.argv[2::2]):
        px = min(xres - 1, int(float(x) / 1080 * xres)); py = min(yres - 1, int(float(y) / 1920 * yres))
        fb.seek((py + yoffset) * stride + (px + xoffset) * bpp // 8)
        values.append(fb.read(bpp // 8)[::-1].hex())
print(" ".join(values))
PY
}
framebuffer() {
    local targets=(108 192 972 192 108 1728 972 1728) before now i pid white
    modprobe bochs 2>/dev/null
    for _ in $(seq 100); do [ -e /dev/fb0 ] && break; sleep 0.2; done
    [ -e /dev/fb0 ] || { echo "no /dev/fb0 (qemu's VGA with the bochs driver)"; return 1; }
    # Nothing else draws meanwhile: the console is taken off the framebuffer, kernel messages off
    # the console.
    dmesg -n 1
    for vtcon in /sys/class/vtconsole/vtcon*; do
        grep -q 'frame buffer' "$vtcon/name" 2>/dev/null && echo 0 > "$vtcon/bind"
    done
    # A grey screen to put back (what the console left is black, like the tool's background).
    python3 -c "
import fcntl, struct
with open('/dev/fb0', 'r+b') as fb:
    fb.write(b'\x66' * struct.unpack_from('16sLI', fcntl.ioctl(fb, 0x4602, bytes(80)))[2])" \
        || { echo "cannot write /dev/fb0"; return 1; }
    before=$(fb_pixels "${targets[@]}") || { echo "cannot read /dev/fb0"; return 1; }
    # Stopped (SIGTERM; a background job ignores SIGINT) while it connects to a socket that
    # accepts and never answers: the screen is left as it was.
    python3 -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept(); open(sys.argv[2], 'w').write('accepted\\n'); time.sleep(30)" \
        "$WORK/silent.sock" "$WORK/silent.accepted" &
    local silent=$!
    for _ in $(seq 100); do [ -S "$WORK/silent.sock" ] && break; sleep 0.1; done
    "$CTL" calibrate --socket "$WORK/silent.sock" --screen calib --fbdev /dev/fb0 > "$WORK/fb-int.log" 2>&1 &
    pid=$!
    wait_for "$WORK/silent.accepted" accepted 1 30 || { echo "calibrate never connected: $(cat "$WORK/fb-int.log")"; return 1; }
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
    local status=$?
    [ "$status" -eq 143 ] || { echo "calibrate did not stop on SIGTERM while connecting (exit $status)"; return 1; }
    kill "$silent" 2>/dev/null
    now=$(fb_pixels "${targets[@]}")
    [ "$now" = "$before" ] || { echo "stopped while connecting, the screen changed: $before before, $now after"; return 1; }
    timeout 300 "$CTL" calibrate --socket "$SOCKET" --screen calib --fbdev /dev/fb0 > "$WORK/fb.log" 2>&1 &
    pid=$!
    for i in 0 1 2 3; do
        wait_for "$WORK/fb.log" "\($((i + 1)) of 4\)" 1 60 || { echo "no target $((i + 1)): $(cat "$WORK/fb.log")"; return 1; }
        now=($(fb_pixels "${targets[@]}"))
        white=${now[$i]}
        [[ "$white" =~ ^(00|ff)ffffff$|^ffff$ ]] || { echo "target $((i + 1)): pixel $white, not white (all: ${now[*]})"; return 1; }
        if [ "$i" -gt 0 ] && [ "${now[$((i - 1))]}" = "$white" ]; then
            echo "target $i not cleared when $((i + 1)) was shown (${now[*]})"; return 1
        fi
        start_device "fbpress$i" "calib panel" "$CTL" inject --name "calib panel" --wait-stdin --start-delay 0 \
            --gesture "$(calib_script tap "${targets[$((2 * i))]}" "${targets[$((2 * i + 1))]}")" \
            || { echo "calib panel (press $((i + 1))) never reached libinput"; return 1; }
        go "fbpress$i"
        finish "fbpress$i" || { echo "the press $((i + 1)) injector failed"; return 1; }
    done
    wait "$pid" || { echo "calibrate --fbdev exited $?: $(tail -3 "$WORK/fb.log")"; return 1; }
    now=$(fb_pixels "${targets[@]}")
    [ "$now" = "$before" ] || { echo "the screen was not put back: $before before, $now after"; return 1; }
    echo "stopped while connecting, the screen untouched; each target's pixel read back white" \
        "($white) as it was shown, the previous one cleared; the screen put back after the run ($before)"
}
scenario "calibration targets on a real framebuffer" framebuffer

# 11. Passthrough (docs/passthrough.md), on a second daemon with scripts/vm/passthrough.json5 (the
#    first one's monitor watches every root with its subtree, which would take these touches):
#    screen 'pass' (1000x500) passes its root through to a virtual touchscreen, beside a native
#    view. `libinput debug-events` on the virtual node stands in for the compositor, another on
#    the physical node shows what the compositor would see of the panel. Passes when udev tags the
#    virtual device a touchscreen and nothing else; a tap at (100, 100) reaches the virtual device
#    at (10 %, 20 %) ±1 unit and a tap on the native view reaches the socket only, neither reaching
#    the grabbed physical node; a finger down while a reload takes passthrough off the root is
#    cancelled (TOUCH_CANCEL, no TOUCH_UP: the palm) with the virtual device staying; a reload
#    without passthrough removes the device and releases the panel (its node sees a tap); with
#    passthrough back, SIGKILL of the daemon mid-touch removes the device and ends the contact.
passthrough() {
    local config="$WORK/passthrough.json5" socket=/run/touchrouter-pass.sock log="$WORK/pass-daemon.log"
    local monitor="$WORK/pass-monitor.out" virt="$WORK/pass-virt.out" phys="$WORK/pass-phys.out"
    local virt2="$WORK/pass-virt2.out" virtpointer="$WORK/pass-pointer.out" phys2="$WORK/pass-phys2.out"
    local node node2 pointer panel props downs line x y pids=()
    cp "$REPO/scripts/vm/passthrough.json5" "$config"
    "$BIN/touchrouterd" --config "$config" --socket "$socket" > /dev/null 2> "$log" &
    local daemon=$!
    pids+=("$daemon")
    wait_for "$log" 'passthrough: screen pass: virtual pointer event[0-9]+ .* created' 1 60 \
        || { echo "no virtual devices: $(grep -i passthrough "$log" | tail -1)"; kill "${pids[@]}"; return 1; }
    node=$(grep -Eo 'virtual touchscreen event[0-9]+ \(/dev/input/event[0-9]+\)' "$log" | head -1 | grep -Eo '/dev/input/event[0-9]+')
    pointer=$(grep -Eo 'virtual pointer event[0-9]+ \(/dev/input/event[0-9]+\)' "$log" | head -1 | grep -Eo '/dev/input/event[0-9]+')
    udevadm settle
    props=$(udevadm info --query=property --name="$node")
    echo "$props" | grep -qx 'ID_INPUT_TOUCHSCREEN=1' && ! echo "$props" | grep -Eq '^ID_INPUT_(MOUSE|TABLET|TOUCHPAD)=' \
        || { echo "udev tags of $node: $(echo "$props" | grep ^ID_INPUT | tr '\n' ' ')"; kill "${pids[@]}"; return 1; }
    props=$(udevadm info --query=property --name="$pointer")
    echo "$props" | grep -qx 'ID_INPUT_MOUSE=1' && ! echo "$props" | grep -Eq '^ID_INPUT_(TOUCHSCREEN|TABLET|TOUCHPAD)=' \
        || { echo "udev tags of the pointer $pointer: $(echo "$props" | grep ^ID_INPUT | tr '\n' ' ')"; kill "${pids[@]}"; return 1; }
    stdbuf -oL libinput debug-events --device "$node" > "$virt" 2>&1 &
    pids+=($!)
    stdbuf -oL libinput debug-events --device "$pointer" > "$virtpointer" 2>&1 &
    pids+=($!)
    "$CTL" monitor --socket "$socket" native > "$monitor" 2> "$WORK/pass-monitor.log" &
    pids+=($!)
    wait_for "$monitor" '^watching ' 1 60 || { echo "the monitor never subscribed"; kill "${pids[@]}"; return 1; }
    launch pass "$CTL" inject --name "pass panel" --size 1000x500 --wait-stdin --start-delay 0 --linger 1500 \
        --gesture "tap 100 100; wait 300; tap 800 250; wait 300; tap 25 25; wait 300; hold 300 100 20000; wait 6000; tap 500 300"
    wait_for "$log" '"pass panel" .* grabbed \(passthrough\)' 1 60 || { echo "the panel was never grabbed"; kill "${pids[@]}"; return 1; }
    panel=$(grep -o '/dev/input/event[0-9]*' "$OUT/pass.device" | head -1)
    stdbuf -oL libinput debug-events --device "$panel" > "$phys" 2>&1 &
    pids+=($!)
    wait_for "$virt" 'DEVICE_ADDED' 1 60 && wait_for "$phys" 'DEVICE_ADDED' 1 60 && wait_for "$virtpointer" 'DEVICE_ADDED' 1 60 \
        || { echo "libinput debug-events never started"; kill "${pids[@]}"; return 1; }
    go pass
    # The tap, the native tap, the pointer pad's tap, then the held finger: two downs on the virtual
    # touchscreen, and on the virtual pointer an absolute move to (25, 25) with a left click.
    wait_for "$virt" 'TOUCH_DOWN' 2 60 || { echo "virtual: $(grep -c TOUCH_ "$virt") touch events"; kill "${pids[@]}"; return 1; }
    line=$(grep -m1 'TOUCH_DOWN' "$virt")
    read -r x y < <(echo "$line" | grep -Eo '[0-9.]+/[0-9.]+ \(' | head -1 | tr '/(' '  ')
    awk -v x="$x" -v y="$y" 'BEGIN { exit !(x >= 9.9 && x <= 10.1 && y >= 19.8 && y <= 20.2) }' \
        || { echo "the tap arrived at $x/$y %, not 10/20 %: $line"; kill "${pids[@]}"; return 1; }
    wait_for "$virtpointer" 'BTN_LEFT .* released' 1 30 \
        || { echo "pointer: $(grep -E 'POINTER' "$virtpointer" | tr '\n' ';')"; kill "${pids[@]}"; return 1; }
    grep -m1 'POINTER_MOTION_ABSOLUTE' "$virtpointer" | grep -Eq ' 2\.50/ *5\.00' && grep -q 'BTN_LEFT .* pressed' "$virtpointer" \
        || { echo "pointer: $(grep -E 'POINTER' "$virtpointer" | tr '\n' ';')"; kill "${pids[@]}"; return 1; }
    wait_for "$monitor" '^native  touch [0-9]+ ended ' 1 30 || { echo "the native tap never ended at the client"; kill "${pids[@]}"; return 1; }
    grep -Eq '^native  touch [0-9]+ began .*local \(200, 250\)' "$monitor" \
        || { echo "native: $(grep touch "$monitor" | head -1)"; kill "${pids[@]}"; return 1; }
    # Reload: the root stops passing through (the island keeps the device); the held finger is cancelled.
    sed -e 's/id: "pass-root", frame: \[0, 0, 1000, 500\], passthrough: true/id: "pass-root", frame: [0, 0, 1000, 500], passthrough: false/' \
        "$config" > "$config.new" && mv "$config.new" "$config"
    wait_for "$virt" 'TOUCH_CANCEL' 1 30 || { echo "no TOUCH_CANCEL: $(grep TOUCH_ "$virt" | tail -2 | tr '\n' ';')"; kill "${pids[@]}"; return 1; }
    downs=$(count "$virt" 'TOUCH_DOWN')
    [ "$downs" -eq 2 ] && [ "$(count "$virt" 'TOUCH_UP')" -eq 1 ] && [ "$(count "$virt" 'DEVICE_REMOVED')" -eq 0 ] \
        || { echo "virtual after the reload: $downs downs, $(count "$virt" TOUCH_UP) ups, device removed $(count "$virt" DEVICE_REMOVED)"; kill "${pids[@]}"; return 1; }
    [ "$(count "$phys" 'TOUCH_')" -eq 0 ] || { echo "the grabbed panel's node saw $(count "$phys" 'TOUCH_DOWN') downs"; kill "${pids[@]}"; return 1; }
    # Reload without passthrough: the device goes, the panel is released and its node sees a tap.
    sed -e 's/passthrough: true/passthrough: false/' -e 's/passthrough: { mode: "pointer" }/passthrough: false/' \
        "$config" > "$config.new" && mv "$config.new" "$config"
    wait_for "$virt" 'DEVICE_REMOVED' 1 30 || { echo "the virtual device stayed after passthrough was dropped"; kill "${pids[@]}"; return 1; }
    wait_for "$log" '"pass panel" .* released \(passthrough\)' 1 30 || { echo "the panel was not released"; kill "${pids[@]}"; return 1; }
    wait_for "$phys" 'TOUCH_DOWN' 1 60 || { echo "the released panel's node saw no tap"; kill "${pids[@]}"; return 1; }
    wait "$PID_pass"
    # A new panel whose finger A is down before passthrough comes back: A is never passed on and
    # the grab waits for it to lift (the panel's node sees A whole); finger B after it is passed
    # through; then SIGKILL mid-touch.
    launch pass2 "$CTL" inject --name "pass panel" --size 1000x500 --wait-stdin --start-delay 0 --linger 1500 \
        --gesture "hold 100 100 8000; wait 6000; hold 150 150 6000; wait 500; tap 120 120"
    wait_for "$log" 'touch device [0-9]+ "pass panel" .* added' 2 60 || { echo "the second panel was not added"; kill "${pids[@]}"; return 1; }
    panel=$(grep -o '/dev/input/event[0-9]*' "$OUT/pass2.device" | head -1)
    stdbuf -oL libinput debug-events --device "$panel" > "$phys2" 2>&1 &
    pids+=($!)
    wait_for "$phys2" 'DEVICE_ADDED' 1 60 || { echo "libinput debug-events on the panel never started"; kill "${pids[@]}"; return 1; }
    go pass2
    wait_for "$phys2" 'TOUCH_DOWN' 1 30 || { echo "finger A never reached the panel's node"; kill "${pids[@]}"; return 1; }
    cp "$REPO/scripts/vm/passthrough.json5" "$config.new" && mv "$config.new" "$config"
    wait_for "$log" 'passthrough: screen pass: virtual pointer event[0-9]+ .* created' 2 30 || { echo "no second virtual device"; kill "${pids[@]}"; return 1; }
    node2=$(grep -Eo 'virtual touchscreen event[0-9]+ \(/dev/input/event[0-9]+\)' "$log" | tail -1 | grep -Eo '/dev/input/event[0-9]+')
    stdbuf -oL libinput debug-events --device "$node2" > "$virt2" 2>&1 &
    pids+=($!)
    wait_for "$virt2" 'DEVICE_ADDED' 1 60 || { echo "libinput debug-events on the second virtual device never started"; kill "${pids[@]}"; return 1; }
    wait_for "$phys2" 'TOUCH_UP' 1 30 || { echo "finger A's lift never reached the panel's node (grabbed mid-touch?)"; kill "${pids[@]}"; return 1; }
    wait_for "$log" '"pass panel" .* grabbed \(passthrough\)' 2 30 || { echo "the second panel was not grabbed after A lifted"; kill "${pids[@]}"; return 1; }
    wait_for "$virt2" 'TOUCH_DOWN' 1 60 || { echo "finger B never reached the second virtual device"; kill "${pids[@]}"; return 1; }
    [ "$(count "$virt2" 'TOUCH_DOWN')" -eq 1 ] && grep -m1 'TOUCH_DOWN' "$virt2" | grep -q ' 15\.00/30\.00 ' \
        || { echo "second virtual device: $(grep TOUCH_DOWN "$virt2" | tr '\n' ';') (finger A must not be there)"; kill "${pids[@]}"; return 1; }
    kill -KILL "$daemon"
    wait_for "$virt2" 'DEVICE_REMOVED' 1 30 || { echo "the virtual device outlived the daemon"; kill "${pids[@]}"; return 1; }
    [ "$(count "$virt2" 'TOUCH_UP')" -eq 0 ] && [ "$(count "$virt2" 'TOUCH_CANCEL')" -eq 1 ] \
        || { echo "after SIGKILL: $(count "$virt2" TOUCH_UP) ups, $(count "$virt2" TOUCH_CANCEL) cancels"; kill "${pids[@]}"; return 1; }
    [ ! -e "/sys/class/input/${node2##*/}" ] || { echo "${node2##*/} still in sysfs"; kill "${pids[@]}"; return 1; }
    # The kernel released the grab with the daemon: the panel's node sees the tap that follows.
    wait_for "$phys2" 'TOUCH_DOWN' 2 30 || { echo "the panel's node saw nothing after the daemon died"; kill "${pids[@]}"; return 1; }
    wait "$PID_pass2"
    # A daemon started while finger F is down (scripts/vm/passthrough-field.json5): F is never
    # passed on and the panel's node sees it lift. Then, on a new panel: a waking touch after idle
    # (swallowed), a pinch in a 'maxTouches: 1' region (one touch sequence), a 1.2 s press on the
    # pointer pad (the right button), a 2 ms blip at the right edge (dropped): the virtual
    # touchscreen gets the pinch's first finger and the last tap only; and a tap on 'rot panel'
    # (mounted at 90 degrees) arrives in screen 'rot''s orientation.
    local config3="$WORK/passthrough-field.json5" log3="$WORK/pass-daemon3.log" phys3="$WORK/pass-phys3.out"
    local virt3="$WORK/pass-virt3.out" pointer3="$WORK/pass-pointer3.out" virtrot="$WORK/pass-virtrot.out"
    local node3 pointer3node rotnode downs3 status3 rx ry bench
    # The cost of an input frame to the virtual touchscreen's write beside the socket's, in one run
    # (here, where /dev/uinput exists; the debug build, under TCG: compare the rows, not the host's).
    "$BIN/touchrouter-bench" passthrough 2000 > "$OUT/pass-bench.txt" 2>&1
    bench=$(grep -Eo "(socket|touchscreen)'s write, 1 touch moving: median [^,]*" "$OUT/pass-bench.txt" | sed -E 's/, 1 touch moving: median/ median/' | tr '\n' ';')
    cp "$REPO/scripts/vm/passthrough-field.json5" "$config3"
    launch pass3 "$CTL" inject --name "pass panel" --size 1000x500 --wait-stdin --start-delay 0 --linger 500 \
        --gesture "hold 500 100 10000"
    wait_for "$OUT/pass3.device" '^device /dev/input/event' 1 30 || { echo "finger F's panel was not made"; kill "${pids[@]}"; return 1; }
    panel=$(grep -o '/dev/input/event[0-9]*' "$OUT/pass3.device" | head -1)
    stdbuf -oL libinput debug-events --device "$panel" > "$phys3" 2>&1 &
    pids+=($!)
    wait_for "$phys3" 'DEVICE_ADDED' 1 60 || { echo "libinput debug-events on F's panel never started"; kill "${pids[@]}"; return 1; }
    go pass3
    wait_for "$phys3" 'TOUCH_DOWN' 1 30 || { echo "finger F never reached the panel's node"; kill "${pids[@]}"; return 1; }
    "$BIN/touchrouterd" --config "$config3" --socket "$socket" > /dev/null 2> "$log3" &
    daemon=$!
    pids+=("$daemon")
    wait_for "$log3" 'passthrough: screen rot: virtual touchscreen event[0-9]+ .* created' 1 60 \
        && wait_for "$log3" 'passthrough: screen pass: virtual pointer event[0-9]+ .* created' 1 60 \
        && wait_for "$log3" 'touch device [0-9]+ "pass panel" .* added' 1 60 \
        || { echo "the third daemon: $(grep -Ei 'passthrough|error' "$log3" | tail -1)"; kill "${pids[@]}"; return 1; }
    [ "$(count "$phys3" 'TOUCH_UP')" -eq 0 ] || { echo "finger F lifted before the daemon had its panel: too slow to tell"; kill "${pids[@]}"; return 1; }
    node3=$(grep -Eo 'screen pass: virtual touchscreen event[0-9]+ \(/dev/input/event[0-9]+\)' "$log3" | head -1 | grep -Eo '/dev/input/event[0-9]+')
    pointer3node=$(grep -Eo 'screen pass: virtual pointer event[0-9]+ \(/dev/input/event[0-9]+\)' "$log3" | head -1 | grep -Eo '/dev/input/event[0-9]+')
    rotnode=$(grep -Eo 'screen rot: virtual touchscreen event[0-9]+ \(/dev/input/event[0-9]+\)' "$log3" | head -1 | grep -Eo '/dev/input/event[0-9]+')
    stdbuf -oL libinput debug-events --device "$node3" > "$virt3" 2>&1 &
    pids+=($!)
    stdbuf -oL libinput debug-events --device "$pointer3node" > "$pointer3" 2>&1 &
    pids+=($!)
    stdbuf -oL libinput debug-events --device "$rotnode" > "$virtrot" 2>&1 &
    pids+=($!)
    launch pass4 "$CTL" inject --name "pass panel" --size 1000x500 --wait-stdin --start-delay 0 --linger 500 \
        --gesture "tap 500 250; wait 1000; pinch 100 100 20 80 600; wait 300; hold 950 450 1200; wait 300; hold 995 250 2; wait 300; tap 700 300"
    launch rot "$CTL" inject --name "rot panel" --size 1000x500 --wait-stdin --start-delay 0 --linger 500 --gesture "tap 100 100"
    wait_for "$virt3" 'DEVICE_ADDED' 1 60 && wait_for "$pointer3" 'DEVICE_ADDED' 1 60 && wait_for "$virtrot" 'DEVICE_ADDED' 1 60 \
        || { echo "libinput debug-events on the third daemon's devices never started"; kill "${pids[@]}"; return 1; }
    wait_for "$phys3" 'TOUCH_UP' 1 30 || { echo "finger F's lift never reached the panel's node (grabbed mid-touch?)"; kill "${pids[@]}"; return 1; }
    wait "$PID_pass3"
    wait_for "$log3" '"pass panel" .* grabbed \(passthrough\)' 2 60 && wait_for "$log3" '"rot panel" .* grabbed \(passthrough\)' 1 60 \
        || { echo "the new panels were not added and grabbed: $(grep 'touch device' "$log3" | tail -2 | tr '\n' ';')"; kill "${pids[@]}"; return 1; }
    wait_for "$log3" 'screen pass is idle' 1 30 || { echo "screen pass never went idle"; kill "${pids[@]}"; return 1; }
    go pass4
    go rot
    wait "$PID_pass4" && wait "$PID_rot" || { echo "an injector failed"; kill "${pids[@]}"; return 1; }
    wait_for "$virt3" 'TOUCH_UP' 2 30 && wait_for "$virtrot" 'TOUCH_UP' 1 30 && wait_for "$pointer3" 'BTN_RIGHT .* released' 1 30 \
        || { echo "virtual: $(grep -Ec 'TOUCH_(DOWN|UP)' "$virt3") downs and ups, rot $(grep -c TOUCH_UP "$virtrot") ups, pointer: $(grep -E 'BTN_' "$pointer3" | tr '\n' ';')"; kill "${pids[@]}"; return 1; }
    # F and the waking tap never arrive, nor the blip; the pinch is one sequence: its first finger.
    downs3=$(grep TOUCH_DOWN "$virt3" | grep -Eo '[0-9.]+/[0-9.]+ \(' | tr -d ' (' | tr '\n' ' ')
    [ "$(count "$virt3" 'TOUCH_DOWN')" -eq 2 ] && [ "$(count "$virt3" 'TOUCH_UP')" -eq 2 ] && [ "$(count "$virt3" 'TOUCH_CANCEL')" -eq 0 ] \
        || { echo "virtual touchscreen: downs at $downs3(%), $(count "$virt3" TOUCH_UP) ups, $(count "$virt3" TOUCH_CANCEL) cancels; expected the pinch's first finger and the last tap"; kill "${pids[@]}"; return 1; }
    echo "$downs3" | awk '{ split($1, a, "/"); split($2, b, "/"); exit !(a[1] < 20 && a[2] < 40 && b[1] >= 69.9 && b[1] <= 70.1 && b[2] >= 59.8 && b[2] <= 60.2) }' \
        || { echo "virtual touchscreen downs at $downs3(%), expected the pinch (<20/<40) and 70/60"; kill "${pids[@]}"; return 1; }
    [ "$(count "$virt3" 'TOUCH_MOTION')" -ge 1 ] || { echo "the pinch's finger never moved on the virtual touchscreen"; kill "${pids[@]}"; return 1; }
    [ "$(count "$pointer3" 'BTN_LEFT')" -eq 0 ] && [ "$(count "$pointer3" 'BTN_RIGHT .* pressed')" -eq 1 ] \
        || { echo "pointer: $(grep -E 'BTN_' "$pointer3" | tr '\n' ';'), expected one right click"; kill "${pids[@]}"; return 1; }
    # 'rot panel' (1000x500) at 90 degrees: its (100, 100) is the 500x1000 screen's (400, 100), 80/10 %.
    read -r rx ry < <(grep -m1 'TOUCH_DOWN' "$virtrot" | grep -Eo '[0-9.]+/[0-9.]+ \(' | head -1 | tr '/(' '  ')
    [ "$(count "$virtrot" 'TOUCH_DOWN')" -eq 1 ] && awk -v x="$rx" -v y="$ry" 'BEGIN { exit !(x >= 79.8 && x <= 80.2 && y >= 9.9 && y <= 10.1) }' \
        || { echo "the rotated tap arrived at $rx/$ry %, not 80/10 % ($(count "$virtrot" TOUCH_DOWN) downs)"; kill "${pids[@]}"; return 1; }
    timeout 60 "$CTL" status --socket "$socket" --json > "$OUT/pass3.status" || { echo "status did not answer"; kill "${pids[@]}"; return 1; }
    status3=$(python3 -c '
import json, sys
def find(v):
    if isinstance(v, dict):
        if isinstance(v.get("passthrough"), list): return v["passthrough"]
        for w in v.values():
            r = find(w)
            if r is not None: return r
    return None
s = {e["screen"]: e for e in find(json.load(open(sys.argv[1]))) or []}
p, r = s["pass"], s["rot"]
print(" ".join(str(x) for x in (p["touches-passed"] - p["heldBack"], p["dropped-over-max-touches"], p["pointer-touches"],
    p["right-clicks"], p["liveContacts"], r["touches-passed"])))' "$OUT/pass3.status") \
        || { echo "status: no passthrough counters"; kill "${pids[@]}"; return 1; }
    [ "$status3" = "2 1 1 1 0 1" ] \
        || { echo "status (passed-heldBack, over-max, pointer, right-clicks, live, rot passed): $status3, expected 2 1 1 1 0 1"; kill "${pids[@]}"; return 1; }
    kill -TERM "$daemon"
    kill "${pids[@]}" 2>/dev/null
    echo "udev: ID_INPUT_TOUCHSCREEN=1 only (pointer: ID_INPUT_MOUSE=1 only, absolute motion and a left click);" \
        "tap at $x/$y % of the virtual device, native tap on the socket," \
        "none on the grabbed panel; a reload cancelled the held finger (TOUCH_CANCEL, no TOUCH_UP);" \
        "dropping passthrough removed the device and released the panel; a finger down as passthrough came back" \
        "stayed the panel's and the grab waited for it; SIGKILL: device gone, contact cancelled, panel free;" \
        "a daemon started with a finger down never passed it on; the waking touch and a blip never arrived;" \
        "a pinch in a maxTouches: 1 region arrived as one sequence; a 1.2 s press as the right button;" \
        "a tap on a 90-degree panel at $rx/$ry %; status: $status3; bench: $bench"
}
scenario "passthrough: virtual touchscreen, grab, cancel, SIGKILL" passthrough

# 12. A screen whose virtual device cannot be made keeps its panel (docs/passthrough.md, "Service"):
#     a daemon with scripts/vm/passthrough.json5 runs in its own mount namespace where /dev/uinput
#     is /dev/null, so its virtual devices cannot be made. Passes when it logs why, never grabs
#     'pass panel', and a tap on the panel reaches the panel's own node (what the compositor reads).
passthrough_without_device() {
    local config="$WORK/nodevice.json5" socket=/run/touchrouter-nodevice.sock log="$WORK/nodevice-daemon.log"
    local phys="$WORK/nodevice-phys.out" panel pids=()
    cp "$REPO/scripts/vm/passthrough.json5" "$config"
    unshare --mount sh -c 'mount --bind /dev/null /dev/uinput && exec "$@"' sh \
        "$BIN/touchrouterd" --config "$config" --socket "$socket" > /dev/null 2> "$log" &
    pids+=($!)
    wait_for "$log" 'passthrough: screen pass: cannot create its virtual device' 1 60 \
        || { echo "no device failure logged: $(tail -2 "$log" | tr '\n' ';')"; kill "${pids[@]}"; return 1; }
    launch nodevice "$CTL" inject --name "pass panel" --size 1000x500 --wait-stdin --start-delay 0 --linger 500 \
        --gesture "tap 100 100"
    wait_for "$log" 'touch device [0-9]+ "pass panel" .* added, drives screen pass' 1 60 \
        || { echo "the daemon never took the panel: $(tail -2 "$log" | tr '\n' ';')"; kill "${pids[@]}"; return 1; }
    panel=$(grep -o '/dev/input/event[0-9]*' "$OUT/nodevice.device" | head -1)
    stdbuf -oL libinput debug-events --device "$panel" > "$phys" 2>&1 &
    pids+=($!)
    wait_for "$phys" 'DEVICE_ADDED' 1 60 || { echo "libinput debug-events never started"; kill "${pids[@]}"; return 1; }
    go nodevice
    wait_for "$phys" 'TOUCH_UP' 1 30 \
        || { echo "the panel's node saw no tap: grabbed? $(grep -c 'grabbed (passthrough)' "$log")"; kill "${pids[@]}"; return 1; }
    ! grep -q 'grabbed (passthrough)' "$log" || { echo "the panel was grabbed"; kill "${pids[@]}"; return 1; }
    local injector="PID_nodevice"
    wait "${!injector}"
    kill "${pids[@]}"
    wait "${pids[@]}" 2>/dev/null
    echo "no virtual device (uinput is /dev/null): the failure logged, the panel not grabbed, its tap on its own node"
}
scenario "passthrough: no virtual device, the panel kept" passthrough_without_device

kill "$MONITOR_PID" "$READER_PID"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" && echo "daemon stopped cleanly" || echo "daemon exit status $?"
echo "guest done"
