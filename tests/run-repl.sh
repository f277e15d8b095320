#!/bin/sh
# run-repl.sh: drive the REPL in a real terminal (tmux send-keys / capture-pane) and check the screen.
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
T="$(pwd)/$BUILD/tinycl"
if ! command -v tmux >/dev/null 2>&1; then echo "repl: tmux is not installed"; echo "0 passed, 1 failed"; exit 1; fi
S="tinycl-repl-test-$$"
# a tmux server of our own: test runs in parallel (or a user's tmux) cannot end it under us
tm() { tmux -L "$S" "$@"; }
HOME_DIR=$(mktemp -d)
passed=0; failed=0

# Each start makes a session of a new name and only then ends the previous one: killing the last
# session first makes the tmux server exit, and a new-session racing with that exit failed with
# "no server running" under load.
N=0
W=""
start() {
    N=$((N + 1))
    tm new-session -d -s "$S-$N" -x 120 -y 40 "env HOME=$HOME_DIR TERM=xterm $T $*; echo EXIT-STATUS=\$?; sleep 30"
    [ -n "$W" ] && tm kill-session -t "$W" 2>/dev/null
    W="$S-$N"
    # generous: a start that restores a session file took over 10 s on a loaded machine (an empty
    # screen, then every check after it failed); a prompt that comes early costs nothing
    wait_for 'CL-USER>' 30
}
screen() { tm capture-pane -p -t "$W" -S -200; }
send() { tm send-keys -t "$W" "$@"; }
wait_for() { # pattern [seconds]
    n=$(( ${2:-5} * 10 ))
    while [ $n -gt 0 ]; do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1; n=$((n - 1))
    done
    return 1
}
check() { # name pattern [seconds]
    if wait_for "$2" "${3:-5}"; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "repl FAIL $1: no '$2' on screen:"; screen | tail -15 | sed 's/^/    /'; fi
}
last_answer_is_42() { # the line after the last "(keep)" typed is 42
    screen | grep -v '^$' | grep -A1 '(keep)$' | tail -1 | grep -qx '42'
}
check_absent() { # name pattern
    if screen | grep -qF -- "$2"; then failed=$((failed + 1)); echo "repl FAIL $1: unexpected '$2'"; else passed=$((passed + 1)); fi
}

# prompt, evaluation, values one per line
start
check banner "tinycl"
send '(+ 1 2)' Enter
check value '3'
send '(values 1 "two")' Enter
check multiple-values '"two"'
# continuation lines while the input is incomplete
send '(list 1' Enter
sleep 0.3
send '2)' Enter
check continuation '(1 2)'
# package in the prompt
send '(defpackage :repl-pkg (:use :cl))' Enter
send '(in-package :repl-pkg)' Enter
check package-prompt 'REPL-PKG>'
send '(in-package :cl-user)' Enter
# trace of a COMMON-LISP function: the call typed is shown, the REPL's own printing is not
send '(trace car)' Enter
check trace-names '(CAR)'
send "(car '(7 8))" Enter
check trace-call '  0: (CAR (7 8))'
check trace-return '  0: CAR returned 7'
send '(untrace car)' Enter
# the debugger: restarts listed, :bt, a restart chosen by number
send '(defun keep () 42)' Enter
send '(defun f (x) (let ((y (list x))) (car x) y))' Enter
send '(f 5)' Enter
check debugger-banner 'debugger invoked on a TYPE-ERROR'
check debugger-restarts '[ABORT] Return to top level.'
check debugger-prompt '[1] CL-USER>'
send ':bt' Enter
# every frame, primitives included, with their arguments
check backtrace-primitive '0: (CAR 5)'
check backtrace '1: (F 5)'
send ':bt locals' Enter
check backtrace-locals '      X = 5'
check backtrace-let-locals '      Y = (5)'
send '(+ 40 2)' Enter
check debugger-eval '42'
send ':abort' Enter
sleep 0.3
send '(keep)' Enter
sleep 0.5
if last_answer_is_42; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "repl FAIL state-after-debugger"; screen | grep -v '^$' | tail -5; fi
# a restart's number invokes it: 0 at [1] is the listed ABORT, back to the top level
send '(car 7)' Enter
check car-debugger 'The value 7 is not of type LIST'
send '0' Enter
sleep 0.3
send '(list :back (keep))' Enter
check restart-number-abort '(:BACK 42)'
if screen | grep -v '^$' | tail -2 | grep -q '^\[1\]'; then failed=$((failed + 1)); echo "repl FAIL restart-number-abort left the debugger prompt"; else passed=$((passed + 1)); fi
send '(restart-case (error "stop") (continue () :report "Go on with 7." 7))' Enter
check continue-listed '0: [CONTINUE] Go on with 7.'
send '0' Enter
check continue-by-number-value '7'
# use-value restart by number
send '(restart-case (error "pick") (use-value (v) (* v 2)))' Enter
check restart-listed '[USE-VALUE]'
send '0' Enter
sleep 0.3
# invoke-restart-interactively with no interactive function: use-value gets no arguments -> error; choose abort instead
send ':abort' Enter
# :profile runs the code and shows the table
send '(defun pfib (n) (if (< n 2) n (+ (pfib (- n 1)) (pfib (- n 2)))))' Enter
send ':profile (pfib 10)' Enter
check profile-value '55'
check profile-table 'calls   incl ms   excl ms'
check profile-calls '       177 '
# Ctrl-C interrupts a runaway loop, state kept
send '(loop)' Enter
sleep 1
send C-c
check interrupt '; Interrupted.' 5
send '(keep)' Enter
sleep 0.5
if last_answer_is_42; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "repl FAIL state-after-interrupt"; screen | grep -v '^$' | tail -5; fi
# tab completion of a symbol in the current package
send '(kee' Tab
sleep 0.5
check completion '(keep'
send C-u
send C-a C-k
# Ctrl-D at an empty prompt exits with status 0
send C-d
check ctrl-d-exit 'EXIT-STATUS=0' 5
# history is saved
if [ -s "$HOME_DIR/.tinycl_history" ] && grep -q '(keep)' "$HOME_DIR/.tinycl_history"; then passed=$((passed + 1))
else failed=$((failed + 1)); echo "repl FAIL history: ~/.tinycl_history not written"; fi

