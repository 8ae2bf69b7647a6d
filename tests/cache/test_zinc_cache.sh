#!/bin/sh
# test_zinc_cache.sh ZINC: `zinc cache` info/path/evict/clear on a scratch
# cache folder with two entries of known sizes and ages.
set -u
ZINC=$1
T=$(mktemp -d /tmp/zn-cache-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
export CUDA_CACHE_PATH="$T"
unset CUDA_CACHE_DISABLE CUDA_CACHE_MAXSIZE
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
a=$(printf 'a%.0s' $(seq 64)).zco
b=$(printf 'b%.0s' $(seq 64)).zco
mkdir -p "$T/kernels"
head -c 100 /dev/zero >"$T/kernels/$a"
head -c 200 /dev/zero >"$T/kernels/$b"
touch -d '2 hours ago' "$T/kernels/$a"    # a: least recently used
touch "$T/kernels/unrelated.txt"          # not an entry: never touched

[ "$("$ZINC" cache path)" = "$T" ] || fail "path"
"$ZINC" cache info >"$T/info" || fail "info exit"
grep -q "entries: *2$" "$T/info" || fail "info entries: $(cat "$T/info")"
grep -q "size: *300 bytes" "$T/info" || fail "info size"
CUDA_CACHE_MAXSIZE=250 "$ZINC" cache evict | grep -q "evicted 1 entry" || fail "evict count"
[ ! -e "$T/kernels/$a" ] && [ -e "$T/kernels/$b" ] || fail "evict should remove the older entry"
"$ZINC" cache clear | grep -q "removed 1" || fail "clear count"
[ ! -e "$T/kernels/$b" ] && [ -e "$T/kernels/unrelated.txt" ] || fail "clear removes entries only"
CUDA_CACHE_DISABLE=1 "$ZINC" cache info | grep -q "disabled" || fail "info when disabled"
"$ZINC" cache bogus 2>/dev/null && fail "unknown action should fail"
[ $fails = 0 ] && echo "zinc cache: all checks passed"
[ $fails = 0 ]
