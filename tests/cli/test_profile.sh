#!/bin/sh
# test_profile.sh ZINC PROG: ZINC_PROFILE=1 prints at exit one row per kernel
# with its launch count (PROG launches add_one 5 times, scale_by twice);
# without ZINC_PROFILE nothing is printed.
zinc=$1 prog=$2
fail=0
export CUDA_CACHE_DISABLE=1
err=$(ZINC_PROFILE=1 "$zinc" run "$prog" 2>&1 >/dev/null) || { echo "FAIL run: $err"; fail=1; }
echo "$err" | grep -q "^==zinc== .*Launches" || { echo "FAIL no profile header in: $err"; fail=1; }
# columns after the ==zinc== tag: Time(%) Total(ms) Launches Mean(us) Compile(ms) Kernel
row() { echo "$err" | awk -v k="$1" '$1 == "==zinc==" && $7 ~ k { print $4, ($6 > 0) }'; }
[ "$(row add_one)" = "5 1" ] || { echo "FAIL add_one row: '$(row add_one)', want 5 launches, compile > 0"; fail=1; }
[ "$(row scale_by)" = "2 1" ] || { echo "FAIL scale_by row: '$(row scale_by)', want 2 launches"; fail=1; }
# the percentages add up to 100
sum=$(echo "$err" | awk '$1 == "==zinc==" && $2 ~ /^[0-9.]+$/ { s += $2 } END { printf "%.0f", s }')
[ "$sum" = 100 ] || { echo "FAIL Time(%) sums to $sum"; fail=1; }

quiet=$("$zinc" run "$prog" 2>&1 >/dev/null)
echo "$quiet" | grep -q "==zinc==" && { echo "FAIL profile printed without ZINC_PROFILE"; fail=1; }

[ $fail = 0 ] && echo "ZINC_PROFILE: all passed"
exit $fail
