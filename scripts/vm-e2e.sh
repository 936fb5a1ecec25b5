#!/bin/bash
# End-to-end suite on the real input stack: boots the Debian kernel once with virtme-ng (qemu TCG)
# over this machine's filesystem and runs scripts/vm/guest.sh inside it: uinput devices, real
# udev, real libinput, the project's binaries. Prints one line per scenario and
# 'N passed, N failed'; exits non-zero on any failure. See docs/vm-testing.md.
#
# Environment: TOUCHROUTER_VM_KVM=1 uses KVM (default: TCG, since KVM hangs on this machine class);
# TOUCHROUTER_VM_KERNEL=/boot/vmlinuz-… picks the kernel; TOUCHROUTER_VM_KEEP=1 keeps the results
# directory; TOUCHROUTER_VM_SKIP_BUILD=1 uses the existing debug build; TOUCHROUTER_VM_RESULTS=DIR
# judges an earlier run's results directory again without booting; TOUCHROUTER_VM_SKIP_RECORDINGS=1
# leaves scenario 1 (the recordings, most of the run) out, for iterating on the other scenarios;
# TOUCHROUTER_VM_ONLY=FUNCTION (with it) runs that one scenario of scripts/vm/guest.sh.
set -euo pipefail
started=$SECONDS
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

say() { echo "vm-e2e: $*" >&2; }

# What the suite needs, installed only when missing.
missing=()
command -v qemu-system-x86_64 > /dev/null || missing+=(qemu-system-x86)
command -v evemu-play > /dev/null || missing+=(evemu-tools)
[ -x /lib/systemd/systemd-udevd ] || missing+=(udev)
dpkg -s busybox-static > /dev/null 2>&1 || missing+=(busybox-static)  # virtme-ng's initramfs
ls /boot/vmlinuz-* > /dev/null 2>&1 || missing+=(linux-image-amd64)
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${missing[@]}" > /dev/null 2>&1 \
        || { apt-get update -q > /dev/null && apt-get install -y -q "${missing[@]}" > /dev/null; }
fi
# pip's scripts directory (vng, virtme-run) may not be on a CI shell's PATH.
PATH="$PATH:$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null || true)"
if ! command -v vng > /dev/null; then
    say "installing virtme-ng (pip)"
    python3 -m pip install -q virtme-ng > /dev/null 2>&1 || pip install -q virtme-ng > /dev/null
    command -v pyenv > /dev/null && pyenv rehash || true
fi
command -v vng > /dev/null || { say "vng not found after installing virtme-ng"; exit 1; }

kernel=${TOUCHROUTER_VM_KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}

if [ "${TOUCHROUTER_VM_SKIP_BUILD:-0}" != 1 ]; then
    say "building touchrouterd and touchrouterctl"
    swift build --product touchrouterd > /dev/null
    swift build --product touchrouterctl > /dev/null
fi
bin=$(swift build --show-bin-path)

if [ -n "${TOUCHROUTER_VM_RESULTS:-}" ]; then
    # Judge the results of an earlier guest run again, without booting (for debugging the checks).
    out=$TOUCHROUTER_VM_RESULTS
    rm -f "$out/recording-results.txt"
else
out=$(mktemp -d /tmp/touchrouter-vm.XXXXXX)
chmod 777 "$out"
kvm_flag=--disable-kvm
mode=TCG
if [ "${TOUCHROUTER_VM_KVM:-0}" = 1 ]; then kvm_flag=; mode=KVM; fi
say "booting $(basename "$kernel") under $mode; results in $out"
boot_started=$SECONDS
# vng needs a terminal-less run to keep quiet; its own output goes to a log for diagnosis.
# qemu's standard VGA (`-device VGA`): with the bochs driver the guest gets /dev/fb0 (scenario 10).
timeout 1500 vng --run "$kernel" $kvm_flag --memory 2G --cpus 2 --rwdir "$out" --qemu-opts="-device VGA" \
    --exec "bash $repo/scripts/vm/guest.sh $out $bin $repo ${TOUCHROUTER_VM_SKIP_RECORDINGS:-0} ${TOUCHROUTER_VM_ONLY:-}" < /dev/null > "$out/vng.log" 2>&1 || true
say "guest ran $((SECONDS - boot_started)) s"
fi

