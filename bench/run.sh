#!/usr/bin/env bash
# bench/run.sh -- time tinycl beside SBCL, CLISP and ECL on the programs in bench/.
#
# For every program and every implementation found on PATH (tinycl always), run
# the program BENCH_RUNS times (runs of the implementations interleaved, so that
# a noisy period hurts everyone alike), check that its "checksum ..." line is the
# same as tinycl's, and print the medians of wall time, their ratios and the
# geometric means of the ratios; then the same for CPU time (user+sys), max RSS,
# and the start-up time of each implementation.
#
# Environment:
#   BENCH_RUNS=5          runs per program and implementation (medians are reported)
#   BENCH_STARTUP_RUNS=20 runs of the start-up measurement
#   BENCH_MODE=compiled   compiled: SBCL, CLISP and ECL run a file made by COMPILE-FILE
#                         (compiled once, before timing: SBCL native code, CLISP
#                         bytecode, ECL native code through the C compiler);
#                         source: each runs the .lisp file as a script (SBCL still
#                         compiles each form natively, CLISP interprets, ECL
#                         byte-compiles)
#   BENCH_IMPLS="tinycl sbcl clisp ecl"   which implementations to try
#   BENCH_PROGRAMS="tak fib ..."          which programs (names of bench/*.lisp)
#   BENCH_TIMEOUT=120     seconds before one run is killed
#   BENCH_OUT=build/bench where the raw results (results.tsv) and logs go
#   TINYCL=build/tinycl   the binary under test
#
# Never fails because an implementation is missing or a program fails; exit
# status is 1 only when a checksum mismatch was seen (0 otherwise).

set -u
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
TINYCL=${TINYCL:-$BUILD/tinycl}
RUNS=${BENCH_RUNS:-5}
STARTUP_RUNS=${BENCH_STARTUP_RUNS:-20}
MODE=${BENCH_MODE:-compiled}
TIMEOUT=${BENCH_TIMEOUT:-120}
OUT=${BENCH_OUT:-$BUILD/bench}
DEFAULT_PROGRAMS="tak fib ctak takl destru deriv strings hash special bignum dispatch"
PROGRAMS=${BENCH_PROGRAMS:-$DEFAULT_PROGRAMS}
WANT_IMPLS=${BENCH_IMPLS:-"tinycl sbcl clisp ecl"}

if [ ! -x "$TINYCL" ]; then
    echo "bench: $TINYCL not found; run make first" >&2
    exit 0
fi
case $MODE in compiled|source) ;; *) echo "bench: BENCH_MODE must be compiled or source" >&2; exit 0 ;; esac

mkdir -p "$OUT/work" "$OUT/logs"
WORK=$OUT/work
LOGS=$OUT/logs
rm -f "$LOGS"/*.log
RESULTS=$OUT/results.tsv
: > "$RESULTS"

# Which implementations are here?
IMPLS=""
for impl in $WANT_IMPLS; do
    case $impl in
        tinycl) IMPLS="$IMPLS tinycl" ;;
        sbcl|clisp|ecl)
            if command -v "$impl" > /dev/null 2>&1; then IMPLS="$IMPLS $impl"
            else echo "bench: $impl not on PATH, skipped"; fi ;;
        *) echo "bench: unknown implementation $impl, skipped" ;;
    esac
done
# tinycl always runs, and first: its checksum is the reference
IMPLS="tinycl$(echo " $IMPLS " | sed 's/ tinycl / /g; s/ *$//')"

HAVE_TIME=0
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true > /dev/null 2>&1; then HAVE_TIME=1; fi

now_ns() {  # wall clock in nanoseconds, without forking when bash can
    if [ -n "${EPOCHREALTIME:-}" ]; then
        local s=${EPOCHREALTIME%[.,]*} f=${EPOCHREALTIME#*[.,]}
        echo "$s${f}000"
    else
        date +%s%N
    fi
}

impl_version() {
    case $1 in
        tinycl) echo "tinycl $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" ;;
        sbcl)   sbcl --version 2>/dev/null | head -1 ;;
        clisp)  clisp --version 2>/dev/null | head -1 | sed 's/ (.*//' ;;
        ecl)    ecl --version 2>/dev/null | head -1 ;;
    esac
}

