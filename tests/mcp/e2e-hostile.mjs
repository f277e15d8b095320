// e2e-hostile.mjs: inputs that used to crash, wedge or spoil a `tinycl mcp` session (issue 9),
// sent with the official MCP TypeScript SDK client: each must come back as a result, and the
// session must answer the next call with its state intact. The 200,000-character inputs are
// built here, not stored. Usage: node e2e-hostile.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.argv[2];
let passed = 0, failed = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + detail : ""}`); }
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const result = (r) => (r.structuredContent && r.structuredContent.values ? r.structuredContent.values[0] : null);
const errorType = (r) => (r.structuredContent && r.structuredContent.error ? r.structuredContent.error.type : null);
const warnings = (r) => JSON.stringify((r.structuredContent && r.structuredContent.warnings) || []);

async function scenario(name, fn) {
  let client;
  try {
    const transport = new StdioClientTransport({ command: bin, args: ["mcp"], stderr: "pipe" });
    client = new Client({ name: "tinycl-e2e-hostile", version: "1.0.0" });
    await client.connect(transport);
    await client.callTool({ name: "evaluate-lisp", arguments: { code: "(defun keep () 42)" } });
    await fn(client);
  } catch (e) {
    check(`${name}: ran to the end`, false, String((e && e.stack) || e));
  } finally {
    if (client) await client.close().catch(() => {});
  }
}

// A call, then (keep): the session must still answer, with the definition made before.
async function survives(c, label, code, want, extra = {}) {
  const r = await c.callTool({ name: "evaluate-lisp", arguments: { code, ...extra } }, undefined, { timeout: 60000 });
  check(`${label}: ${want.describe}`, want(r), text(r).slice(0, 300));
  const k = await c.callTool({ name: "evaluate-lisp", arguments: { code: "(keep)" } });
  check(`${label}: the session survives`, result(k) === "42", text(k).slice(0, 300));
  return r;
}
const isError = (type) => { const f = (r) => r.isError === true && errorType(r) === type; f.describe = `a ${type} result`; return f; };

await scenario("reader", async (c) => {
  // reader macros calling one another used to skip the depth check and overflow the C stack
  for (const p of ["#.", "#'", "#C", "#P", "#A", "#S", "#+sbcl ", "#-sbcl ", "`"])
    await survives(c, `200,000 ${JSON.stringify(p)} in one message`, p.repeat(200000) + "1", isError("READER-ERROR"));
  await survives(c, "#1=#1#", "(type-of (car '#1=#1#))", isError("READER-ERROR"));
});

await scenario("hangs", async (c) => {
  const circular = "(let ((a (list 1 2)) (b (list 1 2))) (setf (cddr a) a (cddr b) b)";
  await survives(c, "EQUAL on circular lists", `${circular} (equal a b))`, isError("TIMEOUT"), { timeout_seconds: 1 });
  await survives(c, "EQUALP on circular lists", `${circular} (equalp a b))`, isError("TIMEOUT"), { timeout_seconds: 1 });
  await survives(c, "EVAL of a circular form", "(let ((a (list 'list 2))) (setf (cddr a) a) (eval a))", isError("PROGRAM-ERROR"));
  await survives(c, "COMPILE of a circular form",
                 "(let ((a (list 'progn 2))) (setf (cddr a) a) (compile nil (list 'lambda () a)))", isError("PROGRAM-ERROR"));
  await survives(c, "a looping PRINT-OBJECT while the value prints",
                 "(defclass loops () ()) (defmethod print-object ((x loops) s) (loop)) (make-instance 'loops)",
                 isError("TIMEOUT"), { timeout_seconds: 1 });
  await survives(c, "a symbol macro expanding to itself", "(define-symbol-macro sm sm) sm", isError("TIMEOUT"), { timeout_seconds: 1 });
  await survives(c, "two symbol macros expanding to each other", "(symbol-macrolet ((a b) (b a)) a)", isError("TIMEOUT"), { timeout_seconds: 1 });
  // cancellation stops a loop in C as the time limit does
  const controller = new AbortController();
  const cancelled = c.callTool({ name: "evaluate-lisp", arguments: { code: `${circular} (equal a b))` } }, undefined,
                               { signal: controller.signal }).catch((err) => err);
  setTimeout(() => controller.abort("test cancels"), 500);
  check("cancelled EQUAL rejects on the client", (await cancelled) instanceof Error);
  const t0 = Date.now();
  const k = await c.callTool({ name: "evaluate-lisp", arguments: { code: "(keep)" } });
  check("cancelled EQUAL: the next call is answered at once", result(k) === "42" && Date.now() - t0 < 5000, text(k));
});

await scenario("settings", async (c) => {
  for (const [code, variable] of [["(setf *read-base* 1)", "*READ-BASE*"], ["(setf *readtable* nil)", "*READTABLE*"],
                                  ["(setf *readtable* 42)", "*READTABLE*"], ["(setf *print-base* 99)", "*PRINT-BASE*"]]) {
    const r = await c.callTool({ name: "evaluate-lisp", arguments: { code } });
    check(`${code}: the result warns that the session set ${variable} back`, warnings(r).includes(variable), warnings(r));
    const n = await c.callTool({ name: "evaluate-lisp", arguments: { code: "(+ 1 2)" } });
    check(`${code}: the next call reads and prints`, result(n) === "3", text(n));
  }
  const s = await c.callTool({ name: "evaluate-lisp", arguments: { code: "(setf *standard-output* 42)" } });
  check("(setf *standard-output* 42) warns", warnings(s).includes("*STANDARD-OUTPUT*"), warnings(s));
  const f = await c.callTool({ name: "evaluate-lisp", arguments: { code: "(format t \"hi\") 7" } });
  check("(format t ...) works again", !f.isError && f.structuredContent.stdout === "hi", text(f));
  const rs = await c.callTool({ name: "evaluate-lisp", arguments: { code: "(setf *read-suppress* t)" } });
  check("(setf *read-suppress* t) is allowed", !rs.isError, text(rs));
  const off = await c.callTool({ name: "evaluate-lisp", arguments: { code: "(setf *read-suppress* nil) (+ 1 2)" } });
  check("a call can turn *read-suppress* off again", result(off) === "3" && warnings(off).includes("*READ-SUPPRESS*"), text(off));
});

await scenario("reports", async (c) => {
  const bad = await survives(c, "a :report that errors",
    "(define-condition bad-report (error) () (:report (lambda (c s) (declare (ignore c s)) (error \"nope\")))) (error 'bad-report)",
    isError("BAD-REPORT"));
  check("a :report that errors: a fallback description", text(bad).includes("could not be printed"), text(bad));
  const loops = await survives(c, "a :report that loops",
    "(define-condition loop-report (error) () (:report (lambda (c s) (declare (ignore c s)) (loop)))) (error 'loop-report)",
    isError("LOOP-REPORT"));
  check("a :report that loops: a fallback description", text(loops).includes("could not be printed"), text(loops));
  const circ = await survives(c, "a circular datum in the report",
    "(let ((l (list 1 2))) (setf (cddr l) l) (error \"circular ~S\" l))", isError("SIMPLE-ERROR"));
  check("a circular datum in the report: described", text(circ).includes("circular (1 2 1 2"), text(circ).slice(0, 200));
});

console.log(`e2e-hostile: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(0);