# (exit :code 3) from the REPL
start
send '(exit :code 3)' Enter
check exit-code 'EXIT-STATUS=3' 5

# meta-commands (the session API): :help, :load and :systems on a fixture system, :defs, :package, :reset
start
send ':help' Enter
check meta-help ':load NAME [force]'
send "(push #p\"$(pwd)/tests/systems/fix-util/\" asdf:*central-registry*)" Enter
send ':load fix-util' Enter
check meta-load 'Loaded: fix-util (version 1.2.0)' 10
send ':systems' Enter
check meta-systems '- fix-util 1.2.0 (loaded'
send ':package fix-util' Enter
check meta-package 'FIX-UTIL>'
send ':package cl-user' Enter
send '(defun meta-fn (x) x)' Enter
send ':defs functions' Enter
check meta-defs '- META-FN (X)'
send ':reset' Enter
check meta-reset 'Session reset. All definitions cleared.'
send ':load no-such-system-xyz' Enter
check meta-load-error 'System "no-such-system-xyz" not found in any known distribution.'
# introspection meta-commands (issue 11)
send '(defun repl-sq (x) (* x x))' Enter
send '(defun repl-quad (y) (repl-sq (repl-sq y)))' Enter
send ':who-calls repl-sq' Enter
check meta-who-calls 'REPL-QUAD (REPL input'
send ':where repl-sq' Enter
check meta-where 'function REPL-SQ: REPL input'
check_absent meta-where-no-mcp-words 'evaluate-lisp'
send ':expand (when a b)' Enter
check meta-expand '(PROGN B)'
send ':inspect (list 1 (vector 7 8))' Enter
check meta-inspect 'a proper list of 2 elements'
send ':part 1 0' Enter
check meta-part 'path: 1 > 0'
send ':describe repl-nope-xyz' Enter
check meta-describe-unknown 'No symbol named "REPL-NOPE-XYZ"'
send C-d

# the file tools' meta-commands (issue 12): :check, :forms, :edit, :load-file, :test
FDIR=$(mktemp -d)
printf '(defun repl-f (x)\n  (+ x 1))\n\n(defmethod repl-m ((s string)) s)\n(defmethod repl-m ((n number)) n)\n' > "$FDIR/ok.lisp"
printf '(defun broken ()\n  (if x\n      1)\n\n(defun after () 2)\n' > "$FDIR/broken.lisp"
start
send ":check $FDIR/ok.lisp" Enter
check meta-check-ok 'Balanced: 3 top-level forms.'
send ":check $FDIR/broken.lisp" Enter
check meta-check-broken 'Likely fix: 1 closing parenthesis missing at the end of line 3'
send ":forms $FDIR/ok.lisp" Enter
check meta-forms 'defmethod repl-m (number)  (line 5)'
send ":edit $FDIR/ok.lisp defmethod repl-m(number) replace (defmethod repl-m ((n number)) (* 2 n))" Enter
check meta-edit '+(defmethod repl-m ((n number)) (* 2 n))'
send ":load-file $FDIR/ok.lisp" Enter
check meta-load-file 'defmethod REPL-M (NUMBER)'
send '(repl-m 21)' Enter
check meta-load-file-works '42'
send ":test no-such-system-xyz" Enter
check meta-test-error 'System "no-such-system-xyz" not found'
send C-d
rm -rf "$FDIR"

# checkpoints and the session file (issue 18): :checkpoint / :restore, and a new REPL on the same
# --session-file goes on where the last one stopped
SDIR=$(mktemp -d)
start --session-file "$SDIR/state"
send '(defpackage :keep-pkg (:use :cl))' Enter
send '(in-package :keep-pkg)' Enter
send '(defun kept (x) (* x 7)) (defvar *kept* 6)' Enter
check checkpoint-defs '*KEPT*'
send ':checkpoint one' Enter
check checkpoint-taken 'Checkpoint "one" taken.'
send '(defun kept (x) x) (setf *kept* 0) (in-package :cl-user)' Enter
check checkpoint-changed '#<PACKAGE "COMMON-LISP-USER">'
send ':restore one' Enter
check restore-done 'Current package: KEEP-PKG'
send '(list :after (kept *kept*))' Enter
check restore-values '(:AFTER 42)'
send ':checkpoints' Enter
check checkpoints-listed 'one ('
sleep 1.2    # the file is written within a second of the last change (below)
start --session-file "$SDIR/state"
send '(list :back (package-name *package*) (kept *kept*))' Enter
check session-file-back '(:BACK "KEEP-PKG" 42)' 10
sleep 1      # the REPL writes the file before its next prompt: let it finish before damaging it
printf 'junk' > "$SDIR/state"
start --session-file "$SDIR/state"
check session-file-refused 'was refused' 10
send '(list :fresh (find-package :keep-pkg))' Enter
check session-file-fresh '(:FRESH NIL)'
if ls "$SDIR" | grep -q '^state\.bad-'; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "repl FAIL session-file-aside: $(ls "$SDIR")"; fi
# the file is written as the MCP server writes it: not before every prompt, but once a change has
# waited its short delay (here while (sleep 3) runs: nothing yet 1.5 s in, then within a second of
# its end), at exit (Ctrl-D right after a change), and when the terminal goes (SIGHUP at the prompt)
start --session-file "$SDIR/deb"
send '(defvar *deb* 42)' Enter '(sleep 3)' Enter
sleep 1.5
if [ -e "$SDIR/deb" ]; then failed=$((failed + 1)); echo "repl FAIL session-file-debounced: written before the burst ended"; else passed=$((passed + 1)); fi
n=50; while [ $n -gt 0 ] && [ ! -e "$SDIR/deb" ]; do sleep 0.1; n=$((n - 1)); done
if [ -e "$SDIR/deb" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "repl FAIL session-file-debounced-written: not written after the burst"; fi
send '(defvar *deb2* 7)' Enter C-d
check session-file-exit-write 'EXIT-STATUS=0' 10
start --session-file "$SDIR/deb"
send '(defvar *deb3* (list *deb* *deb2*))' Enter
check session-file-at-exit '*DEB3*'
kill -HUP $(pgrep -P "$(tm display -p -t "$W" '#{pane_pid}')")
check session-file-sighup 'EXIT-STATUS=129' 10
start --session-file "$SDIR/deb"
send '(list :after-hup *deb3*)' Enter
check session-file-after-sighup '(:AFTER-HUP (42 7))' 10
rm -rf "$SDIR"

tm kill-server 2>/dev/null

# Piped input, no terminal: when the evaluation upcall SYS::%SESSION-EVAL is gone, each input is
# an error that names it; the debugger it enters has no top-level ABORT to leave by, and at the end
# of input it returns instead of prompting again (it once printed "[1] CL-USER>" forever). The
# REPL then exits at the end of input.
pipe_check() { # name pattern input
    out=$(printf '%s' "$3" | HOME=$HOME_DIR timeout 20 "$T" 2>&1 | head -c 200000)
    if printf '%s' "$out" | grep -qF -- "$2" && [ "$(printf '%s' "$out" | grep -o 'CL-USER>' | wc -l)" -lt 20 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "repl FAIL $1: no '$2' in piped output (or prompts repeated):"
        printf '%s\n' "$out" | tail -8 | cut -c1-300 | sed 's/^/    /'
    fi
}
pipe_check upcall-missing-eof 'SYSTEM::%SESSION-EVAL, a function tinycl' "(fmakunbound 'sys::%session-eval)
(+ 1 2)
"
pipe_check upcall-missing-abort-then-eof 'is not defined as a function' "(fmakunbound 'sys::%session-eval)
(+ 1 2)
:abort
(+ 3 4)
"
out=$(printf '%s\n' "(fmakunbound 'sys::%session-eval)" "(+ 1 2)" | HOME=$HOME_DIR timeout 20 "$T" >/dev/null 2>&1; echo "status=$?")
if [ "$out" = "status=0" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "repl FAIL upcall-missing-exits: $out"; fi
rm -rf "$HOME_DIR"
echo "repl: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