# compiled_file IMPL PROG: where the compiled PROG for IMPL goes.
compiled_file() {
    case $1 in
        sbcl) echo "$WORK/$2.sbcl.fasl" ;;
        clisp) echo "$WORK/$2.clisp.fas" ;;
        ecl) echo "$WORK/$2.ecl.fas" ;;
    esac
}

# compile_prog IMPL PROG: make the compiled file for IMPL (compiled mode); 0 on success.
# A compiled file newer than its source, made by the same version of IMPL, is reused.
compile_prog() {
    local impl=$1 prog=$2 src=$HERE/$2.lisp out log=$LOGS/compile-$1-$2.log
    out=$(compiled_file "$impl" "$prog")
    if [ -s "$out" ] && [ "$out" -nt "$src" ] && [ -f "$WORK/$impl.version" ] &&
       [ "$(cat "$WORK/$impl.version")" = "$(impl_version "$impl")" ]; then
        return 0
    fi
    case $impl in
        sbcl)
            rm -f "$out"
            timeout "$TIMEOUT" sbcl --non-interactive --no-sysinit --no-userinit \
                --eval "(compile-file \"$src\" :output-file \"$out\")" < /dev/null > "$log" 2>&1 ;;
        clisp)
            rm -f "$out"
            timeout "$TIMEOUT" clisp -q -norc \
                -x "(compile-file \"$src\" :output-file \"$out\")" < /dev/null > "$log" 2>&1 ;;
        ecl)
            rm -f "$out"
            timeout "$TIMEOUT" ecl -norc -eval "(compile-file \"$src\" :output-file \"$out\")" \
                -eval '(ext:quit 0)' < /dev/null > "$log" 2>&1 ;;
        *) return 0 ;;
    esac
    [ -s "$out" ]
}

# cmd_for IMPL PROG: the command line that runs PROG under IMPL.
cmd_for() {
    local impl=$1 prog=$2 src=$HERE/$2.lisp
    if [ "$MODE" = compiled ]; then
        case $impl in
            tinycl) echo "$TINYCL $src" ;;
            sbcl)   echo "sbcl --script $(compiled_file sbcl "$prog")" ;;
            clisp)  echo "clisp -q -norc $(compiled_file clisp "$prog")" ;;
            ecl)    echo "ecl -norc --shell $(compiled_file ecl "$prog")" ;;
        esac
    else
        case $impl in
            tinycl) echo "$TINYCL $src" ;;
            sbcl)   echo "sbcl --script $src" ;;
            clisp)  echo "clisp -q -norc $src" ;;
            ecl)    echo "ecl -norc --shell $src" ;;
        esac
    fi
}

# run_once CMD...: run it; sets R_WALL R_CPU (seconds) R_RSS (KB or -) R_RC R_SUM R_ERR.
run_once() {
    local t0 t1 tf=$WORK/time.txt of=$WORK/stdout.txt ef=$WORK/stderr.txt
    rm -f "$tf"
    t0=$(now_ns)
    if [ $HAVE_TIME = 1 ]; then
        timeout "$TIMEOUT" /usr/bin/time -o "$tf" -f '%U %S %M' "$@" < /dev/null > "$of" 2> "$ef"
    else
        timeout "$TIMEOUT" "$@" < /dev/null > "$of" 2> "$ef"
    fi
    R_RC=$?
    t1=$(now_ns)
    R_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    if [ -s "$tf" ]; then
        # /usr/bin/time may prefix "Command exited with non-zero status N"
        read -r u s m < <(tail -1 "$tf")
        R_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
        R_RSS=$m
    else
        R_CPU=-; R_RSS=-
    fi
    R_SUM=$(grep -a '^checksum ' "$of" | tail -1)
    R_ERR=""
    if [ $R_RC = 124 ]; then R_ERR="timed out after ${TIMEOUT}s"
    elif [ -z "$R_SUM" ]; then
        R_ERR=$( { cat "$ef"; cat "$of"; } | grep -av '^Command exited' | grep -av '^;' \
                 | sed '/^[[:space:]]*$/d' | head -3 | tr '\n' ' ' | cut -c1-160)
        [ -n "$R_ERR" ] || R_ERR="exit status $R_RC, no checksum line"
    fi
}

