#!/bin/sh
# run.sh: builds the libFuzzer harnesses (clang, -fsanitize=fuzzer,address) in $FUZZ_BUILD and,
# unless given "build", runs each for FUZZ_SECONDS (default 60) on a working corpus seeded from
# tests/fuzz/corpus/NAME, with inputs up to 1 MB. Findings (crash-*, timeout-*, oom-*) land in
# $FUZZ_BUILD/findings/NAME; the exit status is 1 when any harness found something.
#   tests/fuzz/run.sh [build] [read|eval|mcp ...]      (make fuzz FUZZ_SECONDS=600)
set -u
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
only_build=0
[ "${1:-}" = build ] && { only_build=1; shift; }
targets=${*:-read eval mcp}
SAN="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer"

# the MCP harness links every file of src/mcp (the server, its input and channel, the tool groups)
MCP_OBJ=$(for f in src/mcp/*.c; do printf '%s ' "$FUZZ_BUILD/${f%.c}.o"; done)
make -s BUILD="$FUZZ_BUILD" CC="$CLANG" OPT=-O1 SANFLAGS="$SAN" "$FUZZ_BUILD/libtinycl.a" $MCP_OBJ || exit 2
CFLAGS="-std=c11 -g -O1 -D_GNU_SOURCE -fno-strict-aliasing -Iinclude -Iruntime -Isrc/mcp -I/usr/include/cjson -fsanitize=fuzzer,address -fno-omit-frame-pointer"
LIBS="$FUZZ_BUILD/libtinycl.a -lgc -lgmp -lcjson -lzstd -lreadline -ldl -lpthread -lm"
for t in $targets; do
    extra=""; [ "$t" = mcp ] && extra=$MCP_OBJ
    $CLANG $CFLAGS -o "$FUZZ_BUILD/fuzz_$t" "tests/fuzz/fuzz_$t.c" $extra $LIBS || exit 2
done
[ $only_build = 1 ] && { echo "fuzz: built $targets in $FUZZ_BUILD"; exit 0; }

found=0
for t in $targets; do
    dict=tests/fuzz/lisp.dict; [ "$t" = mcp ] && dict=tests/fuzz/mcp.dict
    corpus="$FUZZ_BUILD/corpus/$t"; findings="$FUZZ_BUILD/findings/$t"
    mkdir -p "$corpus" "$findings" "$FUZZ_BUILD/scratch"
    cp -n tests/fuzz/corpus/$t/* "$corpus/" 2>/dev/null
    bin=$(realpath "$FUZZ_BUILD/fuzz_$t"); d=$(realpath "$dict")
    c=$(realpath "$corpus"); f=$(realpath "$findings")
    # the evaluator can create files: it runs in a scratch directory
    ( cd "$FUZZ_BUILD/scratch" &&
      ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$bin" -max_len=1048576 -timeout=20 \
          -rss_limit_mb=4096 -max_total_time="$FUZZ_SECONDS" -dict="$d" -artifact_prefix="$f/" \
          -print_final_stats=1 "$c" ) > "$FUZZ_BUILD/fuzz_$t.log" 2>&1
    status=$?
    stats=$(grep -E '^stat::number_of_executed_units' "$FUZZ_BUILD/fuzz_$t.log" | sed 's/.*: *//')
    if [ $status -ne 0 ] || [ -n "$(ls "$findings")" ]; then
        found=1; echo "fuzz $t: FINDING after ${stats:-?} runs (see $FUZZ_BUILD/fuzz_$t.log, $findings)"
    else
        echo "fuzz $t: ${FUZZ_SECONDS} s, ${stats:-?} runs, nothing found"
    fi
done
exit $found
