#!/bin/sh
# test_ld_audit.sh ZINC AUDITLIB BIN: libzinc_ld.so and `zinc run` against
# fake drivers. BIN holds nvidia/ (libcuda.so.1 answering 1111,
# libcublas.so.12 answering 3333), zinc/ (libcuda.so.1: 2222,
# libcublas.so.13: 4444; used as ZINC_LIB_DIR) and the apps:
# ld_app_rpath / ld_app_runpath (linked to nvidia/libcuda.so.1 through
# DT_RPATH / DT_RUNPATH) and ld_app_dlopen (dlopens absolute paths).
zinc=$1 audit=$2 bin=$3
nv=$bin/nvidia zn=$bin/zinc
fail=0
check() { # check WHAT GOT WANT
    if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; fail=1; fi
}
field() { # field NAME OUTPUT: the value of NAME=... in an app's output line
    echo "$2" | tr ' ' '\n' | sed -n "s|^$1=||p"
}
unset LD_AUDIT LD_PRELOAD ZINC_NO_AUDIT ZINC_LOG ZINC_LIB_DIR
export ZINC_LIB_DIR=$zn
# The system's libm, as the loader finds it without any help.
libm=$(LD_LIBRARY_PATH= "$bin/ld_app_runpath" | tr ' ' '\n' | sed -n 's|^libm=||p')
case "$libm" in */libm.so.6) ;; *) echo "FAIL cannot find the system libm: '$libm'"; fail=1;; esac

# (3) Without the audit library the test can fail: RPATH beats
# LD_LIBRARY_PATH, absolute paths bypass both.
out=$(ZINC_NO_AUDIT=1 "$zinc" run "$bin/ld_app_rpath")
check "rpath, no audit" "$(field cuda "$out")" 1111
out=$(LD_LIBRARY_PATH=$zn "$bin/ld_app_rpath")
check "rpath, LD_LIBRARY_PATH only" "$(field cuda "$out")" 1111
out=$(ZINC_NO_AUDIT=1 "$zinc" run "$bin/ld_app_dlopen" "$nv/libcuda.so.1")
check "dlopen, no audit" "$(field "$nv/libcuda.so.1" "$out")" 1111
check "ZINC_NO_AUDIT leaves LD_AUDIT" "$(ZINC_NO_AUDIT=1 "$zinc" run sh -c 'echo "$LD_AUDIT"')" ""

# (1) Under zinc run the linked app gets Zinc's driver, RPATH or RUNPATH.
out=$("$zinc" run "$bin/ld_app_rpath")
check "rpath under zinc run" "$(field cuda "$out")" 2222
out=$("$zinc" run "$bin/ld_app_runpath")
check "runpath under zinc run" "$(field cuda "$out")" 2222

# (2) dlopen of NVIDIA's absolute path gets Zinc's; another version of a
# library Zinc ships (libcublas.so.12 -> .13) too.
out=$("$zinc" run "$bin/ld_app_dlopen" "$nv/libcuda.so.1" "$nv/libcublas.so.12" libcublas.so.12 libcuda.so)
check "dlopen abs libcuda.so.1" "$(field "$nv/libcuda.so.1" "$out")" 2222
check "dlopen abs libcublas.so.12" "$(field "$nv/libcublas.so.12" "$out")" 4444
check "dlopen libcublas.so.12 by name" "$(field libcublas.so.12 "$out")" 4444
check "dlopen libcuda.so (unversioned)" "$(field libcuda.so "$out")" 2222

# Zinc's own libraries asking for an absolute path are exempt: one that
# dlopens NVIDIA's real driver (a forwarding layer) gets it ...
out=$("$zinc" run "$bin/ld_app_dlopen" --forward "$zn/libcuda.so.1" "$nv/libcuda.so.1")
check "forward from Zinc's lib dir" "$(field forward "$out")" 1111
# ... but not for bare names: those still get Zinc's (an app's DT_RPATH
# would otherwise apply to its libraries' searches too).
out=$("$zinc" run "$bin/ld_app_dlopen" --forward "$zn/libcuda.so.1" libcublas.so.12)
check "bare name from Zinc's lib dir" "$(field forward "$out")" 4444

# (4) Unrelated libraries are untouched, and the log names only Zinc's.
out=$("$zinc" run "$bin/ld_app_rpath")
check "libm untouched" "$(field libm "$out")" "$libm"
check "libm works" "$(field cos0 "$out")" 1
log=$(ZINC_LOG=2 "$zinc" run "$bin/ld_app_rpath" 2>&1 >/dev/null)
echo "$log" | grep -q "^zinc-ld: libcuda.so.1 -> $zn/libcuda.so.1\$" ||
    { echo "FAIL log lacks the libcuda.so.1 redirect: $log"; fail=1; }
echo "$log" | grep "libm\|libc\.so" && { echo "FAIL log names a system library"; fail=1; }
check "silent at ZINC_LOG=0" "$("$zinc" run "$bin/ld_app_rpath" 2>&1 >/dev/null)" ""

# LD_AUDIT: appended after an existing one, once; the library's own folder
# is the lib dir when ZINC_LIB_DIR is unset.
check "LD_AUDIT set" "$("$zinc" run sh -c 'echo "$LD_AUDIT"')" "$audit"
check "LD_AUDIT appended" "$(LD_AUDIT=$audit:/x/a.so "$zinc" run sh -c 'echo "$LD_AUDIT"' 2>/dev/null)" \
    "$audit:/x/a.so"
check "LD_AUDIT appended, not first" "$(LD_AUDIT=/x/a.so "$zinc" run sh -c 'echo "$LD_AUDIT"' 2>/dev/null)" \
    "/x/a.so:$audit"
own=$(mktemp -d) && cp "$audit" "$own/libzinc_ld.so" && cp "$zn/libcuda.so.1" "$own/"
out=$(env -u ZINC_LIB_DIR LD_AUDIT="$own/libzinc_ld.so" "$bin/ld_app_rpath")
check "lib dir from the library's location" "$(field cuda "$out")" 2222
rm -rf "$own"
out=$(ZINC_LIB_DIR=/nonexistent LD_AUDIT=$audit "$bin/ld_app_rpath" 2>&1)
check "no lib dir: nothing redirected" "$(field cuda "$out")" 1111

[ $fail = 0 ] && echo "ld audit: all passed"
exit $fail