median() {  # median of the numbers on stdin, "-" if none
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        if (NR % 2) printf "%.3f\n", v[(NR + 1) / 2]
        else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "tinycl benchmarks: $(date '+%Y-%m-%d %H:%M'), mode=$MODE, runs=$RUNS, $(nproc 2>/dev/null || echo '?') cpus, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for impl in $IMPLS; do echo "  $impl: $(impl_version "$impl")"; done

# ---- compile (compiled mode), outside the timed runs
declare -A BROKEN=()   # "impl prog" -> reason this pair is not run
if [ "$MODE" = compiled ]; then
    for impl in $IMPLS; do
        [ "$impl" = tinycl ] && continue
        printf 'compiling for %s:' "$impl"
        for prog in $PROGRAMS; do
            [ -f "$HERE/$prog.lisp" ] || continue
            if compile_prog "$impl" "$prog"; then printf ' %s' "$prog"
            else printf ' %s(FAILED)' "$prog"; BROKEN["$impl $prog"]="compile-file failed, see $LOGS/compile-$impl-$prog.log"; fi
        done
        impl_version "$impl" > "$WORK/$impl.version"
        echo
    done
fi

# ---- timed runs
MISMATCH=0
declare -A REF=() REFBY=()   # prog -> reference checksum line, and who printed it
for prog in $PROGRAMS; do
    if [ ! -f "$HERE/$prog.lisp" ]; then echo "bench: no program $prog.lisp" >&2; continue; fi
    printf '%-8s' "$prog"
    for ((run = 1; run <= RUNS; run++)); do
        for impl in $IMPLS; do
            [ -n "${BROKEN["$impl $prog"]:-}" ] && continue
            run_once $(cmd_for "$impl" "$prog")
            if [ -n "$R_ERR" ]; then
                BROKEN["$impl $prog"]=$R_ERR
                printf ' %s:FAILED' "$impl"
                continue
            fi
            # the reference is tinycl's checksum, or the first one seen when tinycl failed
            if [ -z "${REF[$prog]:-}" ]; then REF[$prog]=$R_SUM; REFBY[$prog]=$impl; fi
            if [ "$R_SUM" != "${REF[$prog]}" ]; then
                printf '\n!!!!! CHECKSUM MISMATCH: %s %s printed "%s", %s printed "%s"\n' \
                    "$impl" "$prog" "$R_SUM" "${REFBY[$prog]}" "${REF[$prog]}"
                echo "$prog $impl $R_SUM" >> "$LOGS/mismatch.log"
                MISMATCH=1
            fi
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$prog" "$impl" "$R_WALL" "$R_CPU" "$R_RSS" "$R_SUM" >> "$RESULTS"
        done
        printf '.'
    done
    echo
done 2>&1

# ---- start-up time: the empty program
printf 'start-up:'
echo 1 > "$WORK/empty.lisp"
declare -A STARTUP=()
for impl in $IMPLS; do
    : > "$WORK/startup.txt"
    for ((i = 1; i <= STARTUP_RUNS; i++)); do
        case $impl in
            tinycl) run_once "$TINYCL" -e 1 ;;
            sbcl)   run_once sbcl --script "$WORK/empty.lisp" ;;
            clisp)  run_once clisp -q -norc "$WORK/empty.lisp" ;;
            ecl)    run_once ecl -norc --shell "$WORK/empty.lisp" ;;
        esac
        [ $R_RC = 0 ] && echo "$R_WALL" >> "$WORK/startup.txt"
    done
    STARTUP[$impl]=$(median < "$WORK/startup.txt")
    printf ' %s' "$impl"
done
echo

