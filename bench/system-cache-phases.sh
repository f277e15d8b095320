#!/usr/bin/env bash
# bench/system-cache-phases.sh -- the CPU time of loading alexandria and cl-ppcre from source and
# from the cache of compiled files, and of the loader's main steps within it (docs/performance.md,
# "Loading systems"): CACHE_RUNS rounds (default 11), each a process from the cache then one from
# source (asdf::*system-cache* NIL), each loading bench/system-cache-phases.lisp; prints the
# medians, in ms, of the two calls' CPU time and of each step, and the ratio of the totals.
# XDG_CACHE_HOME is a fresh directory filled by one run first (the file of image pages included).
set -u
export LC_ALL=C
BUILD=${BUILD:-build}
T=${TINYCL:-$BUILD/tinycl}
N=${CACHE_RUNS:-11}
HERE=$(cd "$(dirname "$0")" && pwd)
export XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/tinycl-phases.XXXXXX")
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
run() { "$T" -q "$@" -e "(load \"$HERE/system-cache-phases.lisp\")" 2>&1 | grep -E '^[A-Z%-]+ [0-9.]+$'; }
run >/dev/null                                        # fills the cache
for _ in $(seq "$N"); do
  run >> "$XDG_CACHE_HOME/cache.txt"
  run -e '(setf asdf::*system-cache* nil)' >> "$XDG_CACHE_HOME/source.txt"
done
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { awk -v k="$1" '$1 == k {print $2}' "$XDG_CACHE_HOME/$2.txt" | median; }
echo "alexandria + cl-ppcre, $N rounds, medians of CPU ms"
printf '%-28s %12s %12s\n' step "from cache" "from source"
for k in TOTAL %FIND-ROOT %INDEX-FIND LOAD-ASD %LOAD-SOURCE-COMPONENT %FASL-READ %BEGIN-CAPTURE %COMMIT-CAPTURE %PLAN; do
  printf '%-28s %12s %12s\n' "$k" "$(col "$k" cache)" "$(col "$k" source)"
done
awk -v c="$(col TOTAL cache)" -v s="$(col TOTAL source)" 'BEGIN { if (c > 0) printf "ratio (source / cache)       %.2fx\n", s / c }'
