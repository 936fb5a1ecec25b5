#!/usr/bin/env bash
# The package under a real systemd: boots the Debian kernel with systemd as PID 1 on a small Debian
# root (debootstrap: systemd, udev, libinput), installs dist/touchrouter_*.deb there with dpkg and
# drives the scenarios of scripts/vm/systemd-guest.sh. Prints PASS/FAIL lines; see docs/vm-testing.md.
#   flock /tmp/vm.lock bash scripts/vm-systemd.sh [dist/touchrouter_<version>_<arch>.deb]
# Environment: TOUCHROUTER_VM_SYSROOT (the cached debootstrap root, default
# /var/cache/touchrouter-vm/bookworm), TOUCHROUTER_VM_KERNEL, TOUCHROUTER_VM_TIMEOUT (s, default 1500),
# TOUCHROUTER_VM_KVM=1, TOUCHROUTER_VM_KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
sysroot=${TOUCHROUTER_VM_SYSROOT:-/var/cache/touchrouter-vm/bookworm}
kernel=${TOUCHROUTER_VM_KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}
kver=${kernel#/boot/vmlinuz-}
initrd=/boot/initrd.img-$kver
deb=${1:-$(ls -t dist/touchrouter_*.deb 2>/dev/null | head -1 || true)}
[ -n "$deb" ] || deb=$(scripts/package)

if [ ! -x "$sysroot/lib/systemd/systemd" ]; then
    echo "vm-systemd: building the guest root in $sysroot (debootstrap, once)"
    mkdir -p "$(dirname "$sysroot")"
    debootstrap --variant=minbase \
        --include=systemd,systemd-sysv,udev,libinput10,libevdev2,libudev1,libyaml-0-2,kmod,socat,evemu-tools,dbus \
        bookworm "$sysroot" http://deb.debian.org/debian > "$sysroot.log" 2>&1
fi

work=$(mktemp -d /tmp/touchrouter-vmsd.XXXXXX)
root="$work/root"
cp -a "$sysroot" "$root"
# A root cached before a library joined the package's Depends gets it here (dpkg -i in the guest has
# no network): libyaml-0-2 (recordings are read with libyaml).
for pkg in libyaml-0-2; do
    if ! grep -qx "Package: $pkg" "$root/var/lib/dpkg/status"; then
        (cd "$work" && apt-get download "$pkg" > /dev/null 2>&1)
        dpkg --root="$root" -i "$work"/"$pkg"_*.deb > "$work/dpkg-$pkg.log" 2>&1
    fi
done
# Kernel modules the guest needs after the initrd: input (evdev, uinput), nothing else.
mkdir -p "$root/lib/modules/$kver/kernel/drivers"
cp -a "/lib/modules/$kver/kernel/drivers/input" "$root/lib/modules/$kver/kernel/drivers/"
cp -a /lib/modules/$kver/modules.order /lib/modules/$kver/modules.builtin* "$root/lib/modules/$kver/"
depmod -b "$root" "$kver"
printf 'uinput\nevdev\n' > "$root/etc/modules-load.d/touchrouter-vmtest.conf"
echo touchrouter-vm > "$root/etc/hostname"
: > "$root/etc/fstab"
mkdir -p "$root/opt/vmtest"
cp "$deb" "$root/opt/vmtest/touchrouter.deb"
# Debian's node_exporter, installed by the guest in the middle of its run (scenario 10: the metrics
# timer idles without it). Its dependencies (adduser, init-system-helpers, libc6) are in the root.
(cd "$work" && apt-get download prometheus-node-exporter > "$work/download-node-exporter.log" 2>&1) &&
    cp "$work"/prometheus-node-exporter_*.deb "$root/opt/vmtest/prometheus-node-exporter.deb" || true
# touchrouterctl for the scenarios (the package has it too, but the test runs it before dpkg -i).
install -m 0755 scripts/vm/systemd-guest.sh "$root/opt/vmtest/guest.sh"
cat > "$root/etc/systemd/system/touchrouter-vmtest.service" <<UNIT
[Unit]
Description=touchrouter package test (scripts/vm-systemd.sh)
After=basic.target systemd-udevd.service systemd-udev-settle.service
[Service]
Type=oneshot
ExecStart=/opt/vmtest/guest.sh
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf ../touchrouter-vmtest.service "$root/etc/systemd/system/multi-user.target.wants/"
# Nothing that waits for hardware or a network that is not there.
for u in systemd-networkd-wait-online.service getty@tty1.service; do ln -sf /dev/null "$root/etc/systemd/system/$u"; done

truncate -s 1G "$work/root.img"
mkfs.ext4 -q -F -d "$root" "$work/root.img"
rm -rf "$root"

accel=(-accel tcg)
[ "${TOUCHROUTER_VM_KVM:-0}" = 1 ] && accel=(-accel kvm -cpu host)
: > "$work/results"
echo "vm-systemd: booting $kernel with systemd (results in $work)"
timeout "${TOUCHROUTER_VM_TIMEOUT:-1500}" qemu-system-x86_64 "${accel[@]}" -m 1024 -smp 2 -no-reboot \
    -display none -kernel "$kernel" -initrd "$initrd" \
    -append "root=/dev/vda rw console=ttyS0 init=/lib/systemd/systemd systemd.unit=multi-user.target panic=-1" \
    -drive "file=$work/root.img,format=raw,if=virtio" \
    -serial "file:$work/console.log" -serial "file:$work/results" > "$work/qemu.log" 2>&1 || true
# The guest's files: its journal and transcripts, read from the image without mounting it.
for f in results journal.txt dpkg-i.log monitor.out inject.out scrape.out dpkg-node-exporter.log; do
    debugfs -R "dump /opt/vmtest/$f $work/guest-$f" "$work/root.img" > /dev/null 2>&1 || true
done
rm -f "$work/root.img"
tr -d '\r' < "$work/results" | grep -E '^(PASS|FAIL|FIGURE|START|END)' || true
passed=$(grep -c '^PASS' "$work/results" || true); failed=$(grep -c '^FAIL' "$work/results" || true)
grep -q '^END' "$work/results" || { failed=$((failed + 1)); echo "FAIL the guest did not finish (console: $work/console.log)"; tail -5 "$work/console.log"; }
echo "$passed passed, $failed failed in $(( $(date +%s) - start )) s"
[ "$failed" = 0 ] && [ "${TOUCHROUTER_VM_KEEP:-0}" != 1 ] && rm -rf "$work"
[ "$failed" = 0 ]
