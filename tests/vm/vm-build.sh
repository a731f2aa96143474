#!/bin/bash
# vm-build.sh: prepare everything vm-run.sh needs, from Debian packages only.
#
#   * qemu-system-x86 and cpio (installed with apt-get, --no-install-recommends)
#   * linux-image-6.1.0-NN-amd64 (only DOWNLOADED and unpacked: nothing is
#     installed into the host's /boot or /lib/modules)
#   * busybox-static, kmod and iputils-ping (downloaded and unpacked; this host
#     has neither the kmod tools nor ping, the guest gets them from the layer)
#
# Flavours (VM_FLAVOUR):
#   bookworm (default)  Debian 12's 6.1 kernel; the guest runs the host's FRR 8.4.4
#   trixie              Debian 13's 6.12 kernel and FRR 10.3: debootstrap (minbase) of a trixie
#                       root with frr and iproute2 in $VM_CACHE/frr-root, which the guest runs
#                       FRR from as a chroot (tests/vm/README.md); the kernel .deb is fetched
#                       by that root's apt. Default VM_CACHE /var/tmp/srv6d-vm-trixie.
#
# Result, in $VM_CACHE (default /var/tmp/srv6d-vm):
#   vmlinuz                    the Debian kernel (6.1; trixie: 6.12)
#   frr-root/                  (trixie) the Debian 13 root FRR 10.3 runs from
#   initrd.gz                  hand-made initramfs: busybox + 9p/virtio/overlay modules + init
#   layer/                     a read-only overlay layer put ABOVE the host root in the
#                              guest: usr/lib/modules/<ver> (+ modules.dep from depmod)
#                              kmod (modprobe, depmod, ...) and ping, which this host lacks
#   kver                       the kernel version string
# Idempotent: re-running rebuilds the initramfs; the unpacked kernel is reused.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VM_FLAVOUR="${VM_FLAVOUR:-bookworm}"
case "$VM_FLAVOUR" in
bookworm) VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm}" ;;
trixie) VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm-trixie}" ;;
*) echo "vm-build: unknown VM_FLAVOUR '$VM_FLAVOUR' (bookworm, trixie)" >&2; exit 2 ;;
esac
mkdir -p "$VM_CACHE/debs"
t0=$(date +%s.%N)

# 1. qemu (a real install: it has many library dependencies) and cpio (initramfs archive)
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v cpio >/dev/null; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 cpio
fi

# 1b. trixie: a minimal Debian 13 root with FRR 10.3 (debootstrap, then that root's own apt,
#     which orders systemd's pre-dependencies that debootstrap's --include gets wrong)
if [ "$VM_FLAVOUR" = trixie ]; then
	# shellcheck source=tests/vm/trixie-root.sh
	. "$HERE/trixie-root.sh"
	trixie_root "$VM_CACHE/frr-root"
	KPKG="${KPKG:-$(trixie_kernel_pkg "$VM_CACHE/frr-root")}"
	[ -n "$KPKG" ] || { echo "vm-build: no linux-image package in the trixie root's apt" >&2; exit 1; }
	if ! ls "$VM_CACHE/debs/${KPKG}"_*.deb >/dev/null 2>&1; then
		trixie_download "$VM_CACHE/frr-root" "$KPKG" "$VM_CACHE/debs" || exit 1
	fi
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
	# bookworm's package ships /lib/modules, trixie's /usr/lib/modules
	for d in usr/lib/modules lib/modules; do
		[ -d "$VM_CACHE/kpkg/$d/$KVER" ] && { mv "$VM_CACHE/kpkg/$d/$KVER" "$L/usr/lib/modules/"; break; }
	done
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
	path=$(grep -E "/${name}\.ko(\.xz|\.zst)?:" "$MD/modules.dep" | head -1 | cut -d: -f1 || true)
	if [ -z "$path" ]; then
		# built into this kernel (6.12: virtio_pci)
		grep -qE "/${name}\.ko$" "$MD/modules.builtin" && return 0
		echo "module $name not found" >&2; exit 1
	fi
	[ -n "${seen[$path]:-}" ] && return 0
	seen[$path]=1
	deps=$(grep -E "^${path}:" "$MD/modules.dep" | cut -d: -f2)
	for d in $deps; do d=$(basename "$d"); add_mod "${d%%.ko*}"; done
	order+=("$path")
}
for m in virtio_pci virtio_mmio 9pnet_virtio 9p overlay; do add_mod "$m"; done
: > "$IR/lib/modules/order"
for p in "${order[@]}"; do
	# busybox's insmod takes plain .ko files only (trixie's kernel ships them xz-compressed)
	b=$(basename "$p")
	case "$b" in
	*.ko.xz) xz -dc "$MD/$p" > "$IR/lib/modules/${b%.xz}"; b="${b%.xz}" ;;
	*.ko.zst) zstd -qdc "$MD/$p" > "$IR/lib/modules/${b%.zst}"; b="${b%.zst}" ;;
	*) cp "$MD/$p" "$IR/lib/modules/" ;;
	esac
	echo "$b" >> "$IR/lib/modules/order"
done
echo "initramfs modules: $(tr '\n' ' ' < "$IR/lib/modules/order")"
cp "$HERE/initramfs-init.sh" "$IR/init"
chmod 755 "$IR/init"
(cd "$IR" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1 > "$VM_CACHE/initrd.gz")
rm -rf "$IR"
ls -la "$VM_CACHE/vmlinuz" "$VM_CACHE/initrd.gz"
echo "vm-build done in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
