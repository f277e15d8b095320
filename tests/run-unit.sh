#!/bin/sh
# run-unit.sh: build and run each Check unit test (tests/unit/test_*.c is one executable each).
# Prints per-file results and ends with "N passed, N failed" (counting test cases).
BUILD=${BUILD:-build}
CC=${CC:-gcc}
mkdir -p "$BUILD/tests"
CFLAGS="-std=c11 -Wall -Wextra -O1 -g -D_GNU_SOURCE -fno-strict-aliasing -Iinclude -Iruntime -Itests/unit $SANFLAGS"
LIBS="$BUILD/libtinycl.a -lgc -lgmp -lcjson -lzstd -lreadline -lpthread -lm $(pkg-config --libs check)"
passed=0; failed=0
for src in tests/unit/test_*.c; do
    name=$(basename "$src" .c)
    bin="$BUILD/tests/$name"
    if ! $CC $CFLAGS -o "$bin" "$src" $LIBS 2>"$bin.log"; then
        echo "unit $name: BUILD FAILED"; cat "$bin.log"; failed=$((failed + 1)); continue
    fi
    out=$(timeout 600 "$bin" 2>&1)
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -1)
    checks=$(printf '%s' "$line" | sed -n 's/.*Checks: \([0-9]*\).*/\1/p')
    fails=$(printf '%s' "$line" | sed -n 's/.*Failures: \([0-9]*\).*/\1/p')
    errs=$(printf '%s' "$line" | sed -n 's/.*Errors: \([0-9]*\).*/\1/p')
    if [ -z "$checks" ]; then
        echo "unit $name: CRASHED"; printf '%s\n' "$out" | tail -20; failed=$((failed + 1)); continue
    fi
    bad=$((fails + errs))
    printf '%s\n' "$out" | grep -E ':[EF]:' | head -20
    echo "unit $name: $((checks - bad)) passed, $bad failed"
    passed=$((passed + checks - bad)); failed=$((failed + bad))
done
echo "$passed passed, $failed failed"
