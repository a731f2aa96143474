#!/usr/bin/env bash
# docs/srv6ctl.md's jq recipe (srv6d's routes against zebra's), run as written on the captures
# in testdata/: srv6ctl and vtysh replaced by those files, the two results must be equal.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
doc=$here/../../docs/srv6ctl.md
# The ```sh block that ends with the diff.
recipe=$(awk '/^```sh$/ {buf=""; inblk=1; next} inblk && /^```$/ {if (buf ~ /diff zebra.json srv6d.json/) print buf; inblk=0; next} inblk {buf = buf $0 "\n"}' "$doc")
[[ -n $recipe ]] || { echo "FAIL: no recipe block in docs/srv6ctl.md"; exit 1; }
recipe=${recipe//"srv6ctl show routes table 254 --json"/"cat $here/testdata/srv6ctl-routes.json"}
recipe=${recipe//"vtysh -c 'show ip route json'"/"cat $here/testdata/zebra-ip-route.json"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$(cd "$work" && bash -euo pipefail -c "$recipe")
[[ $out == same ]] || { echo "FAIL: the recipe does not match on the captures:"; echo "$out"; exit 1; }
echo "ok: the recipe matches on the captures"
