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
