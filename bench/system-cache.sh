#!/usr/bin/env bash
# bench/system-cache.sh -- loading systems from source against loading them from the cache of
# compiled files (docs/performance.md, "Loading systems").
#
#   source: tinycl -e '(setf asdf::*system-cache* nil)' -e '(asdf:load-system :X)' ... (every
#           file read and analysed);
#   cache:  tinycl -e '(asdf:load-system :X)' ... with XDG_CACHE_HOME a directory the cache was
#           filled in by one run before the timing;
# CACHE_RUNS runs each (default 9), interleaved: the medians, in ms, of the wall time of the
# process (start-up included) and of the LOAD-SYSTEM calls alone (measured inside it, with
# GET-INTERNAL-REAL-TIME) and of the loading of the systems' files within them (the time in
# ASDF::%LOAD-SOURCE-COMPONENT, which the cache replaces; the rest is finding and reading the .asd
# files and the loader's record of each load), the CPU time of the LOAD-SYSTEM calls (user and
# system, GET-INTERNAL-RUN-TIME: on a loaded machine the wall time is mostly waiting for a core),
# and their ratios.
#   CACHE_SYSTEMS  the systems (default "alexandria cl-ppcre", from /usr/share/common-lisp/source)
set -u
export LC_ALL=C
BUILD=${BUILD:-build}
T=${TINYCL:-$BUILD/tinycl}
N=${CACHE_RUNS:-9}
SYSTEMS=${CACHE_SYSTEMS:-alexandria cl-ppcre}
export XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/tinycl-cache-bench.XXXXXX")
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT

LOADS=""
for s in $SYSTEMS; do LOADS="$LOADS (asdf:load-system :$s)"; done
# the time in ASDF::%LOAD-SOURCE-COMPONENT (a component's file: compiled file or source) is summed apart
WRAP="(let ((old (fdefinition 'asdf::%load-source-component))) (defvar cl-user::*in-files* 0) (setf (fdefinition 'asdf::%load-source-component) (lambda (c) (let ((s (get-internal-real-time))) (multiple-value-prog1 (funcall old c) (incf cl-user::*in-files* (- (get-internal-real-time) s)))))))"
TIMED="(let ((s (get-internal-real-time)) (c (get-internal-run-time))) $LOADS (format t \"~&LOADTIME ~D ~D ~D~%\" (round (- (get-internal-real-time) s) (/ internal-time-units-per-second 1000)) (round cl-user::*in-files* (/ internal-time-units-per-second 1000)) (round (- (get-internal-run-time) c) (/ internal-time-units-per-second 1000))))"
# one run: "wall-ms load-ms files-ms load-cpu-ms"
run() { local a b out; a=$(date +%s%N); out=$("$T" -q "$@" -e "$WRAP" -e "$TIMED" 2>&1) || echo "run failed: $*" >&2; b=$(date +%s%N)
        echo "$(( (b - a) / 1000000 )) $(printf '%s\n' "$out" | sed -n 's/^LOADTIME //p')"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }

"$T" -q -e "$WRAP" -e "$TIMED" >/dev/null 2>&1     # fills the cache
echo "compiled files in the cache: $(find "$XDG_CACHE_HOME" -name '*.fasl' | wc -l)"
: > "$XDG_CACHE_HOME/src.txt"; : > "$XDG_CACHE_HOME/hit.txt"
for _ in $(seq "$N"); do
  run -e '(setf asdf::*system-cache* nil)' >> "$XDG_CACHE_HOME/src.txt"
  run >> "$XDG_CACHE_HOME/hit.txt"
done
col() { cut -d' ' -f"$1" "$XDG_CACHE_HOME/$2.txt" | median; }
SW=$(col 1 src); SL=$(col 2 src); SF=$(col 3 src); SC=$(col 4 src)
CW=$(col 1 hit); CL=$(col 2 hit); CF=$(col 3 hit); CC=$(col 4 hit)
echo "systems: $SYSTEMS ($N runs each, medians, ms)"
printf '%-16s %10s %20s %14s %16s\n' "" process "load-system calls" "their files" "calls' CPU time"
printf '%-16s %10s %20s %14s %16s\n' "from source" "$SW" "$SL" "$SF" "$SC"
printf '%-16s %10s %20s %14s %16s\n' "from the cache" "$CW" "$CL" "$CF" "$CC"
awk -v a="$SW" -v b="$CW" -v c="$SL" -v d="$CL" -v e="$SF" -v f="$CF" -v g="$SC" -v h="$CC" \
  'BEGIN { printf "%-16s %9.1fx %19.1fx %13.1fx %15.1fx\n", "ratio", a / b, c / d, e / f, g / h }'
