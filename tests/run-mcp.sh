#!/bin/sh
# run-mcp.sh: MCP server tests: protocol transcripts, then scripted sessions with the official SDK client.
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
T="$(pwd)/$BUILD/tinycl"
if ! command -v node >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    fi
fi
if ! command -v node >/dev/null 2>&1; then
    echo "mcp: node is not installed (apt-get install nodejs npm)"; echo "0 passed, 1 failed"; exit 1
fi
passed=0; failed=0
add() { # add the "N passed, N failed" of the last line of $1
    last=$(printf '%s\n' "$1" | tail -1)
    p=$(printf '%s' "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(printf '%s' "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then p=0; f=1; fi
    passed=$((passed + p)); failed=$((failed + f))
}
# the harness itself: a server that exits at once is reported as failures, not a crash (EPIPE)
selftest=$(node tests/mcp/transcript.mjs /bin/false tests/mcp/transcripts/lifecycle.txt 2>&1)
if printf '%s\n' "$selftest" | tail -1 | grep -q '^[0-9]* passed, [1-9][0-9]* failed$' && printf '%s\n' "$selftest" | grep -q 'exited with status 1'; then
    passed=$((passed + 1))
else
    echo "FAIL transcript.mjs reports a server that exits early:"; printf '%s\n' "$selftest" | tail -5; failed=$((failed + 1))
fi
# libmicrohttpd (and GnuTLS behind it) is opened only by --http: not by a plain start, not by stdio MCP
check_no_mhd() { # $1: what ran; $2: its LD_DEBUG=libs output
    if printf '%s' "$2" | grep -q 'microhttpd'; then echo "FAIL $1 loads libmicrohttpd"; failed=$((failed + 1)); else passed=$((passed + 1)); fi
}
check_no_mhd "tinycl -e nil" "$(LD_DEBUG=libs "$T" -e nil 2>&1 >/dev/null)"
check_no_mhd "tinycl mcp" "$(printf '' | LD_DEBUG=libs "$T" mcp 2>&1 >/dev/null)"
# a library that is not the one --http needs gives a clear error and status 70, not a crash
fake=$(mktemp -d)
echo 'int tinycl_not_microhttpd;' > "$fake/fake.c"
if cc -shared -fPIC -o "$fake/libmicrohttpd.so.12" "$fake/fake.c" 2>/dev/null; then
    msg=$(LD_LIBRARY_PATH="$fake" "$T" mcp --http 127.0.0.1:0 </dev/null 2>&1); st=$?
    if [ $st = 70 ] && printf '%s' "$msg" | grep -q 'needs libmicrohttpd, but the loaded one lacks MHD_'; then
        passed=$((passed + 1))
    else
        echo "FAIL --http with a wrong libmicrohttpd: status $st: $msg"; failed=$((failed + 1))
    fi
fi
rm -rf "$fake"
out=$(node tests/mcp/transcript.mjs "$T" tests/mcp/transcripts/*.txt 2>&1)
printf '%s\n' "$out" | sed '$d'
add "$out"
for e2e in $(cd tests/mcp && ls e2e*.mjs); do
    if [ ! -d tests/mcp/node_modules/@modelcontextprotocol/sdk ]; then
        (cd tests/mcp && npm ci --no-audit --no-fund >/dev/null 2>&1) || echo "mcp: npm ci failed"
    fi
    out=$(cd tests/mcp && timeout 900 node "$e2e" "$T" 2>&1)
    printf '%s\n' "$out" | sed '$d'
    add "$out"
done
echo "$passed passed, $failed failed"
