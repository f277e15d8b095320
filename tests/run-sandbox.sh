#!/bin/sh
# run-sandbox.sh: the access policy in scripts, -e and the REPL (docs/security.md): tests/sandbox/access.lisp
# under each option set, in a fresh fixture (tests/sandbox/fixture.sh) whose outside/ must come out
# untouched, plus the options' errors and --help. (The MCP server's side: tests/mcp/e2e-sandbox.mjs.)
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
T="$(pwd)/$BUILD/tinycl"
HERE="$(pwd)/tests/sandbox"
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/tinycl-sandbox.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
passed=0; failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && printf '%s\n' "$2" | head -20; }
check() { if [ "$2" = "$3" ]; then ok; else fail "$1" "got: $2
expected: $3"; fi; }

# Run tinycl OPTIONS... in a fresh fixture $D (current directory work/) with the test environment.
fresh() {
    D="$ROOT/$1"
    rm -rf "$D"
    "$HERE/fixture.sh" "$D" || { fail "fixture $1"; return 1; }
}
inside() {
    (cd "$D/work" && env TMPDIR="$D/tmp" HOME="$D/home" CL_SOURCE_REGISTRY="$D/reg//" \
        TINYCL_TEST_SECRET=s3cret TINYCL_TEST_VISIBLE=visible "$T" "$@" 2>&1)
}
# What outside/ holds (names and contents), to prove that a restricted run changed nothing there.
outside_state() { (cd "$1/outside" && find . | sort && cat ./*.txt ./*.lisp) 2>&1; }

n=0
run_mode() { # MODE OPTIONS...: access.lisp as a script; @D in an option is the fixture's directory
    mode=$1; shift
    n=$((n + 1))
    fresh "$mode$n" || return
    for a; do shift; set -- "$@" "$(printf '%s' "$a" | sed "s|@D|$D|")"; done
    { echo "(defparameter cl-user::*sandbox-args* '(\"$mode\" \"$D\"))"; cat "$HERE/access.lisp"; } > "$D/run.lisp"
    before=$(outside_state "$D")
    out=$(inside "$@" "$D/run.lisp")
    line=$(printf '%s\n' "$out" | grep -E "^access-$mode: [0-9]+ passed, [0-9]+ failed" | tail -1)
    if [ -z "$line" ]; then fail "script $mode ($*): did not finish" "$(printf '%s\n' "$out" | tail -15)"; return; fi
    printf '%s\n' "$out" | grep '^FAIL' | head -40
    p=$(printf '%s' "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    f=$(printf '%s' "$line" | sed -n 's/.* \([0-9]*\) failed/\1/p')
    echo "sandbox script $line ($*)"
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$mode" != unrestricted ]; then
        check "script $mode: outside/ untouched" "$(outside_state "$D")" "$before"
    fi
}

run_mode mcp --allow-env TINYCL_TEST_NONE
run_mode allow --allow-read @D/extra --allow-write @D/wextra --allow-env TINYCL_TEST_VISIBLE
run_mode sandbox --sandbox
run_mode unrestricted
run_mode unrestricted --unrestricted

# -e and the REPL: unrestricted unless given an option
fresh e
check "-e unrestricted by default" "$(inside -e '(tinycl:posix-getenv "TINYCL_TEST_SECRET")')" '"s3cret"'
check "-e --sandbox hides the environment" "$(inside --sandbox -e '(tinycl:posix-getenv "TINYCL_TEST_SECRET")')" 'NIL'
check "-e --allow-env" "$(inside --sandbox --allow-env TINYCL_TEST_SECRET -e '(tinycl:posix-getenv "TINYCL_TEST_SECRET")')" '"s3cret"'
check "-e --sandbox refuses the current directory" \
    "$(inside --sandbox -e '(handler-case (open "in.txt") (tinycl:access-denied (c) (tinycl:access-denied-option c)))')" \
    "\"--allow-read $D/work\""
check "-e --allow-read adds to --sandbox" \
    "$(inside --sandbox --allow-read . -e '(with-open-file (s "in.txt") (values (read-line s)))')" '"inside"'
check "-e --allow-read does not allow writing" \
    "$(inside --sandbox --allow-read . -e '(handler-case (open "x.txt" :direction :output) (tinycl:access-denied (c) (tinycl:access-denied-option c)))')" \
    "\"--allow-write $D/work\""
check "-e --allow-write" \
    "$(inside --sandbox --allow-write . -e '(with-open-file (s "x.txt" :direction :output) (write-line "x" s))')" '"x"'
check "-e the error names the resolved path" \
    "$(inside --allow-env NONE -e '(open "link-secret")' | head -2)" \
    "[ERROR] ACCESS-DENIED
OPEN is not allowed on \"$D/outside/secret.txt\": it is outside the directories this session may read. Start tinycl with --allow-read $D/outside to allow it."
check "REPL unrestricted by default" \
    "$(echo '(tinycl:posix-getenv "TINYCL_TEST_SECRET")' | inside -q | grep -c s3cret)" 1
check "REPL --sandbox" \
    "$(echo '(list :v (tinycl:posix-getenv "TINYCL_TEST_SECRET"))' | inside -q --sandbox | grep -c '(:V NIL)')" 1
echo '(print (list :got (read-line)))' > "$D/read-stdin.lisp"
check "script --sandbox: *standard-input* still reads stdin" \
    "$(printf 'hello there\n' | inside --sandbox "$D/read-stdin.lisp" | grep -c '(:GOT "hello there")')" 1

# hostile names: far longer than PATH_MAX, and just under it with 2000 components to resolve
check "a name of 100,000 components is refused" \
    "$(inside --sandbox -e '(handler-case (open (format nil "~{~A~}" (make-list 100000 :initial-element "a/"))) (tinycl:access-denied () :refused))' -e '(+ 1 2)')" ":REFUSED
3"
check "a name of 2000 components that does not exist" \
    "$(inside --allow-env NONE -e '(handler-case (open (format nil "~{~A~}x" (make-list 2000 :initial-element "a/"))) (tinycl:access-denied () :refused) (file-error () :missing))' -e '(+ 1 2)')" ":MISSING
3"
check "2000 components of .. from the current directory" \
    "$(inside --allow-env NONE -e '(handler-case (open (format nil "~{~A~}etc/passwd" (make-list 2000 :initial-element "../"))) (tinycl:access-denied () :refused))')" ":REFUSED"

# tinycl mcp over real pipes (the MCP tests' clients use sockets, which /proc/self/fd cannot open
# anyway): the messages of the protocol-guard transcripts, the first three before the /dev/stdin
# read and the rest a second later, so that a read of the protocol would take them
pipe_session() { # TRANSCRIPT ARGS...: the server's stdout
    file=$1; shift
    (sed -n 's/^> //p' "$file" | head -3; sleep 1; sed -n 's/^> //p' "$file" | tail -n +4) |
        (cd "$D/work" && TMPDIR="$D/tmp" timeout 60 "$T" mcp "$@" 2>/dev/null)
}
fresh pipes
for args in "--unrestricted" ""; do
    name="mcp over pipes${args:+ $args}"
    tr=tests/mcp/transcripts/protocol-guard${args:+-unrestricted}.txt
    out=$(pipe_session "$tr" $args)
    ids=$(sed -n 's/^> .*"id":\([0-9]*\),"method".*/\1/p' "$tr" | tr '\n' ' ')
    for id in $ids; do
        case "$out" in *"\"id\":$id,"*) ok ;; *) fail "$name: a response to id $id" "$out" ;; esac
    done
    case "$out" in *4242*) fail "$name: a forged response reached the client" "$out" ;; *) ok ;; esac
    lines=$(printf '%s\n' "$out" | grep -c .)
    check "$name: one line per response" "$lines" "$(echo $ids | wc -w)"
