#!/bin/sh
# run-lisp.sh: run each tests/lisp/*.lisp file (except the framework) in a fresh tinycl.
# Each file's last output line is "LABEL: N passed, N failed"; ends with the total.
BUILD=${BUILD:-build}
T="$BUILD/tinycl"
passed=0; failed=0
# the system loader's cache of compiled files goes to a directory of this run, removed at the end
XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/tinycl-test-cache.XXXXXX")
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
for f in tests/lisp/*.lisp; do
    [ "$(basename "$f")" = framework.lisp ] && continue
    name=$(basename "$f" .lisp)
    out=$(timeout 600 "$T" --timeout 300 -e '(load "tests/lisp/framework.lisp")' -e "(load \"$f\")" \
          -e "(run-tests \"$name\")" 2>&1)
    line=$(printf '%s\n' "$out" | grep -E "^$name: [0-9]+ passed, [0-9]+ failed" | tail -1)
    if [ -z "$line" ]; then
        echo "lisp $name: DID NOT FINISH"; printf '%s\n' "$out" | tail -15
        failed=$((failed + 1)); continue
    fi
    printf '%s\n' "$out" | grep -v -E "^$name: |^[0-9]+$" | grep -v '^$' | head -60
    p=$(printf '%s' "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    fl=$(printf '%s' "$line" | sed -n 's/.* \([0-9]*\) failed/\1/p')
    echo "lisp $line"
    passed=$((passed + p)); failed=$((failed + fl))
done
echo "$passed passed, $failed failed"
