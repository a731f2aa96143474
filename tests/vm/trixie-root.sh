# shellcheck shell=bash
# trixie-root.sh: the Debian 13 root of the trixie VM flavour (sourced by vm-build.sh).
#
# trixie_root DIR: debootstrap a minimal trixie (minbase) into DIR, then install frr and
# iproute2 with that root's own apt (debootstrap's --include leaves systemd unconfigured: it
# unpacks its pre-dependency libsystemd-shared without configuring it first). Nothing in it
# is started on the host (policy-rc.d). Idempotent: an existing root with frr is kept.
# The mirror is the one the host's apt uses for Debian (VM_DEBIAN_MIRROR overrides it).

trixie_mirror() {
	[ -n "${VM_DEBIAN_MIRROR:-}" ] && { echo "$VM_DEBIAN_MIRROR"; return; }
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
		awk '$2 ~ /^(bookworm|trixie)$/ && $3 == "main" { print $1; exit }'
}

trixie_chroot() { # trixie_chroot DIR CMD...: with /proc and /dev for the maintainer scripts
	local dir="$1" rc
	shift
	mount -t proc proc "$dir/proc"
	mount --bind /dev "$dir/dev"
	DEBIAN_FRONTEND=noninteractive LC_ALL=C chroot "$dir" "$@"
	rc=$?
	umount "$dir/dev" "$dir/proc"
	return $rc
}

trixie_root() {
	local dir="$1" mirror
	[ -x "$dir/usr/lib/frr/zebra" ] && [ -x "$dir/usr/bin/vtysh" ] && return 0
	command -v debootstrap >/dev/null || {
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
	}
	mirror="$(trixie_mirror)"
	[ -n "$mirror" ] || { echo "vm-build: no Debian mirror in the host's apt sources (set VM_DEBIAN_MIRROR)" >&2; return 1; }
	rm -rf "$dir" "$dir.new"
	debootstrap --variant=minbase trixie "$dir.new" "$mirror" >"$dir.debootstrap.log" 2>&1 ||
		{ tail -20 "$dir.debootstrap.log" >&2; echo "vm-build: debootstrap trixie failed" >&2; return 1; }
	printf '#!/bin/sh\nexit 101\n' >"$dir.new/usr/sbin/policy-rc.d"
	chmod 755 "$dir.new/usr/sbin/policy-rc.d"
	trixie_chroot "$dir.new" apt-get install -y -qq --no-install-recommends frr iproute2 >>"$dir.debootstrap.log" 2>&1 ||
		{ tail -20 "$dir.debootstrap.log" >&2; echo "vm-build: apt-get install frr in the trixie root failed" >&2; return 1; }
	trixie_chroot "$dir.new" apt-get clean
	mv "$dir.new" "$dir"
	echo "trixie root: $(chroot "$dir" dpkg-query -W -f '${Package} ${Version}, ' frr iproute2 libyang3 2>/dev/null)$(du -sh "$dir" | cut -f1)"
}

# trixie_kernel_pkg DIR: the versioned kernel package linux-image-amd64 points at in trixie
trixie_kernel_pkg() {
	chroot "$1" apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | sort -V | tail -1
}

# trixie_download DIR PKG DEST: apt-get download PKG with the trixie root's apt, into DEST
trixie_download() {
	local dir="$1" pkg="$2" dest="$3"
	mkdir -p "$dir/tmp/dl"
	(cd "$dir/tmp/dl" && chroot "$dir" sh -c "cd /tmp/dl && apt-get download -q $pkg") >/dev/null 2>&1
	ls "$dir/tmp/dl/${pkg}"_*.deb >/dev/null 2>&1 || { echo "vm-build: apt-get download $pkg (trixie) failed" >&2; return 1; }
	mv "$dir/tmp/dl/${pkg}"_*.deb "$dest/"
	rm -rf "$dir/tmp/dl"
}