done
case "$(pipe_session tests/mcp/transcripts/protocol-guard-unrestricted.txt --unrestricted)" in
    *'"id":2,"result":{"content":[{"type":"text","text":"=> :EOF"'*) ok ;;
    *) fail "mcp over pipes: /dev/stdin reads /dev/null" ;;
esac

check "started from /, the current directory is not allowed" \
    "$(cd / && "$T" --allow-env NONE -e '(handler-case (open "/etc/passwd") (tinycl:access-denied () :refused))' 2>&1)" \
    "tinycl: the current directory is /: it is not made readable or writable (use --allow-read or --allow-write DIR)
:REFUSED"

# options: errors and --help
out=$(inside --unrestricted --sandbox -e 1); st=$?
check "--unrestricted with --sandbox is refused" "$st: $out" "2: tinycl: --unrestricted cannot be combined with --sandbox or --allow-*"
out=$(inside --allow-read); st=$?
check "--allow-read needs a directory" "$st: $out" "2: tinycl: --allow-read needs a directory"
out=$(inside --allow-env); st=$?
check "--allow-env needs a name" "$st: $out" "2: tinycl: --allow-env needs a variable name"
help=$("$T" --help)
for w in "--allow-read DIR" "--allow-write DIR" "--allow-env NAME" "--sandbox" "--unrestricted" "TINYCL:ACCESS-DENIED"; do
    case "$help" in *"$w"*) ok ;; *) fail "--help mentions $w" ;; esac
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
