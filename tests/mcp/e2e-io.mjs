// e2e-io.mjs: the server never wedges on I/O, its own protocol stream, signals or hostile input.
// Blocking reads and writes end at the time limit or on cancellation (SDK client); closing stdin,
// SIGINT, SIGTERM, SIGHUP and a client that closed its end (raw child processes); huge, oversized
// and invalid UTF-8 messages. Usage: node e2e-io.mjs TINYCL
//
// Timing goals are a second or two; the bounds checked are generous (5 s, 10 s) so that a loaded
// 2-core machine passes, and the measured times are printed with TIMING lines.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.argv[2];
let passed = 0, failed = 0;
function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + detail : ""}`); }
}
const timing = (what, ms) => console.log(`TIMING ${what}: ${(ms / 1000).toFixed(2)} s`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (r) => (r && r.content && r.content[0] && r.content[0].text) || "";

const dir = mkdtempSync(join(tmpdir(), "tinycl-e2e-io-"));
const fifo = join(dir, "fifo");
execFileSync("mkfifo", [fifo]);

async function connect() {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], stderr: "pipe" });
  const client = new Client({ name: "tinycl-e2e-io", version: "1.0.0" });
  await client.connect(transport);
  return client;
}
const evaluate = (c, code, extra = {}, options = {}) =>
  c.callTool({ name: "evaluate-lisp", arguments: { code, ...extra } }, undefined, { timeout: 120000, ...options });

async function scenario(name, fn) {
  let client;
  try {
    client = await connect();
    await fn(client);
  } catch (e) {
    check(`${name}: ran to the end`, false, String((e && e.stack) || e));
  } finally {
    if (client) await client.close().catch(() => {});
  }
}

// ---- blocking I/O honours timeout_seconds and notifications/cancelled ----
await scenario("blocking I/O", async (c) => {
  await evaluate(c, "(defvar *kept* 42)");
  const forms = [
    ["read-line from a FIFO without writer", `(with-open-file (f ${JSON.stringify(fifo)}) (read-line f))`],
    ["open a FIFO for output without reader", `(with-open-file (f ${JSON.stringify(fifo)} :direction :output :if-exists :append) (write-line "x" f))`],
    ["listen then read-char", `(with-open-file (f ${JSON.stringify(fifo)}) (list (listen f) (read-char f)))`],
  ];
  for (const [what, code] of forms) {
    const t0 = Date.now();
    const r = await evaluate(c, code, { timeout_seconds: 2 });
    const ms = Date.now() - t0;
    timing(`${what}, timeout_seconds 2`, ms);
    check(`${what}: times out`, r.isError && text(r).includes("TIMEOUT"), text(r));
    check(`${what}: within 5 s of a 2 s limit`, ms < 5000, `${ms} ms`);
    const k = await evaluate(c, "*kept*");
    check(`${what}: the session answers with its state`, text(k) === "=> 42", text(k));
  }
  for (const [what, code] of [["read-line from a FIFO", `(with-open-file (f ${JSON.stringify(fifo)}) (read-line f))`],
                              ["sleep", "(sleep 1000)"]]) {
    const ac = new AbortController();
    const t0 = Date.now();
    const p = evaluate(c, code, { timeout_seconds: 3600 }, { signal: ac.signal }).catch((e) => e);
    await sleep(500);
    ac.abort();
    await p;
    const k = await evaluate(c, "*kept*");
    const ms = Date.now() - t0 - 500;
    timing(`${what}: cancelled to the next answer`, ms);
    check(`${what}: after notifications/cancelled the next call answers`, text(k) === "=> 42", text(k));
    check(`${what}: within 5 s of the cancellation`, ms < 5000, `${ms} ms`);
  }
});

// ---- raw child processes: stdin, signals, the protocol stream ----
function start(args = []) {
  const child = spawn(bin, ["mcp", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const s = { child, lines: [], waiters: [], buf: "", stderr: "" };
  child.stdout.on("data", (d) => {
    s.buf += d.toString();
    let i;
    while ((i = s.buf.indexOf("\n")) >= 0) {
      s.lines.push(s.buf.slice(0, i));
      s.buf = s.buf.slice(i + 1);
      for (const w of s.waiters.splice(0)) w();
    }
  });
  child.stdout.on("error", () => {});
  child.stdin.on("error", () => {});
  child.stderr.on("data", (d) => (s.stderr += d.toString()));
  s.exited = new Promise((res) => child.on("exit", (code, signal) => res({ code, signal, at: Date.now() })));
  s.send = (obj) => child.stdin.write((typeof obj === "string" ? obj : JSON.stringify(obj)) + "\n");
  // the next response with ID (notifications and other responses are skipped)
  s.response = async (id, ms = 20000) => {
    const end = Date.now() + ms;
    for (;;) {
      const k = s.lines.findIndex((l) => { try { return JSON.parse(l).id === id; } catch { return false; } });
      if (k >= 0) return JSON.parse(s.lines.splice(k, 1)[0]);
      const left = end - Date.now();
      if (left <= 0) return null;
      await Promise.race([new Promise((r) => s.waiters.push(r)), sleep(left)]);
    }
  };
  s.init = async () => {
    s.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "io", version: "1" } } });
    await s.response(0);
    s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  };
  s.call = (id, code, extra = {}) =>
    s.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code, ...extra } } });
  s.exitWithin = async (ms) => Promise.race([s.exited, sleep(ms).then(() => null)]);
  return s;
}
const exitOk = (e) => e && e.code === 0 && e.signal === null;

// closing stdin during a long evaluation stops it; the server exits within a second (bound: 5 s)
{
  const s = start();
  await s.init();
  s.call(1, "(loop)", { timeout_seconds: 3600 });
  await sleep(700);
  const t0 = Date.now();
  s.child.stdin.end();
  const e = await s.exitWithin(10000);
  timing("stdin closed during (loop) to exit", e ? e.at - t0 : 10000);
  check("stdin closed during (loop): the server exits with status 0", exitOk(e), JSON.stringify(e));
  check("stdin closed during (loop): within 5 s", e && e.at - t0 < 5000, e && `${e.at - t0} ms`);
  if (!e) s.child.kill("SIGKILL");
}

// requests written before the end of input are still answered
{
  const s = start();
  s.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "io", version: "1" } } });
  s.call(1, "(progn (sleep 0.2) (+ 1 2))");
  s.child.stdin.end();
  const r = await s.response(1);
  check("a request sent before the end of input is answered", r && text(r.result) === "=> 3", JSON.stringify(r));
  check("then the server exits with status 0", exitOk(await s.exitWithin(10000)));
}

// SIGINT interrupts the running evaluation; the session and the server go on
{
  const s = start();
  await s.init();
  s.call(1, "(defvar *kept* 42)");
  await s.response(1);
  s.call(2, "(loop)", { timeout_seconds: 3600 });
  await sleep(700);
  const t0 = Date.now();
  s.child.kill("SIGINT");
  const r = await s.response(2, 10000);
  timing("SIGINT to the interrupted result", Date.now() - t0);
  check("SIGINT: the evaluation ends as interrupted", r && r.result && r.result.isError && /INTERRUPTED/.test(text(r.result)), JSON.stringify(r));
  s.call(3, "*kept*");
  const k = await s.response(3);
  check("SIGINT: the session keeps its state", k && text(k.result) === "=> 42", JSON.stringify(k));
  s.child.kill("SIGINT");   // nothing running: ignored, with a warning
  await sleep(300);
  s.send({ jsonrpc: "2.0", id: 4, method: "ping" });
  check("SIGINT while idle: the server goes on", (await s.response(4)) !== null);
  s.child.stdin.end();
  check("SIGINT: exit 0 at the end of input", exitOk(await s.exitWithin(10000)));
}

// SIGTERM and SIGHUP end the server cleanly (status 0), during an evaluation or idle
for (const [sig, busy] of [["SIGTERM", true], ["SIGHUP", true], ["SIGTERM", false], ["SIGHUP", false]]) {
  const s = start();
  await s.init();
  if (busy) { s.call(1, "(loop)", { timeout_seconds: 3600 }); await sleep(700); }
  const t0 = Date.now();
  s.child.kill(sig);
  const e = await s.exitWithin(10000);
  timing(`${sig} ${busy ? "during (loop)" : "while idle"} to exit`, e ? e.at - t0 : 10000);
  check(`${sig} ${busy ? "during an evaluation" : "while idle"}: exit status 0`, exitOk(e), JSON.stringify(e) + s.stderr);
  check(`${sig} ${busy ? "during an evaluation" : "while idle"}: within 5 s`, e && e.at - t0 < 5000);
  if (!e) s.child.kill("SIGKILL");
}

// a client that closes the server's output (SIGPIPE on the next write) ends the server cleanly
{
  const s = start();
  await s.init();
  s.call(1, "(loop)", { timeout_seconds: 3600 });
  await sleep(700);
  const t0 = Date.now();
  s.child.stdout.destroy();
  const e = await s.exitWithin(10000);
  timing("output closed during (loop) to exit", e ? e.at - t0 : 10000);
  check("output closed: the server is not killed by SIGPIPE and exits 0", exitOk(e), JSON.stringify(e));
  check("output closed: within 5 s", e && e.at - t0 < 5000);
  if (!e) s.child.kill("SIGKILL");
}

// ---- input: a huge message is read in linear time; the limit; strict UTF-8 ----
{
  const s = start();
  await s.init();
  // Linear, not quadratic, reading: a message four times longer must take well under sixteen
  // times as long. A ratio, not a bound in seconds, so that a loaded machine does not fail it.
  const answer = async (id, n) => {
    const t0 = Date.now();
    s.call(id, `(length "${"x".repeat(n)}")`, { timeout_seconds: 120 });
    const r = await s.response(id, 120000);
    return { r, ms: Date.now() - t0 };
  };
  const small = await answer(1, 15 << 20);
  const big = await answer(2, 60 << 20);
  timing("a 15 MB message to its answer", small.ms);
  timing("a 60 MB message to its answer", big.ms);
  check("a 60 MB message is answered", big.r && text(big.r.result) === `=> ${60 << 20}`, JSON.stringify(big.r).slice(0, 300));
  check("a 60 MB message: under 10 times the time of a 15 MB one, plus 2 s (quadratic reading gives 16)",
        big.ms < 10 * small.ms + 2000, `${small.ms} ms and ${big.ms} ms`);
  s.child.stdin.end();
  check("huge message: exit 0", exitOk(await s.exitWithin(30000)));
}
{
  const s = start(["--max-message", "1M"]);
  await s.init();
  s.call(1, `(length "${"y".repeat(2 << 20)}")`);
  const r = await s.response(1);
  check("over --max-message: a JSON-RPC error with the request's id", r && r.error && r.error.code === -32600 && /over the limit of 1048576 bytes/.test(r.error.message), JSON.stringify(r));
  // the rest of the stream is still read message by message, also when an oversized one arrives in pieces
  const half = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: `"${"z".repeat(3 << 20)}"` } } });
  s.child.stdin.write(half.slice(0, 1 << 20));
  await sleep(100);
  s.child.stdin.write(half.slice(1 << 20) + "\n");
  s.call(3, "(+ 1 2)");
  const r2 = await s.response(2);
  const r3 = await s.response(3);
  check("oversized in pieces: answered with its id", r2 && r2.error && r2.error.code === -32600, JSON.stringify(r2));
  check("after oversized messages the server stays in sync", r3 && text(r3.result) === "=> 3", JSON.stringify(r3));
  // one message in one-byte writes
  const small = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(list \"é\" (+ 2 2))" } } }) + "\n";
  for (const b of Buffer.from(small)) { s.child.stdin.write(Buffer.from([b])); }
  const r4 = await s.response(4);
  check("a message written one byte at a time", r4 && text(r4.result) === '=> ("é" 4)', JSON.stringify(r4));
  // not UTF-8: overlong "/", a surrogate, a lone continuation byte, a cut sequence
  const bad = [["overlong C0 AF", [0xc0, 0xaf]], ["surrogate ED A0 80", [0xed, 0xa0, 0x80]], ["beyond U+10FFFF", [0xf4, 0x90, 0x80, 0x80]], ["stray 80", [0x80]], ["cut E2 82", [0xe2, 0x82]]];
  let id = 10;
  for (const [what, bytes] of bad) {
    const pre = Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"evaluate-lisp","arguments":{"code":"(char-code (char \\"`);
    const post = Buffer.from(`\\" 0))"}}}\n`);
    s.child.stdin.write(Buffer.concat([pre, Buffer.from(bytes), post]));
    const r = await s.response(id);
    check(`invalid UTF-8 (${what}): -32700 with the id`, r && r.error && r.error.code === -32700 && /UTF-8/.test(r.error.message), JSON.stringify(r));
    id++;
  }
  s.call(20, "(char-code (char \"/\" 0))");
  const r20 = await s.response(20);
  check("after invalid UTF-8 the server stays in sync", r20 && text(r20.result) === "=> 47", JSON.stringify(r20));
  s.child.stdin.end();
  check("input limits: exit 0", exitOk(await s.exitWithin(10000)));
}

rmSync(dir, { recursive: true, force: true });
console.log(`e2e-io: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(0);
