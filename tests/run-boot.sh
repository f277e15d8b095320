#!/bin/sh
# run-boot.sh: the boot image against the boot from the stdlib sources (runtime/bootimage.c):
# build/tinycl must start from its image; both boots must hold the same packages, symbols and
# definitions; and the Lisp test suite must pass booted from the sources too (run-lisp.sh runs it
# from the image). Ends with "N passed, N failed".
BUILD=${BUILD:-build}
T="$BUILD/tinycl"
passed=0; failed=0
pass() { passed=$((passed + 1)); }
fail() { echo "boot: FAIL: $1"; failed=$((failed + 1)); }

# the executable carries an image and loads it (TINYCL_BOOT=image: a refused image is an error)
if out=$(TINYCL_BOOT=image "$T" -e '(+ 1 2)' 2>&1) && [ "$out" = 3 ]; then pass; else fail "no usable boot image: $out"; fi
if out=$("$T" --boot-from-source -e '(+ 1 2)' 2>&1) && [ "$out" = 3 ]; then pass; else fail "--boot-from-source: $out"; fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
TINYCL_BOOT=image "$T" -e '(load "tests/boot/describe.lisp")' >"$dir/image.txt" 2>&1
TINYCL_BOOT=source "$T" -e '(load "tests/boot/describe.lisp")' >"$dir/source.txt" 2>&1
lines=$(wc -l <"$dir/image.txt")
if [ "$lines" -gt 3000 ] && cmp -s "$dir/image.txt" "$dir/source.txt"; then
    pass
else
    fail "the two boots differ ($lines lines described):"; diff "$dir/source.txt" "$dir/image.txt" | head -20
fi

# What changes.lisp makes is gone after a reset, after a return to a checkpoint taken before it,
# after a reset of a session restored from a checkpoint or from a session file.
after='(load "tests/boot/after-reset.lisp")'
changes='(load "tests/boot/changes.lisp")'
resets() { grep -c '^reset: ok$'; }
n=$(printf '%s\n' "$changes" ':reset' "$after" ':checkpoint c0' "$changes" ':restore c0' "$after" \
      "$changes" ':checkpoint c1' ':reset' "$after" ':restore c1' ':reset' "$after" | "$T" -q 2>&1 | resets)
if [ "$n" = 4 ]; then pass; else fail "reset and checkpoints: $n of 4 checks after a reset found nothing left"; fi
echo "$changes" | "$T" -q --session-file "$dir/session" >/dev/null 2>&1
n=$(printf '%s\n' ':reset' "$after" | "$T" -q --session-file "$dir/session" 2>&1 | resets)
if [ "$n" = 1 ]; then pass; else fail "a reset of a session restored from its file left some of its changes"; fi

# the Lisp suite booted from the sources
out=$(TINYCL_BOOT=source BUILD="$BUILD" tests/run-lisp.sh 2>&1)
last=$(printf '%s\n' "$out" | tail -1)
lf=$(printf '%s' "$last" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p')
if [ "$lf" = 0 ]; then pass; else fail "Lisp suite from source: $last"; printf '%s\n' "$out" | grep -v passed | head -20; fi

echo "boot: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
