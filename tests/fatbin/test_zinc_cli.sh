#!/bin/sh
# test_zinc_cli.sh ZINC VERSION FAKELIB: the `zinc` command's dispatch, run
# and info (FAKELIB holds a libcuda.so.1 with known answers).
zinc=$1 version=$2 fakelib=$3
fail=0
check() { # check WHAT GOT WANT
    if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; fail=1; fi
}
unset ZINC_LIB_DIR

check "--version" "$("$zinc" --version)" "zinc $version"
"$zinc" help | grep -q "zinc run" || { echo "FAIL help lists run"; fail=1; }
"$zinc" help | grep -q "zinc info" || { echo "FAIL help lists info"; fail=1; }
"$zinc" bogus 2>/dev/null; check "unknown command status" $? 2
"$zinc" run 2>/dev/null; check "run without app" $? 2

# The app's own exit status, and 127 when it cannot be run.
"$zinc" run -- sh -c 'exit 42' 2>/dev/null; check "exit status" $? 42
"$zinc" run sh -c 'exit 0' 2>/dev/null; check "exit 0" $? 0
"$zinc" run /nonexistent/app 2>/dev/null; check "missing app" $? 127

# Arguments pass through untouched, options included.
check "argv" "$("$zinc" run printf '%s|' a -b --c '' 'd e' 2>/dev/null)" "a|-b|--c||d e|"

# LD_LIBRARY_PATH gets the lib folder first; ZINC_LIB_DIR overrides it.
mkdir -p "${TMPDIR:-/tmp}/zinc-cli-test.$$" && libdir=$(cd "${TMPDIR:-/tmp}/zinc-cli-test.$$" && pwd -P)
check "override" "$(ZINC_LIB_DIR=$libdir LD_LIBRARY_PATH=/old "$zinc" run sh -c 'echo "$LD_LIBRARY_PATH"' 2>/dev/null)" "$libdir:/old"
check "override, empty" "$(ZINC_LIB_DIR=$libdir LD_LIBRARY_PATH= "$zinc" run sh -c 'echo "$LD_LIBRARY_PATH"' 2>/dev/null)" "$libdir"
ZINC_LIB_DIR=$libdir "$zinc" run true 2>&1 | grep -q "no libcuda.so.1" || { echo "FAIL missing-lib warning"; fail=1; }
touch "$libdir/libcuda.so.1"
check "no warning when found" "$(ZINC_LIB_DIR=$libdir "$zinc" run true 2>&1)" ""
rm -rf "$libdir"
default=$(dirname "$zinc")/../lib
if [ -d "$default" ]; then default=$(cd "$default" && pwd -P); fi
got=$(LD_LIBRARY_PATH= "$zinc" run sh -c 'echo "$LD_LIBRARY_PATH"' 2>/dev/null)
case "$got" in "$default"|*/bin/../lib) ;; *) echo "FAIL default lib dir: got '$got', want '$default'"; fail=1;; esac

# info: the CPU and the usable core count.
info=$("$zinc" info)
check "info status" $? 0
echo "$info" | grep -q "cpu:" || { echo "FAIL info cpu"; fail=1; }
cores=$(echo "$info" | sed -n 's/^ *cores: *\([0-9]*\).*/\1/p')
check "info cores" "$cores" "$(nproc)"
echo "$info" | grep -q "libcuda.so.1:" || { echo "FAIL info libcuda line"; fail=1; }

# info through a driver: what the fake libcuda.so.1 answers.
info=$(ZINC_LIB_DIR=$fakelib "$zinc" info)
for want in "(found)" "driver: *CUDA 13.0, 1 device" "device 0: Fake Zinc Device" \
            "memory: *3.0 GiB" "compute capability major: *8" "compute capability minor: *6" \
            "multiprocessors: *7" "warp size: *32"; do
    echo "$info" | grep -q "$want" || { echo "FAIL info with fake driver lacks '$want'"; fail=1; }
done
echo "$info" | grep -q "max threads per block" && { echo "FAIL info printed a failed attribute"; fail=1; }

[ $fail = 0 ] && echo "zinc cli: all passed"
exit $fail
