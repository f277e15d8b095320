#!/bin/sh
# run-property.sh: build and run the property bench (random session histories against a model).
# PROPERTY_SEQUENCES (default 1000) and PROPERTY_SEED choose the run; ends with "N passed, N failed".
BUILD=${BUILD:-build}
CC=${CC:-gcc}
mkdir -p "$BUILD/tests"
bin="$BUILD/tests/prop_session"
if ! $CC -std=c11 -Wall -Wextra -O1 -g -D_GNU_SOURCE $SANFLAGS -Iinclude -Iruntime -o "$bin" tests/property/prop_session.c \
        "$BUILD/libtinycl.a" -lgc -lgmp -lcjson -lzstd -lreadline -lpthread -lm 2>"$bin.log"; then
    cat "$bin.log"; echo "0 passed, 1 failed"; exit 1
fi
timeout 1200 "$bin" "${PROPERTY_SEQUENCES:-1000}" ${PROPERTY_SEED:+"$PROPERTY_SEED"}
