#!/bin/sh
# tools/ansi-test/make-manifest.sh -- regenerate manifest/CHAPTER.txt, the names of the tests
# each chapter defines under SBCL, from one SBCL run of the runner.  run.lisp counts a test of
# the manifest that never ran under tinycl as failed, so a test file that stops loading halfway
# cannot make its tests vanish from the totals.  Run it once per suite commit and commit the
# result; it needs sbcl and ANSI_TEST_DIR, as run-chapter.sh does.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP LISP=sbcl "$HERE/run-all.sh"
mkdir -p "$HERE/manifest"
for f in "$TMP"/*.ran; do
  ch=$(basename "$f" .ran)
  LC_ALL=C sort -u "$f" >"$HERE/manifest/$ch.txt"
done
