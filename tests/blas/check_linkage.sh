#!/bin/sh
# check_linkage.sh BINARY NEEDED SYMBOL@VERSION LIBRARY
# The nvcc-built BINARY needs NEEDED (the soname NVIDIA's library has) and
# references SYMBOL@VERSION; Zinc's LIBRARY defines SYMBOL@@VERSION, so the
# binary binds to Zinc's library at run time.
set -eu
bin=$1 needed=$2 sym=$3 lib=$4
fail() { echo "FAIL: $*"; exit 1; }
readelf -d "$bin" | grep -q "NEEDED.*\[$needed\]" || fail "$bin does not need $needed"
if [ "${sym#*@}" != "$sym" ]; then
  readelf -W --dyn-syms "$bin" | grep -q " $sym" || fail "$bin does not reference $sym"
  name=${sym%@*} ver=${sym#*@}
  readelf -W --dyn-syms "$lib" | grep -q " $name@@$ver" || fail "$lib does not define $name@@$ver"
else
  readelf -W --dyn-syms "$lib" | grep -q " $sym\$" || fail "$lib does not define $sym"
fi
readelf -d "$lib" | grep -q "SONAME.*\[$needed\]" || fail "$lib has no SONAME $needed"
echo "PASS: $bin -> $needed ($sym) provided by $lib"
