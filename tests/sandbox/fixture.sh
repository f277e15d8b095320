#!/bin/sh
# fixture.sh DIR: lay out the file tree the sandbox tests use under DIR (which must be new or empty).
#   work/      the current directory of the tinycl under test (in.txt, sub/deep.txt, ok.lisp, insys.asd)
#              with escapes: link-out -> ../outside, link-secret -> ../outside/secret.txt,
#              dangling -> ../outside/new.txt (does not exist)
#   outside/   nothing may reach it unless unrestricted (secret.txt, evil.lisp, outsys/)
#   extra/     given with --allow-read;  wextra/ given with --allow-write
#   tmp/       the TMPDIR of the tinycl under test;  home/ its HOME (home/common-lisp/homesys/)
#   reg/       named by CL_SOURCE_REGISTRY (regsys/)
set -e
D=$1
[ -n "$D" ] || { echo "usage: fixture.sh DIR" >&2; exit 2; }
mkdir -p "$D/work/sub" "$D/outside/outsys" "$D/extra" "$D/wextra" "$D/tmp" \
         "$D/home/common-lisp/homesys" "$D/reg/regsys"
echo "inside" > "$D/work/in.txt"
echo "deep" > "$D/work/sub/deep.txt"
echo '(defparameter cl-user::*ok-loaded* t)' > "$D/work/ok.lisp"
echo "secret" > "$D/outside/secret.txt"
echo "delete me" > "$D/outside/delme.txt"
echo "rw" > "$D/outside/rw.txt"
echo '(defparameter cl-user::*evil-loaded* t)' > "$D/outside/evil.lisp"
echo "readme" > "$D/extra/readme.txt"
ln -s ../outside "$D/work/link-out"
ln -s ../outside/secret.txt "$D/work/link-secret"
ln -s ../outside/new.txt "$D/work/dangling"
ln -s ../outside/evil.lisp "$D/work/evil-link.lisp"
for s in insys:work outsys:outside/outsys homesys:home/common-lisp/homesys regsys:reg/regsys; do
    name=${s%%:*}; dir=$D/${s#*:}
    printf '(defsystem "%s" :version "1.0" :components ((:file "%s")))\n' "$name" "$name" > "$dir/$name.asd"
    printf '(defpackage "%s" (:use "CL")) (in-package "%s") (defun hello () :%s)\n' \
        "$(echo "$name" | tr a-z A-Z)" "$(echo "$name" | tr a-z A-Z)" "$name" > "$dir/$name.lisp"
done
