#!/usr/bin/env bash
# The crates that must not link libtorch do not: none of them depends on tch, torch-sys or
# fairyzero-torch (directly or through another crate, dev-dependencies included), none has a
# `torch` feature, and `ldd` finds no libtorch in any of their test binaries (nor in the lean
# `fairyzero` binary, which the cli package builds). Run by `make test` after the tests; exits 1
# naming each offender. Usage: tools/check-no-torch.sh [PACKAGE...] (default: the list below).
# The test build it inspects is the workspace's (`cargo test --workspace --no-run`).
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}

packages=("$@")
if [[ ${#packages[@]} == 0 ]]; then
    packages=(fairyzero-rules fairyzero-model fairyzero-selfplay fairyzero-evaluator fairyzero-designer fairyzero-cli)
fi
failed=0

for package in "${packages[@]}"; do
    # `cargo tree` lists every package reachable from this one, one per line ("name vX.Y.Z ...").
    torch_deps=$($CARGO tree --quiet --package "$package" --edges normal,build,dev --prefix none \
        | awk '{print $1}' | grep -xE 'tch|torch-sys|fairyzero-torch' | sort -u || true)
    if [[ -n $torch_deps ]]; then
        echo "check-no-torch: $package depends on $(echo $torch_deps | tr ' ' ',') (see $CARGO tree -p $package -i <name>)" >&2
        failed=1
    fi
done

# Features named after torch, from the packages' manifests.
$CARGO metadata --quiet --no-deps --format-version 1 | python3 -c '
import json, sys
wanted = set(sys.argv[1:])
bad = ["%s has the feature %r (%s)" % (p["name"], f, p["manifest_path"])
       for p in json.load(sys.stdin)["packages"] if p["name"] in wanted
       for f in p["features"] if "torch" in f or "tch" in f]
for line in bad:
    print("check-no-torch: " + line, file=sys.stderr)
sys.exit(1 if bad else 0)
' "${packages[@]}" || failed=1

# Every executable of these packages in the workspace's test build (what `make test` has just
# built, so nothing is rebuilt): unit and integration tests, and the binaries those run. The
# whole workspace, not `-p` these packages, so that cargo resolves features as the tests did.
mapfile -t executables < <($CARGO test --quiet --workspace --no-run --message-format=json \
    | python3 -c '
import json, re, sys
wanted = set(sys.argv[1:])
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or not message.get("executable"):
        continue
    # "path+file:///…/rules#fairyzero-rules@0.1.0", "path+file:///…/name#0.1.0" (folder named
    # as the package) or, before cargo 1.77, "fairyzero-rules 0.1.0 (…)".
    package_id = message["package_id"]
    if "#" in package_id:
        url, fragment = package_id.rsplit("#", 1)
        name = fragment.split("@")[0] if "@" in fragment else url.rstrip("/").rsplit("/", 1)[-1]
    else:
        name = package_id.split(" ")[0]
    if name in wanted:
        print(message["executable"])
' "${packages[@]}" | sort -u)
# An empty list would pass without looking at anything (cargo's JSON changed, say).
if [[ ${#executables[@]} == 0 ]]; then
    echo "check-no-torch: found no test executables of ${packages[*]} in cargo's build output" >&2
    failed=1
fi
for executable in "${executables[@]}"; do
    if ldd "$executable" 2>&1 | grep -q 'libtorch\|libc10'; then
        echo "check-no-torch: $executable links libtorch:" >&2
        ldd "$executable" | grep 'libtorch\|libc10' >&2
        failed=1
    fi
done

if [[ $failed == 0 ]]; then
    echo "check-no-torch: ${#packages[@]} packages, ${#executables[@]} executables, no libtorch"
fi
exit $failed
