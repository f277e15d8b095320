// e2e.mjs: scripted sessions against `tinycl mcp` with the official MCP TypeScript SDK client.
// Implements the verifications of the seeds (package context, state persistence, session
// lifecycle) plus cancellation, timeouts and the tool schemas. Usage: node e2e.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.argv[2];
let passed = 0, failed = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + detail : ""}`); }
}

async function connect() {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], stderr: "pipe" });
  const client = new Client({ name: "tinycl-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const success = (r) => !r.isError;
// the seed's extract-result: the printed primary value of the last form
const result = (r) => {
  const vals = r.structuredContent ? r.structuredContent.values : text(r).split("\n").filter((l) => l.startsWith("=> ")).map((l) => l.slice(3));
  return vals.length ? vals[0] : null;
};

async function evaluate(client, code, extra = {}) {
  return client.callTool({ name: "evaluate-lisp", arguments: { code, ...extra } });
}
async function listDefinitions(client, args = {}) {
  return text(await client.callTool({ name: "list-definitions", arguments: args }));
}
async function reset(client, args = {}) {
  return client.callTool({ name: "reset-session", arguments: args });
}

async function scenario(name, fn) {
  let client;
  try {
    client = await connect();
    await fn(client);
  } catch (e) {
    check(`${name}: ran to the end`, false, String(e && e.stack || e));
  } finally {
    if (client) await client.close().catch(() => {});
  }
}

async function assertFreshSession(client, label) {
  const defs = await listDefinitions(client);
  check(`${label}: no user definitions`, defs.includes("No user definitions"), defs);
  const pkg = await evaluate(client, "(package-name *package*)");
  check(`${label}: package is CL-USER`, result(pkg) === '"COMMON-LISP-USER"', text(pkg));
  const r1 = await evaluate(client, "(test-fn 21)");
  check(`${label}: test-fn undefined`, r1.isError && text(r1).includes("UNDEFINED-FUNCTION"), text(r1));
  const r2 = await evaluate(client, "*test-var*");
  check(`${label}: *test-var* unbound`, r2.isError && text(r2).includes("UNBOUND-VARIABLE"), text(r2));
  const r3 = await evaluate(client, "(find-package :test-pkg)");
  check(`${label}: test-pkg gone`, success(r3) && result(r3) === "NIL", text(r3));
}

// seed 000: package context E1-E7
await scenario("package-context", async (c) => {
  const r1 = await evaluate(c, "(defpackage :test-pkg (:use :cl)) (in-package :test-pkg)");
  check("pkg E1 defpackage+in-package", success(r1), text(r1));
  const r2 = await evaluate(c, "(package-name *package*)");
  check("pkg E2 still in TEST-PKG", result(r2) === '"TEST-PKG"', text(r2));
  const r3 = await evaluate(c, "(defun local-fn () :in-test-pkg)");
  check("pkg E3 defun", success(r3), text(r3));
  const r4 = await evaluate(c, "(symbol-package 'local-fn)");
  check("pkg E4 symbol in TEST-PKG", success(r4) && text(r4).includes("TEST-PKG"), text(r4));
  const r5 = await evaluate(c, "(in-package :cl-user)");
  check("pkg E5 back to CL-USER", success(r5), text(r5));
  const r6 = await evaluate(c, "(package-name *package*)");
  check("pkg E6 in CL-USER", result(r6) === '"COMMON-LISP-USER"', text(r6));
  const r7 = await evaluate(c, "(test-pkg::local-fn)");
  check("pkg E7 qualified call", success(r7) && result(r7) === ":IN-TEST-PKG", text(r7));
  // the seed's E7 uses a single colon on an internal symbol: as in SBCL that is a reader error
  const r7b = await evaluate(c, "(test-pkg:local-fn)");
  check("pkg E7 single colon on internal symbol is a reader error", r7b.isError && text(r7b).includes("READER-ERROR"), text(r7b));
  const r8 = await evaluate(c, "(in-package :no-such-package)");
  check("pkg unknown package is PACKAGE-ERROR", r8.isError && text(r8).includes("PACKAGE-ERROR") &&
        text(r8).includes('The name "NO-SUCH-PACKAGE" does not designate any package.'), text(r8));
  const r9 = await evaluate(c, "(package-name *package*)");
  check("pkg error keeps package", result(r9) === '"COMMON-LISP-USER"', text(r9));
  // setf *package* persists too
  await evaluate(c, "(setf *package* (find-package :test-pkg))");
  const r10 = await evaluate(c, "(package-name *package*)");
  check("pkg setf *package* persists", result(r10) === '"TEST-PKG"', text(r10));
  await evaluate(c, "(in-package :cl-user)");
  // use-package and export persist
  await evaluate(c, "(in-package :test-pkg) (export 'local-fn) (in-package :cl-user) (use-package :test-pkg)");
  const r11 = await evaluate(c, "(local-fn)");
  check("pkg use-package persists", success(r11) && result(r11) === ":IN-TEST-PKG", text(r11));
});

// seed 000: the package parameter does not persist; an in-band change does
await scenario("package-parameter", async (c) => {
  const r1 = await evaluate(c, "(package-name *package*)");
  check("param: starts in CL-USER", result(r1) === '"COMMON-LISP-USER"', text(r1));
  await evaluate(c, "(defpackage :other (:use :cl))");
  const r2 = await evaluate(c, "(defun temp () :test) (package-name *package*)", { package: "OTHER" });
  check("param: evaluated in OTHER", success(r2) && result(r2) === '"OTHER"', text(r2));
  const r2b = await evaluate(c, "(other::temp)");
  check("param: definition went to OTHER", success(r2b) && result(r2b) === ":TEST", text(r2b));
  const r3 = await evaluate(c, "(package-name *package*)");
  check("param: does not persist", result(r3) === '"COMMON-LISP-USER"', text(r3));
  const r4 = await evaluate(c, "(in-package :keyword)");
  check("param: in-band to KEYWORD", success(r4), text(r4));
  const r5 = await evaluate(c, "(cl:package-name cl:*package*)");
  check("param: in-band change persists", result(r5) === '"KEYWORD"', text(r5));
  await reset(c);
  const r6 = await evaluate(c, "(package-name *package*)");
  check("param: reset returns to CL-USER", result(r6) === '"COMMON-LISP-USER"', text(r6));
});

// seed 002: state persistence E1-E6 and every kind of definition
await scenario("state-persistence", async (c) => {
  const r1 = await evaluate(c, "(defun test-fn (x) (* x 2))");
  check("persist E1", success(r1), text(r1));
  const r2 = await evaluate(c, "(test-fn 21)");
  check("persist E2", result(r2) === "42", text(r2));
  const r3 = await evaluate(c, "(defvar *test-var* 100)");
  check("persist E3", success(r3), text(r3));
  const r4 = await evaluate(c, "*test-var*");
  check("persist E4", result(r4) === "100", text(r4));
  const r5 = await evaluate(c, "(defun test-fn2 (x) (test-fn (+ x 1)))");
  check("persist E5", success(r5), text(r5));
  const r6 = await evaluate(c, "(test-fn2 20)");
  check("persist E6", result(r6) === "42", text(r6));
  const kinds = [
    ["(defmacro when-debug (&body b) `(progn ,@b))", "(macro-function 'when-debug)"],
    ["(defparameter *p* 3)", "*p*"],
    ["(defconstant +z+ 7)", "+z+"],
    ["(setf loose 1)", "loose"],
    ["(defclass point () ((x :initarg :x :reader point-x)))", "(point-x (make-instance 'point :x 5))"],
    ["(defstruct person name)", "(person-name (make-person :name \"a\"))"],
    ["(defgeneric area (s))", "(fboundp 'area)"],
    ["(defmethod area ((p point)) 1)", "(area (make-instance 'point :x 1))"],
  ];
  for (const [def, use] of kinds) {
    const d = await evaluate(c, def);
    check(`persist define ${def}`, success(d), text(d));
    const u = await evaluate(c, use);
    check(`persist use ${use}`, success(u) && result(u) !== "NIL", text(u));
  }
  const defs = await listDefinitions(c);
  for (const needle of ["[Functions]", "- TEST-FN (X)", "- TEST-FN2 (X)", "[Variables]", "- *TEST-VAR* = 100", "[Macros]", "- WHEN-DEBUG (&BODY B)", "[Classes]", "POINT"])
    check(`list-definitions shows ${needle}`, defs.includes(needle), defs);
  const fns = await listDefinitions(c, { type: "functions" });
  check("list-definitions type=functions", fns.includes("TEST-FN") && !fns.includes("*TEST-VAR*"), fns);
});

