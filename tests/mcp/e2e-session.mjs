// e2e-session.mjs: sessions that survive (issue 18) with the official MCP TypeScript SDK client:
// `tinycl mcp --session-file FILE` killed (SIGKILL, no chance to save at exit) and started again
// finds every definition, package, variable, method, loaded system and the current package back;
// a burst of calls is saved within a second; reset-session is saved too; a damaged file is moved
// aside and the server starts fresh; checkpoints over HTTP stay with their own session.
// Usage: node e2e-session.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, resolve, join } from "node:path";
import { mkdtempSync, existsSync, readdirSync, writeFileSync, statSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

const bin = process.argv[2];
const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), "../systems");
let passed = 0, failed = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + String(detail).slice(0, 1500) : ""}`); }
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const sc = (r) => r.structuredContent || {};
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// Wait until FILE has been written at or after SINCE (Date.now() before the last change) and then
// not again for a second (a save that was under way when the last call came is followed by one
// holding it). The server saves within a second of the call that changed the session; on a loaded
// machine the write itself can end later, so the wait allows 15 s, and the time taken is printed.
async function savedAfter(file, since, what) {
  const mtime = () => (existsSync(file) ? statSync(file).mtimeMs : -1);
  const deadline = since + 15000;
  while (Date.now() < deadline) {
    const m = mtime();
    if (m >= since - 20) {
      console.log(`TIMING ${what} saved after ${((Date.now() - since) / 1000).toFixed(2)} s`);
      await sleep(1000);
      if (mtime() === m) return true;   // written by a rename: the file is whole
      continue;
    }
    await sleep(50);
  }
  return false;
}

async function connect(file) {
  const transport = new StdioClientTransport({
    command: bin, args: ["mcp", "--session-file", file], stderr: "pipe",
    env: { ...getDefaultEnvironment(), CL_SOURCE_REGISTRY: `${fixtures}//` },
  });
  let stderr = "";
  transport.stderr.on("data", (d) => { stderr += d; });
  const client = new Client({ name: "tinycl-e2e-session", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { client, transport, stderr: () => stderr };
}

const call = (c, name, args = {}) => c.callTool({ name, arguments: args }, undefined, { timeout: 300000 });
const evaluate = (c, code) => call(c, "evaluate-lisp", { code });
const value = async (c, code) => {
  const r = await evaluate(c, code);
  return r.isError ? "ERROR: " + text(r) : (sc(r).values || [])[0];
};

// A server killed outright: nothing is saved at exit, only what the debounced writes saved.
function kill(s) {
  const pid = s.transport.pid;
  if (pid) process.kill(pid, "SIGKILL");
  return s.client.close().catch(() => {});
}

async function step(name, fn) {
  try { await fn(); } catch (e) { check(`${name}: ran to the end`, false, String((e && e.stack) || e)); }
}

const dir = mkdtempSync(join(tmpdir(), "tinycl-e2e-session-"));
const file = join(dir, "session.state");

await step("kill and restart", async () => {
  let s = await connect(file);
  check("no file before the first change", !existsSync(file));
  const made = await evaluate(s.client,
    "(defpackage :inventory (:use :cl) (:export #:stock)) (in-package :inventory)" +
    "(defvar *items* (list :apple :pear)) (defparameter *limit* 10)" +
    "(defclass item () ((name :initarg :name :reader name)))" +
    "(defgeneric describe-item (x)) (defmethod describe-item ((i item)) (format nil \"item ~a\" (name i)))" +
    "(defun stock (n) (* n *limit*)) (defmacro twice (x) `(progn ,x ,x))");
  check("definitions made", !made.isError, text(made));
  const load = await call(s.client, "load-system", { system: "fix-clos" });
  check("a system loaded", !load.isError, text(load));
  const changed = Date.now();
  await evaluate(s.client, "(setf *limit* 12) (push :plum *items*)");
  const before = text(await call(s.client, "list-definitions"));
  check("the file is written after the last change", await savedAfter(file, changed, "the first session"));
  await kill(s);

  s = await connect(file);
  check("restarted in the current package", (await value(s.client, "(package-name *package*)")) === "\"INVENTORY\"");
  check("functions and variables back", (await value(s.client, "(list (stock 2) *items*)")) === "(24 (:PLUM :APPLE :PEAR))");
  check("classes and methods back",
    (await value(s.client, "(describe-item (make-instance 'item :name \"x\"))")) === "\"item x\"");
  check("macros back", (await value(s.client, "(macroexpand-1 '(twice 1))")) === "(PROGN 1 1)");
  check("the loaded system works", (await value(s.client, "(fix-clos:area (fix-clos:make-circle 2))")) === "12");
  const systems = (sc(await call(s.client, "list-loaded-systems")).systems || []).map((x) => x.name);
  check("the loaded system is listed", systems.includes("fix-clos"), JSON.stringify(systems));
  const after = text(await call(s.client, "list-definitions"));
  check("the same list-definitions", after === before, after + "\n---\n" + before);
  const out = await evaluate(s.client, "(princ \"still talks\") 1");
  check("output is captured after the restore", sc(out).stdout === "still talks", JSON.stringify(sc(out)));

  // a burst of calls: each is saved within a second, the last one included
  let last = 0;
  for (let i = 0; i < 20; i++) { last = Date.now(); await evaluate(s.client, `(defparameter *burst* ${i})`); }
  check("a burst is saved", await savedAfter(file, last, "a burst"));
  await kill(s);
  s = await connect(file);
  check("the last of a burst is saved", (await value(s.client, "*burst*")) === "19");

  // reset-session is a change like any other
  const reset = Date.now();
  await call(s.client, "reset-session");
  check("a reset is written", await savedAfter(file, reset, "a reset"));
  await kill(s);
  s = await connect(file);
  check("a reset is saved", (await value(s.client, "(list (package-name *package*) (find-package :inventory))")) ===
    "(\"COMMON-LISP-USER\" NIL)");
  const denied = await value(s.client, `(handler-case (open "${file}") (error (e) (type-of e)))`);
  check("Lisp cannot open the session file", /ACCESS-DENIED/.test(denied), denied);
  await s.client.close();
});

await step("a damaged file is moved aside", async () => {
  const good = statSync(file).size;
  writeFileSync(file, Buffer.alloc(good > 4096 ? 4096 : good, 0x41));
  const s = await connect(file);
  check("the server starts fresh", (await value(s.client, "(+ 1 2)")) === "3");
  await sleep(200);
  check("it says why", /session file .* was refused: .*moved aside to/.test(s.stderr()), s.stderr());
  const aside = readdirSync(dir).filter((n) => n.startsWith("session.state.bad-"));
  check("the damaged file is moved aside", aside.length === 1, readdirSync(dir).join(" "));
  await s.client.close();
});

// ---- checkpoints over HTTP: each client session has its own ----

function startHttp() {
  return new Promise((res, rej) => {
    const p = spawn(bin, ["mcp", "--http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    const timer = setTimeout(() => rej(new Error("server did not start: " + err)), 15000);
    p.stderr.on("data", (d) => {
      err += d;
      const m = /serving Streamable HTTP at (http:\/\/\S+)/.exec(err);
      if (m) { clearTimeout(timer); res({ url: m[1], proc: p }); }
    });
  });
}

await step("checkpoints stay per session over HTTP", async () => {
  const { url, proc } = await startHttp();
  const clients = [];
  for (let i = 0; i < 3; i++) {
    const c = new Client({ name: `e2e-session-${i}`, version: "1" });
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(c);
  }
  await Promise.all(clients.map((c, i) => evaluate(c, `(defvar *me* ${i})`)));
  await Promise.all(clients.map((c, i) => call(c, "checkpoint-session", { name: "base" })));
  await Promise.all(clients.map((c, i) => evaluate(c, `(setf *me* ${i * 100}) (defun extra () ${i})`)));
  // only the first two go back
  await Promise.all(clients.slice(0, 2).map((c) => call(c, "restore-checkpoint", { name: "base" })));
  const got = await Promise.all(clients.map((c) => value(c, "(list *me* (fboundp 'extra))")));
  check("restored sessions are back, the other untouched", JSON.stringify(got) ===
    JSON.stringify(["(0 NIL)", "(1 NIL)", "(200 T)"]), JSON.stringify(got));
  const lists = await Promise.all(clients.map(async (c) => (sc(await call(c, "list-checkpoints")).checkpoints || []).length));
  check("each session lists its own checkpoints", lists.every((n) => n === 1), JSON.stringify(lists));
  await call(clients[2], "delete-checkpoint", { name: "base" });
  const r = await call(clients[0], "restore-checkpoint", { name: "base" });
  check("deleting one session's checkpoint leaves the others'", !r.isError, text(r));
  for (const c of clients) await c.close().catch(() => {});
  proc.kill("SIGTERM");
});

rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
