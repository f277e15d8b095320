#!/usr/bin/env bash
# bench/startup.sh -- start-up costs of tinycl beside SBCL, CLISP and ECL (docs/performance.md).
#
#   - wall time of an empty run: `tinycl -e nil` (from the boot image, and with
#     --boot-from-source), `sbcl --non-interactive --no-sysinit --no-userinit --eval
#     '(sb-ext:exit)'`, `clisp -q -norc -x nil`, `ecl -q -norc -eval '(ext:quit)'`;
#     STARTUP_RUNS runs each (default 30), interleaved, median in ms;
#   - resident memory of an idle `tinycl mcp` after `initialize` (VmRSS, MiB);
#   - the embedding API (bench/session.c): a fresh session (new, one evaluation, free) and
#     tcl_reset, medians of STARTUP_RUNS;
#   - the size of the executable, and of the image it carries.
# Implementations not on PATH are skipped with a note.
set -u
export LC_ALL=C
BUILD=${BUILD:-build}
T=${TINYCL:-$BUILD/tinycl}
N=${STARTUP_RUNS:-30}
WORK=${BENCH_OUT:-$BUILD/bench}
mkdir -p "$WORK"

declare -A CMD=(
  [tinycl]="$T -e nil"
  [tinycl-source]="$T --boot-from-source -e nil"
  [sbcl]="sbcl --non-interactive --no-sysinit --no-userinit --eval (sb-ext:exit)"
  [clisp]="clisp -q -norc -x nil"
  [ecl]="ecl -q -norc -eval (ext:quit)"
)
IMPLS=""
for impl in tinycl tinycl-source sbcl clisp ecl; do
  set -- ${CMD[$impl]}
  if command -v "$1" >/dev/null 2>&1; then IMPLS="$IMPLS $impl"; else echo "($impl: $1 not found, skipped)"; fi
done

median() { sort -n | awk '{v[NR]=$1} END {if (NR==0) {print "-"; exit} m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.2f\n", m}'; }

for impl in $IMPLS; do : > "$WORK/startup-$impl.txt"; done
for ((i = 1; i <= N; i++)); do
  for impl in $IMPLS; do
    t0=$EPOCHREALTIME
    ${CMD[$impl]} >/dev/null 2>&1 </dev/null
    t1=$EPOCHREALTIME
    echo "($t1 - $t0) * 1000" | bc -l >> "$WORK/startup-$impl.txt"
  done
done
echo "start-up, median of $N interleaved runs (ms):"
for impl in $IMPLS; do printf '  %-14s %8s   %s\n' "$impl" "$(median < "$WORK/startup-$impl.txt")" "${CMD[$impl]}"; done

# idle RSS of the MCP server after initialize
rss=$(node -e '
const { spawn } = require("child_process");
const p = spawn(process.argv[1], ["mcp"], { stdio: ["pipe", "pipe", "inherit"] });
let buf = "";
p.stdout.on("data", d => {
  buf += d;
  if (buf.includes("\n")) {
    setTimeout(() => {
      const s = require("fs").readFileSync(`/proc/${p.pid}/status`, "utf8");
      const kb = +s.match(/VmRSS:\s+(\d+)/)[1];
      console.log((kb / 1024).toFixed(1));
      p.kill();
    }, 300);
  }
});
p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }) + "\n");
' "$T" 2>/dev/null)
echo "idle RSS of tinycl mcp after initialize: ${rss:-?} MiB"

# the embedding API: bench/session.c linked with libtinycl.a, carrying its own image
CC=${CC:-gcc}
if $CC -O2 -std=c11 -D_GNU_SOURCE -no-pie -Iinclude -o "$WORK/session0" bench/session.c "$BUILD/libtinycl.a" \
      -lgc -lgmp -lcjson -lzstd -lreadline -lpthread -lm &&
   "$WORK/session0" --write-boot-image "$WORK/session.image" &&
   "$BUILD/attach-image" "$WORK/session" "$WORK/session0" "$WORK/session.image" && chmod +x "$WORK/session"; then
  "$WORK/session" "$N" | sed 's/^/embedding API: /'
else
  echo "embedding API: could not build bench/session.c"
fi

exe=$(stat -c %s "$T"); img=$(stat -c %s "$BUILD/tinycl.image" 2>/dev/null || echo 0)
echo "size: $T $((exe / 1024)) KiB, of which the boot image $((img / 1024)) KiB"
