#!/bin/bash
# Captures the libinput fixtures again: boots the Debian kernel with virtme-ng (qemu TCG, like
# scripts/vm-e2e.sh), creates each touchscreen with evemu-device from its shared description,
# plays the shared evemu recording into it with evemu-play, and records it with
# `libinput record --with-libinput`, so the YAML carries libinput's own interpreted TOUCH_*
# events next to the evdev events (what LibinputCrossCheckTests compares the decoder with).
#
# Usage: flock /tmp/vm.lock bash scripts/vm/record-libinput.sh [OUT_DIR]
# Writes OUT_DIR/*.yml (default Tests/Fixtures/recordings/libinput). Needs what the VM suite needs.
# Inside the guest it runs itself again with --guest.
set -u

# name of the fixture → the evemu recording it plays (description: the part before the first dot).
captures=(
    "atmel-2-fingers-touch-release:Atmel maXTouch Touchscreen.2-fingers-touch-release"
    "ep0430m09-4-finger-drag-down:EP0430M09.4-finger-drag-down"
)

if [ "${1:-}" = --guest ]; then
    out=$2
    evemu=$3
    exec > "$out/guest.log" 2>&1
    set -x
    modprobe uinput
    /lib/systemd/systemd-udevd --daemon
    udevadm trigger && udevadm settle
    for capture in "${captures[@]}"; do
        fixture=${capture%%:*}
        base=${capture#*:}
        desc="$evemu/${base%%.*}.desc"
        work=$(mktemp -d /run/record.XXXXXX)
        evemu-device "$desc" > "$work/device" 2>&1 &
        device_pid=$!
        node=
        for _ in $(seq 300); do
            node=$(grep -o '/dev/input/event[0-9]*' "$work/device" | head -1)
            [ -n "$node" ] && [ -e "$node" ] && break
            sleep 0.1
        done
        udevadm settle
        # Written in the guest's tmpfs (9p writes are slow under TCG), copied out at the end.
        libinput record --with-libinput -o "$work/$fixture.yml" "$node" &
        record_pid=$!
        sleep 3  # under TCG libinput takes a while to open the device
        evemu-play "$node" < "$evemu/$base.events"
        sleep 3  # let libinput read the tail
        kill -INT "$record_pid"
        wait "$record_pid"
        kill "$device_pid"
        wait "$device_pid"
        cp "$work/$fixture.yml" "$out/"
        grep -c 'type: TOUCH_' "$out/$fixture.yml"
    done
    echo "guest done"
    exit 0
fi

set -eo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
target=${1:-$repo/Tests/Fixtures/recordings/libinput}
PATH="$PATH:$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null || true)"
kernel=${TOUCHROUTER_VM_KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}
out=$(mktemp -d /tmp/touchrouter-record.XXXXXX)
chmod 777 "$out"
echo "record-libinput: booting $(basename "$kernel") under TCG; results in $out" >&2
timeout 900 vng --run "$kernel" --disable-kvm --memory 2G --cpus 2 --rwdir "$out" \
    --exec "bash $repo/scripts/vm/record-libinput.sh --guest $out $repo/Tests/Fixtures/recordings/evemu" \
    < /dev/null > "$out/vng.log" 2>&1 || true
grep -q '^guest done' "$out/guest.log" 2>/dev/null \
    || { echo "record-libinput: the guest did not finish (see $out/guest.log, $out/vng.log)" >&2; exit 1; }
for capture in "${captures[@]}"; do
    fixture=${capture%%:*}
    touches=$(grep -c 'type: TOUCH_' "$out/$fixture.yml" || true)
    [ "$touches" -gt 0 ] || { echo "record-libinput: $fixture.yml has no TOUCH_* events" >&2; exit 1; }
    cp "$out/$fixture.yml" "$target/"
    echo "record-libinput: $fixture.yml: $touches libinput touch events"
done
rm -rf "$out"