// seed 003: full reset cycle, idempotence, completeness, reset after errors
await scenario("session-lifecycle", async (c) => {
  await assertFreshSession(c, "lifecycle phase 1");
  for (const code of ["(defun test-fn (x) (* x 2))", "(defvar *test-var* 100)", "(defmacro test-mac (x) `(+ ,x 1))",
                      "(defclass test-cls () ())", "(defpackage :test-pkg (:use :cl))", "(in-package :test-pkg)"]) {
    const r = await evaluate(c, code);
    check(`lifecycle accumulate ${code}`, success(r), text(r));
  }
  const defs = await listDefinitions(c);
  for (const needle of ["TEST-FN", "*TEST-VAR*", "TEST-MAC", "TEST-CLS"])
    check(`lifecycle list shows ${needle}`, defs.includes(needle), defs);
  const pkg = await evaluate(c, "(package-name *package*)");
  check("lifecycle in TEST-PKG", result(pkg) === '"TEST-PKG"', text(pkg));
  const rr = await reset(c);
  check("lifecycle reset text", text(rr).includes("Session reset. All definitions cleared.") && text(rr).includes("Current package: CL-USER"), text(rr));
  await assertFreshSession(c, "lifecycle after reset");
  // idempotence
  await evaluate(c, "(defun foo () 1)");
  const a = await reset(c);
  const b = await reset(c);
  check("reset idempotent", success(a) && success(b) && text(a) === text(b), text(b));
  await assertFreshSession(c, "after double reset");
  // completeness
  for (const code of ["(defun f1 () 1)", "(defun f2 () 2)", "(defvar *v1* 10)", "(defvar *v2* 20)", "(defmacro m1 () 1)",
                      "(defclass c1 () ())", "(defpackage :p1 (:use :cl))", "(defpackage :p2 (:use :cl))"])
    await evaluate(c, code);
  await reset(c);
  for (const [sym, test] of [["f1", "(fboundp 'f1)"], ["f2", "(fboundp 'f2)"], ["*v1*", "(boundp '*v1*)"], ["*v2*", "(boundp '*v2*)"],
                             ["m1", "(macro-function 'm1)"], ["c1", "(find-class 'c1 nil)"], ["p1", "(find-package :p1)"], ["p2", "(find-package :p2)"]]) {
    const r = await evaluate(c, test);
    check(`reset completeness ${sym}`, success(r) && result(r) === "NIL", text(r));
  }
  // reset after errors
  await evaluate(c, "(defun g () 1)");
  await evaluate(c, "(error \"boom\")");
  await evaluate(c, "(car 1)");
  const re = await reset(c);
  check("reset after errors", success(re), text(re));
  await assertFreshSession(c, "after errors");
  // standard variables changed by the user come back
  await evaluate(c, "(setf *print-base* 16)");
  await reset(c);
  const pb = await evaluate(c, "*print-base*");
  check("reset restores *print-base*", result(pb) === "10", text(pb));
});

