#!/usr/bin/env bash
# bench/profile.sh -- profile tinycl on one benchmark program.
#
#   bench/profile.sh PROG [TOP]        callgrind (exact instruction counts; ~50x slower)
#   PROFILER=perf bench/profile.sh PROG   perf record (sampling; includes kernel and GC time)
#
# Prints the TOP (default 25) functions by self cost; the raw profile stays in
# build/bench/profile/ for callgrind_annotate / perf report.  Instruction counts
# include tinycl's start-up (about 157 M instructions at the time of writing;
# profile `tinycl -e 1` with PROG=startup to see it alone).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TINYCL=${TINYCL:-$BUILD/tinycl}
PROG=${1:?usage: bench/profile.sh PROG [TOP]}
TOP=${2:-25}
PROFILER=${PROFILER:-callgrind}
OUT=${BENCH_OUT:-$BUILD/bench}/profile
mkdir -p "$OUT"

if [ "$PROG" = startup ]; then CMD=("$TINYCL" -e 1)
elif [ -f "$HERE/$PROG.lisp" ]; then CMD=("$TINYCL" "$HERE/$PROG.lisp")
else echo "profile: no program $PROG" >&2; exit 2; fi

case $PROFILER in
    callgrind)
        f=$OUT/$PROG.callgrind
        valgrind --tool=callgrind --callgrind-out-file="$f" "${CMD[@]}" 2>&1 | grep -E 'refs|checksum' || true
        callgrind_annotate "$f" 2>/dev/null | sed -n '/file:function/,$p' | sed "s|$ROOT/||g" | head -$((TOP + 2))
        echo "raw profile: $f (callgrind_annotate --inclusive=yes $f; --tree=caller)" ;;
    perf)
        f=$OUT/$PROG.perf.data
        perf record -o "$f" "${CMD[@]}" 2>&1 | grep -E 'checksum' || true
        perf report -i "$f" --no-children --stdio --sort dso 2>/dev/null | grep -E '^ +[0-9]' | head -8
        echo
        perf report -i "$f" --no-children --stdio --sort dso,sym 2>/dev/null | grep -E '^ +[0-9]' | head -"$TOP"
        echo "raw profile: $f (perf report -i $f)" ;;
    *) echo "profile: PROFILER must be callgrind or perf" >&2; exit 2 ;;
esac