passed=0
failed=0
# normalize FILE: a client's touches, one line per touch: the touch's events in order (view, phase,
# local and screen position to 3 decimals), the touches sorted. Touch ids, tap counts and device names differ
# between runs, and so may the order of different views' messages within one frame; what each
# touch went through must not.
normalize() {
    grep -E ' touch [0-9]+ ' "$1" | sed -E 's/  taps .*$//' \
        | awk '{ id = $3; $2 = ""; $3 = ""
                 for (i = 4; i <= NF; i++) if (match($i, /-?[0-9][0-9.e+-]*/)) {
                     # positions to 3 decimals: float noise (246.99999999999997) is no difference
                     $i = substr($i, 1, RSTART - 1) sprintf("%.3f", substr($i, RSTART, RLENGTH) + 0) substr($i, RSTART + RLENGTH)
                 }
                 gsub(/  +/, " "); seq[id] = seq[id] " | " $0 }
               END { for (id in seq) print substr(seq[id], 4) }' \
        | LC_ALL=C sort
}

# expected_routing EVENTS DESC FILE: what the daemon's replay of the recording delivers to a client.
expected_routing() {
    local socket="$out/replay.sock"
    rm -f "$socket"
    "$bin/touchrouterd" --config "$repo/scripts/vm/config.json5" --socket "$socket" --replay "$1" \
        --replay-device "$2" --speed 0 --replay-wait --exit-after-replay 2> "$out/replay-daemon.log" &
    local daemon=$!
    for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
    timeout 60 "$bin/touchrouterctl" monitor --socket "$socket" > "$3.raw" 2> /dev/null || true
    wait $daemon || true
    normalize "$3.raw" > "$3" || true
}

# Scenario 1's verdicts, computed here (a Swift process starts in well under a second here, in
# seconds under TCG): each live transcript against the replay decoder's, and what the client got
# from the live daemon against what it gets from the daemon replaying the same recording.
if [ -s "$out/recordings.tsv" ]; then
    while IFS=$'\t' read -r tag route dir base status detail; do
        name="recording via $route: $base"
        if [ "$status" != ok ]; then
            echo "FAIL $name: $detail" >> "$out/recording-results.txt"
            continue
        fi
        events="$repo/Tests/Fixtures/recordings/$dir/$base.events"
        desc="$repo/Tests/Fixtures/recordings/$dir/${base%%.*}.desc"
        # A failing step leaves an empty or partial file, which the comparisons below report.
        "$bin/touchrouterctl" input-events --config "$repo/scripts/vm/config.json5" --replay "$events" \
            --device-desc "$desc" > "$out/$tag.expected" || true
        expected_routing "$events" "$desc" "$out/$tag.routed.expected"
        normalize "$out/$tag.routed" > "$out/$tag.routed.normalized" 2> /dev/null || true
        if ! diff_out=$("$bin/touchrouterctl" transcript-diff "$out/$tag.expected" "$out/$tag.live" 2>&1); then
            echo "FAIL $name: $(echo "$diff_out" | head -3 | tr '\n' ';')" >> "$out/recording-results.txt"
        elif [ ! -s "$out/$tag.routed.expected" ]; then
            echo "FAIL $name: the daemon's replay delivered nothing to compare with" >> "$out/recording-results.txt"
        elif ! routed_diff=$(diff "$out/$tag.routed.expected" "$out/$tag.routed.normalized"); then
            echo "FAIL $name: client got other touches than the daemon's replay: $(echo "$routed_diff" | head -4 | tr '\n' ';')" \
                >> "$out/recording-results.txt"
        else
            touches=$(wc -l < "$out/$tag.routed.expected")
            routed=$(grep -Ec ' touch [0-9]+ ' "$out/$tag.routed" || true)
            echo "PASS $name ($diff_out with the replay decoder; $routed per-view events of $touches touch(es) at the client match the daemon's replay)" \
                >> "$out/recording-results.txt"
        fi
    done < "$out/recordings.tsv"
fi
if [ ! -s "$out/results.txt" ] && [ ! -s "$out/recording-results.txt" ]; then
    echo "FAIL vm: the guest reported nothing (see $out/vng.log, $out/guest.log)"
    failed=1
else
    while IFS= read -r line; do
        echo "$line"
        case $line in
            PASS*) passed=$((passed + 1)) ;;
            *) failed=$((failed + 1)) ;;
        esac
    done < <(cat "$out/recording-results.txt" "$out/results.txt" 2>/dev/null)
fi
grep -q '^guest done' "$out/guest.log" 2>/dev/null || { echo "FAIL vm: the guest script did not finish"; failed=$((failed + 1)); }
say "total $((SECONDS - started)) s"
echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ] && [ "${TOUCHROUTER_VM_KEEP:-0}" != 1 ]; then rm -rf "$out"; fi
[ "$failed" -eq 0 ]
