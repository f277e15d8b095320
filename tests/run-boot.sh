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

# a start from the image does not collect (issue 14): it allocates under 100 KB of the heap
if out=$("$T" -e '(list (sys::%gc-count) (< (sys::%bytes-allocated) 1000000))' 2>&1) && [ "$out" = "(0 T)" ]; then pass; else fail "a start collected: $out"; fi

# tinycl evaluates on its main thread, its stack limit raised to 64 MB (tcl_run_with_big_stack),
# and the ticker thread (runtime/ticker.c) is started only when something needs it: not by a
# start with no time limit that has not collected; by the first evaluation with one, and by the
# first safe point after a collection (the heap cap and finalizers matter from then on). Where
# the hard limit is too low, or the soft one infinite, a 64 MB thread evaluates instead.
tasks='(length (directory "/proc/self/task/*/"))'
# a depth an 8 MB stack cannot take: 200,000 calls; under AddressSanitizer, whose frames are
# several times larger, 60,000 (about 40 MB there)
depth=200000
case "${SANFLAGS:-}" in *address*) depth=60000 ;; esac
deep="(labels ((f (n) (if (= n 0) 0 (1+ (f (1- n)))))) (f $depth))"
if out=$("$T" -e "$tasks" -e "$deep" 2>&1) && [ "$out" = "1
$depth" ]; then pass; else fail "threads of tinycl -e (main only), and a deep recursion: $out"; fi
if out=$("$T" --timeout 30 -e "$tasks" 2>&1) && [ "$out" = 2 ]; then pass; else fail "threads with a time limit (and the ticker): $out"; fi
if out=$("$T" -e "(progn (gc) (dotimes (i 3) (list i)) $tasks)" 2>&1) && [ "$out" = 2 ]; then pass; else fail "threads after a collection: $out"; fi
# a Lisp thread starts the ticker too: the lock changes hands at its rounds, so a thread spinning
# without a time limit must still let the other run (it never did before the first collection)
spin='(let* ((flag (list nil)) (seen (list nil)) (th (tinycl-threads:make-thread (lambda () (setf (car seen) t) (loop until (car flag)) :done)))) (let ((n 0)) (loop until (or (car seen) (> (incf n) 50000000)))) (setf (car flag) t) (list (car seen) (tinycl-threads:join-thread th)))'
if out=$(timeout 60 "$T" -e "$spin" 2>&1) && [ "$out" = "(T :DONE)" ]; then pass; else fail "a spinning thread let the other run: $out"; fi
if out=$(ulimit -Ss 8192 && ulimit -Hs 16384 && "$T" -e "$tasks" -e "$deep" 2>&1) && [ "$out" = "2
$depth" ]; then pass; else fail "with a hard stack limit of 16 MB: $out"; fi
if out=$(ulimit -s unlimited 2>/dev/null && "$T" -e "$tasks" -e "$deep" 2>&1) && [ "$out" = "2
$depth" ]; then pass; else fail "with no stack limit: $out"; fi
if out=$(timeout 60 "$T" --timeout 1 -e '(handler-case (loop) (error (e) (type-of e)))' 2>&1); case "$out" in *"time limit"*|*TIMEOUT*|*imit*) true ;; *) false ;; esac; then pass; else fail "a time limit stops (loop): $out"; fi

# what a start no longer does (docs/performance.md, fifth pass): run libgcc's CPUID probe (a
# constructor target_clones would link), read /proc/self/maps (pthread_getattr_np, for the main
# thread's stack), or take a write fault on the image (protected at the first collection only)
if command -v nm >/dev/null 2>&1; then
    if nm "$T" 2>/dev/null | grep -q '__cpu_indicator_init'; then fail "libgcc's processor probe is linked"; else pass; fi
fi
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
    trace=$(strace -f -e trace=openat,rt_sigreturn,mprotect "$T" -e nil 2>&1 >/dev/null)
    if printf '%s\n' "$trace" | grep -q '/proc/self/maps'; then fail "a start reads /proc/self/maps"; else pass; fi
    # the cold pages a start inflates fault (3 or so); the tracker's first writes (15) no more
    n=$(printf '%s\n' "$trace" | grep -c 'rt_sigreturn')
    if [ "$n" -le 6 ]; then pass; else fail "a start took $n faults"; fi
fi

# the collector, GMP and readline are linked from their archives where the system has them
# (Makefile, EXE_LDLIBS): a start loads none of their shared libraries
loaded=$(LD_DEBUG=libs "$T" -e nil 2>&1 >/dev/null)
for lib in gc gmp readline zstd; do
    case "$(${CC:-cc} -print-file-name=lib$lib.a)" in
        /*) if printf '%s' "$loaded" | grep -q "lib$lib\.so"; then fail "tinycl -e nil loads lib$lib.so"; else pass; fi ;;
    esac
done

# a plain start inflates no cold page of the image (bootlayout.c puts all it reads in the hot
# part: NIL's name, the restart class); TINYCL_IMAGE_COLD_TRACE=1 names each page inflated
if out=$(TINYCL_IMAGE_COLD_TRACE=1 "$T" -e nil 2>&1) && [ "$out" = NIL ]; then pass; else fail "tinycl -e nil touched cold pages: $out"; fi
# nor does a system load's capture and commit of the snapshot, which compare every symbol with its
# record (bootlayout.c puts the records in the hot part: they were about 100 cold pages)
if out=$(TINYCL_IMAGE_COLD_TRACE=1 "$T" -e '(progn (sys::%snapshot-commit (sys::%snapshot-capture)) nil)' 2>&1) && [ "$out" = NIL ]; then pass; else fail "a snapshot capture touched cold pages: $(printf '%s' "$out" | head -3)"; fi

# every cold page inflated at load (TINYCL_IMAGE_EAGER=1, as under Valgrind or when the fault
# cannot be taken): the write tracker still sees each first write to a page (a start once hung
# at its first write, the analysis of a stdlib function, the cold pages claiming the fault)
if out=$(TINYCL_IMAGE_EAGER=1 timeout 60 "$T" -e '(let ((n 0)) (dotimes (i 3 n) (incf n (length (list i (make-list 2))))))' 2>&1) && [ "$out" = 6 ]; then pass; else fail "TINYCL_IMAGE_EAGER=1: $out"; fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A start checks the image's header (format, this executable's build id, sizes), not its checksum
# (runtime/bootimage.c); TINYCL_VERIFY_IMAGE=1 checks that too, as the build does once. A copy of
# the executable with a byte of the image changed: refused with TINYCL_VERIFY_IMAGE=1; with a byte
# of the build id in the header changed, refused at every start.
flip() { # $1: file, $2: offset from the image's start: that byte's bit 4 flipped
    size=$(stat -c %s "$1")
    set -- "$1" "$2" $(od -An -t u8 -j $((size - 16)) -N 16 "$1")
    at=$(($3 + $2)); [ "$2" -lt 0 ] && at=$(($3 + $4 / 2))
    b=$(od -An -t u1 -j "$at" -N 1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 16)))" | dd of="$1" bs=1 seek="$at" conv=notrunc 2>/dev/null
}
if out=$(TINYCL_BOOT=image TINYCL_VERIFY_IMAGE=1 "$T" -e '(+ 1 2)' 2>&1) && [ "$out" = 3 ]; then pass; else fail "TINYCL_VERIFY_IMAGE=1: $out"; fi
cp "$T" "$dir/damaged" && flip "$dir/damaged" -1
out=$(TINYCL_BOOT=image TINYCL_VERIFY_IMAGE=1 "$dir/damaged" -e '(+ 1 2)' 2>&1)
case "$out" in *"boot image refused: the image is corrupted (checksum mismatch)"*) pass ;; *) fail "a damaged image checked: $out" ;; esac
cp "$T" "$dir/foreign" && flip "$dir/foreign" 20
out=$(TINYCL_BOOT=image "$dir/foreign" -e '(+ 1 2)' 2>&1)
case "$out" in *"boot image refused: "*"build"*) pass ;; *) fail "an image of another build: $out" ;; esac
rm -f "$dir/damaged" "$dir/foreign"
TINYCL_BOOT=image "$T" -e '(load "tests/boot/describe.lisp")' >"$dir/image.txt" 2>&1
TINYCL_BOOT=source "$T" -e '(load "tests/boot/describe.lisp")' >"$dir/source.txt" 2>&1
lines=$(wc -l <"$dir/image.txt")
if [ "$lines" -gt 3000 ] && cmp -s "$dir/image.txt" "$dir/source.txt"; then
    pass
else
    fail "the two boots differ ($lines lines described):"; diff "$dir/source.txt" "$dir/image.txt" | head -20
fi

# The start-up snapshot a reset returns to is made from the pages of the image written since it
# was mapped (runtime/snapshot.c); TINYCL_SNAPSHOT_CHECK=1 checks it against the whole state in
# each front end, and a session file's start too.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"boot","version":"1"}}}'
echo '(+ 1 2)' > "$dir/script.lisp"
snapcheck() { # $1: what ran; $2: its stderr
    if printf '%s' "$2" | grep -q 'start-up snapshot from written pages (.*): verified'; then pass
    else fail "start-up snapshot of $1: $(printf '%s' "$2" | grep 'snapshot' | head -3)"; fi
}
snapcheck "tinycl -e" "$(TINYCL_SNAPSHOT_CHECK=1 "$T" -e nil 2>&1 >/dev/null)"
snapcheck "tinycl mcp" "$(printf '%s\n' "$init" | TINYCL_SNAPSHOT_CHECK=1 "$T" mcp 2>&1 >/dev/null)"
snapcheck "the REPL" "$(echo '(+ 1 2)' | TINYCL_SNAPSHOT_CHECK=1 "$T" -q 2>&1 >/dev/null)"
snapcheck "a script" "$(TINYCL_SNAPSHOT_CHECK=1 "$T" "$dir/script.lisp" 2>&1 >/dev/null)"
echo '(load "tests/boot/changes.lisp")' | "$T" -q --session-file "$dir/session" >/dev/null 2>&1
snapcheck "a session file" "$(echo '(+ 1 2)' | TINYCL_SNAPSHOT_CHECK=1 "$T" -q --session-file "$dir/session" 2>&1 >/dev/null)"

# What changes.lisp makes is gone after a reset, after a return to a checkpoint taken before it,
# after a reset of a session restored from a checkpoint or from a session file; and the session
# after a reset is the same whether its start-up snapshot was made from the written pages or
# taken whole (TINYCL_SNAPSHOT_CHECK=whole).
after='(load "tests/boot/after-reset.lisp")'
changes='(load "tests/boot/changes.lisp")'
resets() { grep -c '^reset: ok$'; }
n=$(printf '%s\n' "$changes" ':reset' "$after" ':checkpoint c0' "$changes" ':restore c0' "$after" \
      "$changes" ':checkpoint c1' ':reset' "$after" ':restore c1' ':reset' "$after" | "$T" -q 2>&1 | resets)
if [ "$n" = 4 ]; then pass; else fail "reset and checkpoints: $n of 4 checks after a reset found nothing left"; fi
n=$(printf '%s\n' ':reset' "$after" | "$T" -q --session-file "$dir/session" 2>&1 | resets)
if [ "$n" = 1 ]; then pass; else fail "a reset of a session restored from its file left some of its changes"; fi
desc() { echo "(with-open-file (*standard-output* \"$dir/$1\" :direction :output :if-exists :supersede) (load \"tests/boot/describe.lisp\"))"; }
printf '%s\n' "$changes" ':reset' "$(desc written.txt)" | "$T" -q >/dev/null 2>&1
printf '%s\n' "$changes" ':reset' "$(desc whole.txt)" | TINYCL_SNAPSHOT_CHECK=whole "$T" -q >/dev/null 2>&1
lines=$(wc -l <"$dir/written.txt")
if [ "$lines" -gt 3000 ] && cmp -s "$dir/written.txt" "$dir/whole.txt"; then
    pass
else
    fail "after a reset, the two start-up snapshots differ ($lines lines):"; diff "$dir/whole.txt" "$dir/written.txt" | head -20
fi

# The image's cold pages mapped from a file of them inflated in the system cache's directory
# (runtime/imagepages.c): the loader's first look at its cache directory writes it (the first
# process) or maps it (the next), so that touching most of the image inflates few pages; a
# damaged file is written again; another image's file is removed; turned off, nothing is mapped;
# a plain start neither writes nor maps it.
xdg="$dir/xdg"
touchall='(progn (asdf:find-system "no-such-system-here" nil) (defclass pages-pt () ((x :initarg :x))) (make-instance (quote pages-pt) :x 1) (format nil "~{~a~^,~}" (loop for i below 5 collect (* i i))) (multiple-value-list (sys::%image-cold-pages)))'
pagecount() { # $1: the output "(INFLATED FROM-FILE)": echo the two numbers
    printf '%s' "$1" | tail -1 | tr -d '()'
}
XDG_CACHE_HOME="$xdg" "$T" -e nil >/dev/null 2>&1
if [ -z "$(find "$xdg" -name 'image-*.pages' 2>/dev/null)" ]; then pass; else fail "tinycl -e nil wrote the image's pages"; fi
set -- $(pagecount "$(XDG_CACHE_HOME="$xdg" "$T" -q -e "$touchall" 2>&1)")
file=$(find "$xdg" -name 'image-*.pages' 2>/dev/null)
if [ -n "$file" ] && [ "${2:-0}" -gt 1000 ]; then pass; else fail "the first process did not write and map the image's pages: $*, file '$file'"; fi
set -- $(pagecount "$(XDG_CACHE_HOME="$xdg" "$T" -q -e "$touchall" 2>&1)")
if [ "${2:-0}" -gt 1000 ] && [ "${1:-999}" -lt 150 ]; then pass; else fail "a second process did not map the image's pages: inflated, mapped: $*"; fi
# the trace names the pages inflated: far fewer than without the file
with=$(XDG_CACHE_HOME="$xdg" TINYCL_IMAGE_COLD_TRACE=1 "$T" -q -e "$touchall" 2>&1 | grep -c '^cold page 0x')
without=$(XDG_CACHE_HOME="$xdg" TINYCL_IMAGE_PAGES=0 TINYCL_IMAGE_COLD_TRACE=1 "$T" -q -e "$touchall" 2>&1 | grep -c '^cold page 0x')
if [ "$with" -lt 150 ] && [ "$without" -gt 500 ]; then pass; else fail "cold pages inflated with the file $with, without $without"; fi
set -- $(pagecount "$(XDG_CACHE_HOME="$xdg" "$T" -q -e '(setf asdf::*image-pages* nil)' -e "$touchall" 2>&1)")
if [ "${2:-1}" = 0 ] && [ "${1:-0}" -gt 500 ]; then pass; else fail "asdf::*image-pages* NIL: inflated, mapped: $*"; fi
# the file written again when damaged (a byte of its last page), and then used
size=$(stat -c %s "$file")
printf 'X' | dd of="$file" bs=1 seek=$((size - 10)) conv=notrunc 2>/dev/null
set -- $(pagecount "$(XDG_CACHE_HOME="$xdg" "$T" -q -e "$touchall" 2>&1)")
if [ "${2:-0}" -gt 1000 ] && [ "$(od -An -c -j $((size - 10)) -N 1 "$file" | tr -d ' ')" != X ]; then pass; else fail "a damaged file of pages: $*"; fi
# cut short: not used, written again
truncate -s $((size / 2)) "$file"
set -- $(pagecount "$(XDG_CACHE_HOME="$xdg" "$T" -q -e "$touchall" 2>&1)")
if [ "${2:-0}" -gt 1000 ] && [ "$(stat -c %s "$file")" = "$size" ]; then pass; else fail "a file of pages cut short: $*"; fi
# cut short by the process itself after its pages were mapped: the pages it no longer holds
# fault with SIGBUS and are inflated from the executable instead; the process goes on
cut="(with-open-file (s \"$file\" :direction :output :if-exists :supersede) (write-string \"x\" s))"
out=$(XDG_CACHE_HOME="$xdg" "$T" -q -e '(asdf:find-system "no-such-system-here" nil)' -e "$cut" -e "$touchall" 2>&1)
set -- $(pagecount "$out")
if [ "${1:-0}" -gt 500 ] && [ "$(stat -c %s "$file")" = 1 ]; then pass; else fail "a file of pages cut short under its mapping: $out"; fi
# the file of another build is removed when this one's is written
other="$(dirname "$file")/image-0123456789abcdef.pages"
cp "$file" "$other" && rm -f "$file"
XDG_CACHE_HOME="$xdg" "$T" -q -e "$touchall" >/dev/null 2>&1
if [ -f "$file" ] && [ ! -e "$other" ]; then pass; else fail "another build's file of pages was kept"; fi
# a FIFO of that name is not opened for reading (which would wait for a writer) but replaced; a
# directory of that name cannot be: the pages are inflated as without a file
rm -f "$file" && mkfifo "$file"
out=$(XDG_CACHE_HOME="$xdg" timeout 30 "$T" -q -e "$touchall" 2>&1)
set -- $(pagecount "$out")
if [ "${2:-0}" -gt 1000 ] && [ -f "$file" ]; then pass; else fail "a FIFO in place of the file of pages: $out"; fi
rm -f "$file" && mkdir "$file"
out=$(XDG_CACHE_HOME="$xdg" timeout 30 "$T" -q -e "$touchall" 2>&1)
set -- $(pagecount "$out")
if [ "${1:-0}" -gt 500 ]; then pass; else fail "a directory in place of the file of pages: $out"; fi
rmdir "$file"
# where the session may not write the cache (a sandbox), none is written and the loader works
sandxdg="$BUILD/pages-sandbox.$$"
rm -rf "$sandxdg"
out=$(XDG_CACHE_HOME="$sandxdg" "$T" --sandbox --allow-env XDG_CACHE_HOME -q -e "$touchall" 2>&1)
set -- $(pagecount "$out")
if [ "${2:-1}" = 0 ] && [ -z "$(find "$sandxdg" -name 'image-*.pages' 2>/dev/null)" ]; then pass; else fail "a sandboxed session and the file of pages: $out"; fi
rm -rf "$sandxdg"

# the Lisp suite booted from the sources
out=$(TINYCL_BOOT=source BUILD="$BUILD" tests/run-lisp.sh 2>&1)
last=$(printf '%s\n' "$out" | tail -1)
lf=$(printf '%s' "$last" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p')
if [ "$lf" = 0 ]; then pass; else fail "Lisp suite from source: $last"; printf '%s\n' "$out" | grep -v passed | head -20; fi

echo "boot: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
