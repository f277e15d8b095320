#!/bin/sh
# tools/ansi-test/run-chapter.sh CHAPTER [TINYCL] -- run one chapter of the ANSI test suite.
#
#   CHAPTER   a directory of the suite, e.g. cons, printer, types-and-classes
#   TINYCL    the tinycl binary (default: $TINYCL, else build/tinycl of this repository)
#
# Environment:
#   ANSI_TEST_DIR  checkout of https://github.com/pfdietz/ansi-test
#                  (default: ../ansi-test next to this repository)
#   OUT            directory for CHAPTER.log (default: build/ansi-test of this repository)
#   TIMEOUT        tinycl --timeout per evaluation, seconds (default 60)
#   RUNNER_BATCH   seconds of tests per evaluation (default 20); a test is killed, and
#                  counted as failed, when it runs past TIMEOUT - RUNNER_BATCH seconds or so
#   CHAPTER_TIMEOUT  wall-time limit for the whole chapter, seconds (default 3600)
#   LISP=sbcl      run the same chapter under SBCL instead (for reference numbers)
#
# Prints the chapter's "RESULT ..." line; the full log is $OUT/CHAPTER.log.
# Note: the suite writes scratch files under $ANSI_TEST_DIR/sandbox.
set -u
CH=${1:?usage: run-chapter.sh CHAPTER [TINYCL]}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ANSI_TEST_DIR=${ANSI_TEST_DIR:-$REPO/../ansi-test}
[ -f "$ANSI_TEST_DIR/rt.lsp" ] || { echo "run-chapter.sh: no ANSI test suite at $ANSI_TEST_DIR (set ANSI_TEST_DIR)" >&2; exit 2; }
ANSI_TEST_DIR=$(cd "$ANSI_TEST_DIR" && pwd)
export ANSI_TEST_DIR
[ -f "$ANSI_TEST_DIR/$CH/load.lsp" ] || { echo "run-chapter.sh: no chapter $CH in $ANSI_TEST_DIR" >&2; exit 2; }
T=${2:-${TINYCL:-$REPO/build/tinycl}}
OUT=${OUT:-$REPO/build/ansi-test}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export OUT
LOG=$OUT/$CH.log
rm -rf "$ANSI_TEST_DIR/sandbox/scratch"
cd "$ANSI_TEST_DIR" || exit 2

if [ "${LISP:-tinycl}" = sbcl ]; then
  timeout "${CHAPTER_TIMEOUT:-3600}" sbcl --dynamic-space-size 4096 --noinform --no-userinit --no-sysinit \
    --eval "(load \"$HERE/setup.lisp\")" --eval "(load \"$HERE/run.lisp\")" \
    --eval "(load-chapter \"$CH\")" \
    --eval '(loop until (eq (runner-continue) :done))' \
    --eval "(runner-report \"$CH\")" --eval '(sb-ext:exit)' </dev/null >"$LOG" 2>&1
else
  [ -x "$T" ] || { echo "run-chapter.sh: no tinycl binary at $T (run make)" >&2; exit 2; }
  # Many (runner-continue) evaluations: each runs tests for RUNNER_BATCH seconds; once all
  # tests have run the rest return at once.
  set --
  i=0; while [ $i -lt ${RUNNER_CALLS:-600} ]; do set -- "$@" -e '(runner-continue)'; i=$((i+1)); done
  timeout "${CHAPTER_TIMEOUT:-3600}" "$T" -q --timeout "${TIMEOUT:-60}" --max-heap 2G \
    -e "(load \"$HERE/setup.lisp\")" -e "(load \"$HERE/run.lisp\")" \
    -e "(load-chapter \"$CH\")" "$@" -e "(runner-report \"$CH\")" >"$LOG" 2>&1
fi
echo "exit $?" >>"$LOG"
grep -a -E "^RESULT" "$LOG" || { echo "$CH: NO RESULT"; tail -5 "$LOG"; exit 1; }
