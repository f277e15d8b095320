#!/bin/sh
# run-property.sh: build and run the property benches: random session histories against a model
# (prop_session), random functions of the evaluator's fast paths against a reference that takes
# none (prop_selfloop) and random programs of Lisp threads (prop_threads). PROPERTY_SEQUENCES
# (default 1000), PROPERTY_SELFLOOP_FUNCTIONS (default 1000, about 7 s), PROPERTY_THREAD_PROGRAMS
# (default 50, about 15 s on a loaded 2-core machine; 0 skips it) and PROPERTY_SEED (default: the
# time, printed) choose the run; ends with "N passed, N failed" (the benches summed). prop_threads
# has a watchdog of its own (a program running past PROPERTY_PROGRAM_SECONDS, default 90, ends the
# run as a failure with the seed and the program to replay); `timeout` stops any bench that still
# has not finished, as a failure.
BUILD=${BUILD:-build}
CC=${CC:-gcc}
mkdir -p "$BUILD/tests"
passed=0; failed=0
for bench in prop_session prop_selfloop prop_threads; do
    bin="$BUILD/tests/$bench"
    if ! $CC -std=c11 -Wall -Wextra -O1 -g -D_GNU_SOURCE $SANFLAGS -Iinclude -Iruntime -o "$bin" tests/property/$bench.c \
            "$BUILD/libtinycl.a" -lgc -lgmp -lcjson -lzstd -lreadline -lpthread -lm 2>"$bin.log"; then
        cat "$bin.log"; failed=$((failed + 1)); continue
    fi
    case $bench in
        prop_session) n=${PROPERTY_SEQUENCES:-1000} ;;
        prop_selfloop) n=${PROPERTY_SELFLOOP_FUNCTIONS:-1000} ;;
        *) n=${PROPERTY_THREAD_PROGRAMS:-50}; [ "$n" -gt 0 ] || continue ;;
    esac
    out=$(PROPERTY_PROGRAM_SECONDS=${PROPERTY_PROGRAM_SECONDS:-90} timeout 1200 "$bin" "$n" ${PROPERTY_SEED:+"$PROPERTY_SEED"})
    printf '%s\n' "$out" | sed '$d'
    line=$(printf '%s\n' "$out" | tail -1)
    p=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
    f=$(printf '%s' "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
    [ -n "$p" ] || { echo "property $bench: DID NOT FINISH (it crashed, or ran past 1200 s; prop_threads prints its seed first)"; failed=$((failed + 1)); continue; }
    passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed"
