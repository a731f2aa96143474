#!/bin/bash
# insert_b6_capture_vm.sh: records tests/fixtures/insert-kernel/cases.txt with the VM's kernel
# (the host's has no seg6 routes). Run on the host as root, under the lock (docs/testing.md):
#   flock /tmp/srv6d-live.lock tests/kernel/insert_b6_capture_vm.sh [--check]
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "${1:-}" = "--in-vm" ]; then  # the guest's half: the fixture goes to the run folder
	shift
	exec python3 "$VM_REPO/tests/kernel/insert_b6_capture.py" "$VM_OUT/cases.txt"
fi
RUN="$(mktemp -d /var/tmp/srv6d-insert-capture.XXXXXX)"
bash "$REPO/tests/vm/vm-run.sh" -t 600 -c 1 -m 1024 -o "$RUN" -e VM_REPO="$REPO" "$0" --in-vm
FIX="$REPO/tests/fixtures/insert-kernel/cases.txt"
if [ "${1:-}" = "--check" ]; then
	diff <(grep -v '^#' "$FIX") <(grep -v '^#' "$RUN/out/cases.txt") && echo "kernel output matches the fixture"
else
	cp "$RUN/out/cases.txt" "$FIX" && echo "wrote $FIX"
fi