# ---- report
# column(F): median of field F (3 wall, 4 cpu) or max of field 5 (rss) for PROG and IMPL
stat_of() {
    local prog=$1 impl=$2 field=$3
    if [ "$field" = 5 ]; then
        awk -F'\t' -v p="$prog" -v i="$impl" '$1 == p && $2 == i && $5 != "-" {
            if ($5 > m) m = $5; n++ } END { if (n) printf "%.1f\n", m / 1024; else print "-" }' "$RESULTS"
    else
        awk -F'\t' -v p="$prog" -v i="$impl" -v f="$field" '$1 == p && $2 == i && $f != "-" { print $f }' "$RESULTS" | median
    fi
}

others=$(echo "$IMPLS" | sed 's/^tinycl *//')

print_table() {  # FIELD TITLE
    local field=$1 title=$2 prog impl t v r
    declare -A LOGSUM=() NRAT=()
    echo
    echo "$title"
    printf '%-9s' program
    for impl in $IMPLS; do printf ' %9s' "$impl"; done
    for impl in $others; do printf ' %9s' "t/$impl"; done
    echo
    for prog in $PROGRAMS; do
        [ -f "$HERE/$prog.lisp" ] || continue
        printf '%-9s' "$prog"
        for impl in $IMPLS; do
            if [ -n "${BROKEN["$impl $prog"]:-}" ]; then v=FAIL; else v=$(stat_of "$prog" "$impl" "$field"); fi
            printf ' %9s' "$v"
            eval "V_$impl=\$v"
        done
        t=$V_tinycl
        for impl in $others; do
            eval "v=\$V_$impl"
            r=$(awk -v a="$t" -v b="$v" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }')
            printf ' %9s' "$r"
            if [ "$r" != - ]; then
                LOGSUM[$impl]=$(awk -v s="${LOGSUM[$impl]:-0}" -v r="$r" 'BEGIN { printf "%.6f", s + log(r) }')
                NRAT[$impl]=$(( ${NRAT[$impl]:-0} + 1 ))
            fi
        done
        echo
    done
    printf '%-9s' geomean
    for impl in $IMPLS; do printf ' %9s' ""; done
    for impl in $others; do
        if [ "${NRAT[$impl]:-0}" -gt 0 ]; then
            printf ' %9s' "$(awk -v s="${LOGSUM[$impl]}" -v n="${NRAT[$impl]}" 'BEGIN { printf "%.2f", exp(s / n) }')"
        else printf ' %9s' -; fi
    done
    echo
}

print_table 3 "Wall time, median of $RUNS runs (seconds); t/X = tinycl time / X time (higher = tinycl slower)"
if [ $HAVE_TIME = 1 ]; then
    print_table 4 "CPU time (user+sys), median of $RUNS runs (seconds)"
    echo
    echo "Max RSS over the runs (MB)"
    printf '%-9s' program
    for impl in $IMPLS; do printf ' %9s' "$impl"; done
    echo
    for prog in $PROGRAMS; do
        [ -f "$HERE/$prog.lisp" ] || continue
        printf '%-9s' "$prog"
        for impl in $IMPLS; do
            if [ -n "${BROKEN["$impl $prog"]:-}" ]; then v=FAIL; else v=$(stat_of "$prog" "$impl" 5); fi
            printf ' %9s' "$v"
        done
        echo
    done
fi
echo
printf '%-9s' start-up
for impl in $IMPLS; do printf ' %9s' "${STARTUP[$impl]}"; done
echo "   (median wall seconds of $STARTUP_RUNS runs: tinycl -e 1; the others run an empty script)"

if [ ${#BROKEN[@]} -gt 0 ]; then
    echo
    echo "Failures (these pairs were not timed):"
    for key in "${!BROKEN[@]}"; do
        printf '  %-16s %s\n' "$key" "${BROKEN[$key]}"
    done | sort
fi
if [ $MISMATCH = 1 ]; then
    echo
    echo "!!!!! CHECKSUM MISMATCHES, see $LOGS/mismatch.log"
fi
echo
echo "raw results: $RESULTS"
exit $MISMATCH
