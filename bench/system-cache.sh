#!/usr/bin/env bash
# bench/system-cache.sh -- loading systems from source against loading them from the cache of
# compiled files (docs/performance.md, "Loading systems").
#
#   source: tinycl -e '(setf asdf::*system-cache* nil)' -e '(asdf:load-system :X)' ... (every
#           file read and analysed);
#   cache:  tinycl -e '(asdf:load-system :X)' ... with XDG_CACHE_HOME a directory the cache was
#           filled in by one run before the timing;
# CACHE_RUNS runs each (default 9), interleaved, median wall time in ms, and their ratio.
#   CACHE_SYSTEMS  the systems (default "alexandria cl-ppcre", from /usr/share/common-lisp/source)
set -u
export LC_ALL=C
BUILD=${BUILD:-build}
T=${TINYCL:-$BUILD/tinycl}
N=${CACHE_RUNS:-9}
SYSTEMS=${CACHE_SYSTEMS:-alexandria cl-ppcre}
export XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/tinycl-cache-bench.XXXXXX")
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT

LOADS=()
for s in $SYSTEMS; do LOADS+=(-e "(asdf:load-system :$s)"); done
ms() { local a b; a=$(date +%s%N); "$@" >/dev/null 2>&1 || echo "run failed: $*" >&2; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }

"$T" -q "${LOADS[@]}" >/dev/null 2>&1     # fills the cache
echo "compiled files in the cache: $(find "$XDG_CACHE_HOME" -name '*.fasl' | wc -l)"
src=(); hit=()
for _ in $(seq "$N"); do
  src+=("$(ms "$T" -q -e '(setf asdf::*system-cache* nil)' "${LOADS[@]}")")
  hit+=("$(ms "$T" -q "${LOADS[@]}")")
done
S=$(printf '%s\n' "${src[@]}" | median)
C=$(printf '%s\n' "${hit[@]}" | median)
echo "systems: $SYSTEMS ($N runs each, medians, wall time including start-up)"
echo "from source: $S ms"
echo "from cache:  $C ms"
awk -v s="$S" -v c="$C" 'BEGIN { printf "ratio: %.1fx\n", (c > 0 ? s / c : 0) }'
