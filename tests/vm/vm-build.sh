#!/bin/bash
# vm-build.sh: prepare everything vm-run.sh needs, from Debian packages only.
#
#   * qemu-system-x86 and cpio (installed with apt-get, --no-install-recommends)
#   * linux-image-6.1.0-NN-amd64 (only DOWNLOADED and unpacked: nothing is
#     installed into the host's /boot or /lib/modules)
#   * busybox-static, kmod and iputils-ping (downloaded and unpacked; this host
#     has neither the kmod tools nor ping, the guest gets them from the layer)
#
# Result, in $VM_CACHE (default /var/tmp/srv6d-vm):
#   vmlinuz                    the Debian 6.1 kernel
#   initrd.gz                  hand-made initramfs: busybox + 9p/virtio/overlay modules + init
#   layer/                     a read-only overlay layer put ABOVE the host root in the
#                              guest: usr/lib/modules/<ver> (+ modules.dep from depmod)
#                              kmod (modprobe, depmod, ...) and ping, which this host lacks
#   kver                       the kernel version string
# Idempotent: re-running rebuilds the initramfs; the unpacked kernel is reused.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm}"
mkdir -p "$VM_CACHE/debs"
t0=$(date +%s.%N)

# 1. qemu (a real install: it has many library dependencies) and cpio (initramfs archive)
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v cpio >/dev/null; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 cpio
fi

# 2. which 6.1 kernel: the one the linux-image-amd64 metapackage points at
KPKG="${KPKG:-$(apt-cache show linux-image-amd64 2>/dev/null | sed -n 's/^Depends: \(linux-image-6\.1[^ ,]*\).*/\1/p' | sort -V | tail -1)}"
if [ -z "$KPKG" ]; then apt-get update -qq; KPKG=$(apt-cache show linux-image-amd64 | sed -n 's/^Depends: \(linux-image-6\.1[^ ,]*\).*/\1/p' | sort -V | tail -1); fi
KVER="${KPKG#linux-image-}"
echo "kernel package: $KPKG ($KVER)"

cd "$VM_CACHE/debs"
for p in "$KPKG" busybox-static kmod iputils-ping; do
	ls ./"${p}"_*.deb >/dev/null 2>&1 && continue
	# grep -v only filters apt's sandbox notice (its status is 1 when nothing is left); whether the
	# download worked is checked on the file, not hidden by the pipeline
	apt-get download "$p" 2>&1 | grep -v 'unsandboxed' || true
	ls ./"${p}"_*.deb >/dev/null 2>&1 || { echo "vm-build: apt-get download $p failed" >&2; exit 1; }
done
KDEB=$(ls ./"${KPKG}"_*.deb | head -1)
BDEB=$(ls ./busybox-static_*.deb | head -1)
MDEB=$(ls ./kmod_*.deb | head -1)
PDEB=$(ls ./iputils-ping_*.deb | head -1)

# 3. unpack kernel into layer/usr/lib/modules (Debian 12 is merged-/usr: /lib -> usr/lib,
#    so the layer must not contain a real /lib directory, it would hide the host's symlink)
L="$VM_CACHE/layer"
if [ ! -f "$L/usr/lib/modules/$KVER/modules.dep" ] || [ ! -f "$VM_CACHE/vmlinuz" ] || [ ! -x "$L/usr/bin/ping" ]; then
	rm -rf "$VM_CACHE/kpkg" "$L"
	mkdir -p "$VM_CACHE/kpkg" "$L/usr/lib/modules" "$L/usr/bin" "$L/usr/sbin"
	dpkg-deb -x "$KDEB" "$VM_CACHE/kpkg"
	mv "$VM_CACHE/kpkg/lib/modules/$KVER" "$L/usr/lib/modules/"
	cp "$VM_CACHE/kpkg/boot/vmlinuz-$KVER" "$VM_CACHE/vmlinuz"
	cp "$VM_CACHE/kpkg/boot/config-$KVER" "$VM_CACHE/config"
	rm -rf "$VM_CACHE/kpkg"
	# kmod (the host has libkmod2 but not the kmod tools)
	mkdir -p "$VM_CACHE/kmodpkg"
	dpkg-deb -x "$MDEB" "$VM_CACHE/kmodpkg"
	cp "$VM_CACHE/kmodpkg/bin/kmod" "$L/usr/bin/kmod"
	for t in modprobe depmod insmod rmmod lsmod modinfo; do ln -sf ../bin/kmod "$L/usr/sbin/$t"; done
	mkdir -p "$L/usr/lib/modprobe.d"
	cp "$VM_CACHE/kmodpkg/lib/modprobe.d/aliases.conf" "$L/usr/lib/modprobe.d/" 2>/dev/null || true
	rm -rf "$VM_CACHE/kmodpkg"
	# ping (iputils): plain binary, file capabilities are irrelevant as the guest runs as root
	dpkg-deb -x "$PDEB" "$VM_CACHE/kmodpkg"
	cp "$VM_CACHE/kmodpkg/bin/ping" "$L/usr/bin/ping"
	ln -sf ping "$L/usr/bin/ping6"
	rm -rf "$VM_CACHE/kmodpkg"
	ln -sf "$L/usr/bin/kmod" "$VM_CACHE/depmod"
	"$VM_CACHE/depmod" -b "$L/usr" "$KVER"
fi
echo "$KVER" > "$VM_CACHE/kver"

# 4. initramfs: busybox-static + modules for virtio-pci, 9p and overlayfs + init
IR="$VM_CACHE/initrd-root"
rm -rf "$IR" "$VM_CACHE/bbpkg"
mkdir -p "$IR"/{bin,dev,proc,sys,mnt,newroot,lib/modules} "$VM_CACHE/bbpkg"
dpkg-deb -x "$BDEB" "$VM_CACHE/bbpkg"
cp "$VM_CACHE/bbpkg/bin/busybox" "$IR/bin/busybox"
rm -rf "$VM_CACHE/bbpkg"
MD="$L/usr/lib/modules/$KVER"
# topological order from modules.dep (dependencies first)
declare -A seen=()
order=()
add_mod() {
	local name="$1" path deps d
	path=$(grep -E "/${name}\.ko:" "$MD/modules.dep" | head -1 | cut -d: -f1)
	[ -n "$path" ] || { echo "module $name not found" >&2; exit 1; }
	[ -n "${seen[$path]:-}" ] && return 0
	seen[$path]=1
	deps=$(grep -E "^${path}:" "$MD/modules.dep" | cut -d: -f2)
	for d in $deps; do add_mod "$(basename "$d" .ko)"; done
	order+=("$path")
}
for m in virtio_pci virtio_mmio 9pnet_virtio 9p overlay; do add_mod "$m"; done
: > "$IR/lib/modules/order"
for p in "${order[@]}"; do
	cp "$MD/$p" "$IR/lib/modules/"
	basename "$p" >> "$IR/lib/modules/order"
done
echo "initramfs modules: $(tr '\n' ' ' < "$IR/lib/modules/order")"
cp "$HERE/initramfs-init.sh" "$IR/init"
chmod 755 "$IR/init"
(cd "$IR" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1 > "$VM_CACHE/initrd.gz")
rm -rf "$IR"
ls -la "$VM_CACHE/vmlinuz" "$VM_CACHE/initrd.gz"
echo "vm-build done in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
