#!/usr/bin/env bash
# The Debian package, built from the build tree as an operator would (cpack -G DEB), checked
# and installed into a scratch root (dpkg -x: no maintainer scripts, nothing on this machine
# changes): control fields (runtime Depends from dpkg-shlibdeps, all installable here; the
# conffile), every file in its FHS place, the unit verified by systemd-analyze, the man pages
# rendered without warnings, the bash completion completing, and the installed binaries run:
# --version, --help, --check-config on the installed config, and the unit's ExecStart under a
# NOTIFY_SOCKET (tests/service/notify_reload_test.py).
# usage: package_test.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/srv6d-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
expect() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

# --- build the package (CPack writes into the build tree's package/ by default: keep it out)
if ! (cd "$build" && cpack -G DEB -B "$work/out") >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"; echo "FAIL cpack -G DEB"; exit 1
fi
deb=$(ls "$work"/out/srv6d_*.deb)
ok "cpack built $(basename "$deb")"

# --- control fields
field() { dpkg-deb -f "$deb" "$1"; }
expect "Package srv6d" test "$(field Package)" = srv6d
expect "Architecture $(dpkg --print-architecture)" test "$(field Architecture)" = "$(dpkg --print-architecture)"
depends=$(field Depends)
echo "     Depends: $depends"
for lib in libc6 libstdc++6 libnl-3-200 libnl-route-3-200 libprotobuf libfmt libboost-program-options libsystemd0 librte-eal; do
  expect "Depends names $lib" grep -q "$lib" <<<"$depends"
done
# Every dependency is a package this machine has: the package installs where it was built.
IFS=',' read -ra deps <<<"$depends"
for d in "${deps[@]}"; do
  name=$(sed -E 's/^ *([^ (|]+).*/\1/' <<<"$d")
  dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" || fail "dependency $name is not installed here"
done
expect "Recommends frr, dpdk" test "$(field Recommends)" = "frr, dpdk"
mkdir "$work/ctrl"
dpkg-deb -e "$deb" "$work/ctrl"
expect "conffiles is /etc/srv6d/srv6d.conf" test "$(cat "$work/ctrl/conffiles")" = /etc/srv6d/srv6d.conf
for s in postinst prerm postrm; do
  expect "$s is executable" test -x "$work/ctrl/$s"
done

# --- the files, in a scratch root
root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/sbin/srv6d usr/bin/srv6ctl etc/srv6d/srv6d.conf lib/systemd/system/srv6d.service \
         usr/share/man/man8/srv6d.8 usr/share/man/man8/srv6ctl.8 usr/share/man/man5/srv6d.conf.5 \
         usr/share/bash-completion/completions/srv6ctl usr/share/bash-completion/completions/srv6d \
         usr/share/doc/srv6d/operating.md usr/share/doc/srv6d/README.md; do
  expect "/$f" test -f "$root/$f"
done
expect "nothing under /usr/local" test ! -e "$root/usr/local"
expect "the packaged config is the sample" cmp -s "$root/etc/srv6d/srv6d.conf" "$src/etc/srv6d.conf"
unit=$root/lib/systemd/system/srv6d.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
expect "ExecStart=/usr/sbin/srv6d -c /etc/srv6d/srv6d.conf" test "$exec_start" = "/usr/sbin/srv6d -c /etc/srv6d/srv6d.conf"

# --- the unit: systemd's own verifier, against a copy of the scratch root that also has this
# machine's units (sysinit.target, ...) and /bin/kill (ExecReload). The man pages named in
# Documentation= are checked below (verify would look for them on this machine).
vroot=$work/vroot
cp -a "$root" "$vroot"
mkdir -p "$vroot/lib/systemd/system" "$vroot/bin"
cp -an /lib/systemd/system/. "$vroot/lib/systemd/system/"
cp /bin/kill "$vroot/bin/kill"
if systemd-analyze verify --man=no --root="$vroot" srv6d.service >"$work/verify.log" 2>&1 && ! grep -q . "$work/verify.log"; then
  ok "systemd-analyze verify srv6d.service"
else
  cat "$work/verify.log"; fail "systemd-analyze verify srv6d.service"
fi

# --- man pages: rendered, no warnings
for m in man8/srv6d.8 man8/srv6ctl.8 man5/srv6d.conf.5; do
  out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$root/usr/share/man/$m" 2>&1 >/dev/null || echo "man failed")
  expect "man $m renders without warnings" test -z "$out"
  [[ -z $out ]] || echo "$out"
done

# --- bash completion: what `srv6ctl sh<TAB>`, `srv6ctl show r<TAB>`, `srv6ctl set log-level d<TAB>` offer
complete_words() {
  bash -c 'source /usr/share/bash-completion/bash_completion; source "$1"; shift
           COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
           _srv6ctl srv6ctl; echo "${COMPREPLY[*]}"' _ "$root/usr/share/bash-completion/completions/srv6ctl" "$@"
}
expect "completion: srv6ctl s -> show set" test "$(complete_words srv6ctl s)" = "show set"
expect "completion: srv6ctl show r -> routes" test "$(complete_words srv6ctl show r)" = "routes"
expect "completion: srv6ctl set log-level d -> debug" test "$(complete_words srv6ctl set log-level d)" = "debug"

# --- the installed binaries
bin_srv6d=$root/usr/sbin/srv6d
bin_srv6ctl=$root/usr/bin/srv6ctl
expect "srv6d --version" grep -qx "srv6d $(field Version)" <<<"$("$bin_srv6d" --version)"
expect "srv6d --help lists --check-config and log.target" \
  bash -c '"$1" --help | grep -q -- --check-config && "$1" --help | grep -q -- --log.target' _ "$bin_srv6d"
expect "srv6ctl --help lists set log-level" grep -q "set log-level" <<<"$("$bin_srv6ctl" --help)"
expect "srv6d --check-config on the installed config" "$bin_srv6d" --check-config "$root/etc/srv6d/srv6d.conf"

# The unit's ExecStart, with its paths in the scratch root, under a NOTIFY_SOCKET (the test
# rewrites the config it names: control plane only, ports of its own).
read -ra cmd <<<"$exec_start"
args=()
for a in "${cmd[@]:1}"; do
  [[ $a == /* ]] && a=$root$a
  args+=("$a")
done
if python3 "$src/tests/service/notify_reload_test.py" "$root${cmd[0]}" "$bin_srv6ctl" "${args[@]}"; then
  ok "the unit's ExecStart under NOTIFY_SOCKET"
else
  fail "the unit's ExecStart under NOTIFY_SOCKET"
fi

echo "$fails failure(s)"
((fails == 0))
