#!/bin/sh
# run-hostile.sh: each tests/hostile/*.lisp is evaluated between a definition and its use:
#   tinycl --max-heap 512M --timeout 3 -e '(defun keep () 42)' -e HOSTILE -e '(keep)'
# The process must end by itself, the hostile form must report an error (";; expect: error"),
# and the last line must be 42; ";; expect: exit N" requires exit status N instead. Cases whose
# set-up work can outlast the 3 s limit on a loaded machine accept TIMEOUT as well ("A|TIMEOUT").
BUILD=${BUILD:-build}
T="$BUILD/tinycl"
passed=0; failed=0
for f in tests/hostile/*.lisp; do
    name=$(basename "$f" .lisp)
    expect=$(sed -n 's/^;; expect: //p' "$f" | head -1)
    form=$(grep -v '^;; expect:' "$f")
    out=$(timeout 120 "$T" --max-heap 512M --timeout 3 -e '(defun keep () 42)' -e "$form" -e '(keep)' 2>/tmp/hostile-err.$$)
    status=$?
    err=$(cat /tmp/hostile-err.$$)
    last=$(printf '%s\n' "$out" | tail -1)
    ok=1; why=""
    case "$expect" in
        "exit "*)
            want=${expect#exit }
            [ "$status" = "$want" ] || { ok=0; why="exit status $status, wanted $want"; } ;;
        *)
            [ "$status" -le 1 ] || { ok=0; why="exit status $status (crash or kill)"; }
            [ "$last" = "42" ] || { ok=0; why="$why; last line '$last', wanted 42"; }
            case "$expect" in
                error) printf '%s' "$err" | grep -q '^\[ERROR\]' || { ok=0; why="$why; no [ERROR] reported"; } ;;
                "error "*) types=${expect#error }   # TYPE or TYPE|TYPE
                    printf '%s\n' "$err" | grep -qxE "\[ERROR\] ($types)" || { ok=0; why="$why; no [ERROR] $types reported"; } ;;
            esac ;;
    esac
    if [ $ok = 1 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "hostile $name: FAIL: $why"
        printf '%s\n' "$err" | head -4 | sed 's/^/    /'
    fi
done
rm -f /tmp/hostile-err.$$
echo "hostile: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
