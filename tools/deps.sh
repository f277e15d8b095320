#!/bin/sh
# deps.sh: install the Debian packages tinycl needs (as root), or print the command to run.
# Usage: tools/deps.sh [build|test]   (test adds the tools the test suites use)
set -e
PKGS="libgc-dev libcjson-dev libreadline-dev check libgmp-dev libzstd-dev libmicrohttpd-dev pkg-config"
# test: tmux for the REPL tests; the Debian Common Lisp libraries the system loader is tried on
if [ "$1" = "test" ]; then PKGS="$PKGS tmux cl-split-sequence cl-alexandria cl-ppcre cl-parse-number cl-iterate cl-flexi-streams cl-trivial-gray-streams cl-babel cl-fad cl-bordeaux-threads cl-closer-mop cl-nibbles cl-interpol cl-md5 cl-yason cl-chunga cl-quri cl-local-time cl-cxml cl-metatilities-base cl-contextl"; fi
missing=""
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "tools/deps.sh: installing$missing" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
else
    echo "Missing packages:$missing. Run:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi
