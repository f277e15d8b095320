#!/bin/sh
# run-docs.sh: README.md and docs/ against the code (tests/docs/check-docs.mjs): the MCP tools with
# their arguments and groups, the command-line options, the TINYCL_* environment variables.
# Ends with "N passed, N failed".
BUILD=${BUILD:-build}
if ! command -v node >/dev/null 2>&1; then
    echo "docs: node is not installed (apt-get install nodejs)"; echo "0 passed, 1 failed"; exit 1
fi
node tests/docs/check-docs.mjs "$BUILD/tinycl"
