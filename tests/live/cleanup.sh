#!/usr/bin/env bash
# cleanup.sh PREFIX: removes what a live run left behind with LIVE_KEEP=1 (or after being
# killed with SIGKILL): its FRR daemons and srv6d (by their pid files), namespaces and
# directories. Only objects named after PREFIX are touched.
set -u
p="${1:?usage: $0 PREFIX   (e.g. s6t-12345)}"
[[ "$p" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "bad prefix: $p" >&2; exit 2; }
pids=()
for f in /var/run/frr/"$p"-*/*.pid /tmp/"$p".*/srv6d*.pid; do
	[ -f "$f" ] && pids+=("$(cat "$f")")
done
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
sleep 1
for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
for ns in $(ip netns list | awk '{print $1}'); do
	[[ "$ns" == "$p"-* ]] && ip netns del "$ns"
done
rm -rf /var/run/frr/"$p"-* /tmp/"$p".*
echo "removed $p: ${#pids[@]} processes"