// errors keep state; cancellation and timeouts keep state
await scenario("robustness", async (c) => {
  await evaluate(c, "(defun keep () 42)");
  const e = await evaluate(c, "(error \"boom\")");
  check("error result is isError", e.isError && text(e).startsWith("[ERROR] SIMPLE-ERROR\nboom"), text(e));
  const k1 = await evaluate(c, "(keep)");
  check("state survives an error", result(k1) === "42", text(k1));
  const t = await evaluate(c, "(loop)", { timeout_seconds: 1 });
  check("timeout is an error naming the limit", t.isError && text(t).includes("TIMEOUT") && text(t).includes("1 seconds"), text(t));
  const k2 = await evaluate(c, "(keep)");
  check("state survives a timeout", result(k2) === "42", text(k2));
  const controller = new AbortController();
  const pending = evaluate(c, "(loop)", {}).catch((err) => err);
  const cancelled = c.callTool({ name: "evaluate-lisp", arguments: { code: "(progn (defvar *before-cancel* 1) (loop))" } }, undefined,
                               { signal: controller.signal }).catch((err) => err);
  void pending;
  setTimeout(() => controller.abort("test cancels"), 500);
  const cr = await cancelled;
  check("cancelled call rejects on the client", cr instanceof Error, String(cr));
  const k3 = await evaluate(c, "(keep)", { timeout_seconds: 5 });
  check("state survives cancellation", result(k3) === "42", text(k3));
  const big = await evaluate(c, "(let ((s (make-string 200000 :initial-element #\\x))) (write-string s) (length s))");
  check("huge output stops the evaluation with a note", big.isError && text(big).includes("[ERROR] OUTPUT-LIMIT") &&
        text(big).includes("[note] The result reached its limit of 100000 characters") &&
        big.structuredContent.stdout.length === 100000, text(big).slice(-300));
  const deep = await evaluate(c, "(defun inf (n) (+ 1 (inf n))) (inf 0)");
  check("infinite recursion is a STORAGE-CONDITION", deep.isError && text(deep).includes("STORAGE-CONDITION"), text(deep).slice(0, 200));
  const k4 = await evaluate(c, "(keep)");
  check("state survives stack exhaustion", result(k4) === "42", text(k4));
});

