#!/bin/sh
# tools/ansi-test/run-all.sh [TINYCL] -- run every chapter of the ANSI test suite, one
# after the other, and print one RESULT line per chapter (also saved in $OUT/results.txt).
# Same environment variables as run-chapter.sh (ANSI_TEST_DIR, OUT, TIMEOUT, LISP, ...).
# CHAPTERS="cons arrays" restricts the run to some chapters.
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-$REPO/build/ansi-test}
export OUT
mkdir -p "$OUT"
: "${CHAPTERS:=symbols eval-and-compile data-and-control-flow iteration objects conditions cons arrays hash-tables packages numbers sequences structures types-and-classes strings characters pathnames files streams printer reader system-construction environment misc}"
: >"$OUT/results.txt"
for ch in $CHAPTERS; do
  "$HERE/run-chapter.sh" "$ch" "$@" | tee -a "$OUT/results.txt"
done
