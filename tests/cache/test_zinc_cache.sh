#!/bin/sh
# test_zinc_cache.sh ZINC: `zinc cache` stats/info, path, prune/evict, clear
# on a scratch cache folder with entries of known sizes, ages and damage.
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

# stats (info is its alias): counts, largest, temp and other files
c=$(printf 'c%.0s' $(seq 64)).zco
d=$(printf 'd%.0s' $(seq 64)).zco
e=$(printf 'e%.0s' $(seq 64)).zco
head -c 100 /dev/zero >"$T/kernels/$a"
head -c 400 /dev/zero >"$T/kernels/$b"
head -c 50 /dev/zero >"$T/kernels/$c"
touch -d '3 days ago' "$T/kernels/$a"
touch -d '1 hour ago' "$T/kernels/$c"
head -c 10 /dev/zero >"$T/kernels/.tmp-1-2-3"
"$ZINC" cache stats >"$T/stats" || fail "stats exit"
grep -q "entries: *3$" "$T/stats" || fail "stats entries: $(cat "$T/stats")"
grep -q "size: *550 bytes" "$T/stats" || fail "stats size"
grep -q "largest: *400 bytes" "$T/stats" || fail "stats largest"
grep -q "least recent: *3 days ago" "$T/stats" || fail "stats least recent"
grep -q "temp files: *1$" "$T/stats" || fail "stats temp files"
grep -q "other files: *1$" "$T/stats" || fail "stats other files"
"$ZINC" cache info | grep -q "entries: *3$" || fail "info is an alias of stats"
# prune --older-than: only the 3-day-old entry goes; a fresh temp file stays
"$ZINC" cache prune --older-than 2d >"$T/p1" || fail "prune exit"
grep -q "aged 1," "$T/p1" || fail "prune --older-than: $(cat "$T/p1")"
[ ! -e "$T/kernels/$a" ] && [ -e "$T/kernels/$c" ] && [ -e "$T/kernels/.tmp-1-2-3" ] ||
  fail "prune --older-than removed the wrong files"
# prune --max-size: least recently used first (c, an hour old, before b)
"$ZINC" cache prune --max-size 420 | grep -q "evicted 1 " || fail "prune --max-size count"
[ ! -e "$T/kernels/$c" ] && [ -e "$T/kernels/$b" ] || fail "prune --max-size order"
# prune --verify: a valid entry stays, a damaged one (zeros, a flipped
# checksum byte) goes
python3 - "$T/kernels" "$d" "$e" <<'PY' || fail "python3 could not write entries"
import hashlib, struct, sys
folder, good, bad = sys.argv[1:4]
for name, flip in ((good, False), (bad, True)):
    key = bytes.fromhex(name[:64])
    payload = b"payload of " + name.encode()
    s = bytearray(hashlib.blake2b(payload, digest_size=32).digest())
    if flip:
        s[0] ^= 1
    hdr = b"ZNKCACHE" + struct.pack("<II", 1, 96) + key + struct.pack("<Q", len(payload)) + bytes(s) + bytes(8)
    open(folder + "/" + name, "wb").write(hdr + payload)
PY
"$ZINC" cache prune --verify >"$T/p3" || fail "prune --verify exit"
grep -q "damaged 2," "$T/p3" || fail "prune --verify (b of zeros, e flipped): $(cat "$T/p3")"
[ -e "$T/kernels/$d" ] && [ ! -e "$T/kernels/$e" ] && [ ! -e "$T/kernels/$b" ] ||
  fail "prune --verify removed the wrong files"
"$ZINC" cache prune --older-than 5x 2>/dev/null && fail "bad age should fail"
"$ZINC" cache prune --max-size -3 2>/dev/null && fail "bad size should fail"
"$ZINC" cache bogus 2>/dev/null && fail "unknown action should fail"
[ $fails = 0 ] && echo "zinc cache: all checks passed"
[ $fails = 0 ]