// the tool list and schemas
await scenario("tool-schemas", async (c) => {
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ["evaluate-lisp", "list-definitions", "reset-session"])
    check(`tool ${n} listed`, names.includes(n), names.join(","));
  for (const t of tools) {
    check(`tool ${t.name} has a description`, typeof t.description === "string" && t.description.length > 20);
    check(`tool ${t.name} input schema is an object schema`, t.inputSchema && t.inputSchema.type === "object");
    check(`tool ${t.name} has annotations`, t.annotations && typeof t.annotations.readOnlyHint === "boolean");
    // an agent reads every description: short, one voice (a verb first), every argument explained
    check(`tool ${t.name}'s description is compact`, t.description.length <= 470, t.description.length);
    check(`tool ${t.name}'s description starts with a verb`, /^(Evaluate|List|Return|Load|Describe|Find|Expand|Get|Continue|End|Show|Check|Replace|Run|Save|Delete)\b/.test(t.description), t.description);
    for (const [k, p] of Object.entries(t.inputSchema.properties || {}))
      check(`tool ${t.name} argument ${k} has a description`, typeof p.description === "string" && p.description.length > 0);
  }
  const total = tools.reduce((n, t) => n + t.description.length, 0);
  check("the descriptions of all the tools together stay compact", total <= 6200, total);
  const ev = tools.find((t) => t.name === "evaluate-lisp");
  check("evaluate-lisp requires code", ev && ev.inputSchema.required && ev.inputSchema.required.includes("code"));
  // the SDK validates structuredContent against outputSchema: a call that succeeds proves it conforms
  const r = await evaluate(c, "(list 1 2)");
  check("structuredContent conforms (validated by the SDK)", success(r) && r.structuredContent && r.structuredContent.values[0] === "(1 2)", JSON.stringify(r));
  const v = c.getServerVersion();
  check("serverInfo name", v && v.name === "tinycl", JSON.stringify(v));
  check("instructions present", typeof c.getInstructions() === "string" && c.getInstructions().includes("persist"));
});

// requests written all at once, the first while the interpreter is still booting: the server
// answers initialize without waiting for the boot, yet every response keeps the request order
{
  const { spawn } = await import("node:child_process");
  const child = spawn(bin, ["mcp"], { stdio: ["pipe", "pipe", "ignore"] });
  const msgs = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "order", version: "1" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(defvar *order* 7)" } } },
    { jsonrpc: "2.0", id: 4, method: "tools/list" },
    { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "*order*" } } },
    { jsonrpc: "2.0", id: 6, method: "no/such-method" },
  ];
  child.stdin.write(msgs.map((m) => JSON.stringify(m)).join("\n") + "\n");
  child.stdin.end();
  let out = "";
  child.stdout.on("data", (d) => { out += d; });
  await new Promise((r) => child.on("exit", r));
  const replies = out.split("\n").filter((l) => l).map((l) => JSON.parse(l));
  check("pipelined requests are answered in order", replies.map((r) => r.id).join(",") === "1,2,3,4,5,6", out.slice(0, 300));
  const last = replies.find((r) => r.id === 5);
  check("pipelined evaluation sees the earlier one", last && last.result && last.result.structuredContent.values[0] === "7", JSON.stringify(last));
}

console.log(`e2e: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(0);
