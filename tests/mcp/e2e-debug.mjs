// e2e-debug.mjs: scripted sessions against `tinycl mcp` with the official MCP TypeScript SDK client,
// for issue 11's warnings, debugger and profiler: evaluate-lisp {debug: true} suspending at an
// unhandled error, invoke-restart (USE-VALUE, STORE-VALUE, CONTINUE, a RETRY the code made, ABORT),
// abort-evaluation, backtrace with locals, other calls while suspended, timeouts while suspended,
// bad arguments; profile; trace output; the analysis warnings with their positions.
// Usage: node e2e-debug.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.argv[2];
let passed = 0, failed = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + String(detail).slice(0, 1500) : ""}`); }
}

async function connect(args = ["mcp"]) {
  const transport = new StdioClientTransport({ command: bin, args, stderr: "pipe" });
  const client = new Client({ name: "tinycl-e2e-debug", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools(); // so that the client validates structuredContent against the output schemas
  return client;
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const sc = (r) => r.structuredContent || {};
const call = (c, name, args = {}) => c.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
const evaluate = (c, code, extra = {}) => call(c, "evaluate-lisp", { code, ...extra });
const debug = (c, code, extra = {}) => call(c, "evaluate-lisp", { code, debug: true, ...extra });
const value = (r) => (sc(r).values || [])[0];
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

async function scenario(name, fn, args) {
  let client;
  try {
    client = await connect(args);
    await fn(client);
  } catch (e) {
    check(`${name}: ran to the end`, false, String((e && e.stack) || e));
  } finally {
    if (client) await client.close().catch(() => {});
  }
}

await scenario("tools and schemas", async (c) => {
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ["invoke-restart", "abort-evaluation", "backtrace", "profile"]) check(`${n} is listed`, names.includes(n));
  const ev = tools.find((t) => t.name === "evaluate-lisp");
  check("evaluate-lisp takes debug", ev.inputSchema.properties.debug && ev.inputSchema.properties.debug.type === "boolean");
  const ir = tools.find((t) => t.name === "invoke-restart");
  check("invoke-restart requires restart", ir.inputSchema.required.includes("restart"));
  check("invoke-restart has an output schema", !!ir.outputSchema);
  check("backtrace is read-only", tools.find((t) => t.name === "backtrace").annotations.readOnlyHint === true);
});

await scenario("--tools debug offers only the debug group", async (c) => {
  const { tools } = await c.listTools();
  check("only the debug tools", tools.map((t) => t.name).sort().join(",") === "abort-evaluation,backtrace,invoke-restart,profile",
        tools.map((t) => t.name).join(","));
}, ["mcp", "--tools", "debug"]);

await scenario("backtrace locals: parameters and the LET variables bound at the moment", async (c) => {
  await evaluate(c, `(defun lv (x) (let ((done (* x 10))) (print done))
                       (let* ((a (1+ x)) (a2 (list a))) (let ((b (car a))) (list a a2 b))))`);
  const r = await debug(c, "(lv 5)");
  check("suspended in car", r.isError && sc(r).suspended === true && sc(r).error.backtrace[0] === "(CAR 6)", text(r));
  const bt = await call(c, "backtrace", { locals: true });
  const f = sc(bt).frames[1];
  check("the frame of lv", f.call === "(LV 5)", JSON.stringify(f));
  check("x, a and a2; not done (its LET ended) nor b (not bound yet)",
        JSON.stringify(f.locals) === JSON.stringify(["X = 5", "A = 6", "A2 = (6)"]), JSON.stringify(f.locals));
  check("text lists them under the frame", text(bt).includes("1: (LV 5)\n    X = 5\n    A = 6\n    A2 = (6)"), text(bt));
  await call(c, "abort-evaluation", {});
});

await scenario("use-value restart with values evaluated where the error happened", async (c) => {
  await evaluate(c, `(defun half (x) (restart-case (if (numberp x) (/ x 2) (error "not a number: ~S" x))
                       (use-value (v) :report "Use another value." (/ v 2))))`);
  const r = await debug(c, "(print :before) (list (half 'a) :after)");
  check("suspended", r.isError && sc(r).suspended === true, text(r));
  check("the condition", sc(r).error.type === "SIMPLE-ERROR" && sc(r).error.message === "not a number: A", JSON.stringify(sc(r).error));
  const rs = sc(r).restarts || [];
  check("restarts with name and report", rs.length === 2 && rs[0].name === "USE-VALUE" && rs[0].report === "Use another value."
        && rs[1].name === "ABORT", JSON.stringify(rs));
  check("frames: the innermost is the user's call", sc(r).error.backtrace[0] === "(HALF A)", JSON.stringify(sc(r).error.backtrace));
  check("text shows the debugger", text(r).includes("[DEBUGGER]") && text(r).includes("0: [USE-VALUE] Use another value."), text(r));
  check("output so far", sc(r).stdout.includes(":BEFORE"), sc(r).stdout);
  const bt = await call(c, "backtrace", { locals: true });
  check("backtrace with locals", sc(bt).frames[0].call === "(HALF A)" && sc(bt).frames[0].locals[0] === "X = A", text(bt));
  const other = await evaluate(c, "(* 6 7)");
  check("the session serves other calls meanwhile", value(other) === "42", text(other));
  const busy = await debug(c, "(car 1)");
  check("a second debug evaluation is refused clearly", busy.isError && sc(busy).error.type === "EVALUATION-SUSPENDED", text(busy));
  const few = await call(c, "invoke-restart", { restart: "use-value" });
  check("too few values: still suspended, with a note", sc(few).suspended && /takes 1 argument/.test(sc(few).note || ""), text(few));
  const bad = await call(c, "invoke-restart", { restart: "use-value", values: ["(car 'x)"] });
  check("a failing value form: still suspended", sc(bad).suspended && /failed/.test(sc(bad).note || ""), text(bad));
  const unknown = await call(c, "invoke-restart", { restart: "no-such-restart" });
  check("an unknown restart: still suspended", sc(unknown).suspended && /no restart/i.test(sc(unknown).note || ""), text(unknown));
  const done = await call(c, "invoke-restart", { restart: "USE-VALUE", values: ["(* 10 4)"] });
  check("continued to the end", !done.isError && value(done) === "(20 :AFTER)", text(done));
  const again = await call(c, "invoke-restart", { restart: "abort" });
  check("nothing suspended now", again.isError && sc(again).error.type === "NO-SUSPENDED-EVALUATION", text(again));
  const nobt = await call(c, "backtrace", {});
  check("backtrace without a suspension", nobt.isError && text(nobt).includes("NO-SUSPENDED-EVALUATION"), text(nobt));
});

await scenario("store-value, continue, retry, abort by number", async (c) => {
  let r = await debug(c, "(let ((x 'a)) (check-type x integer) (* x 2))");
  check("check-type suspends with STORE-VALUE", (sc(r).restarts || []).some((x) => x.name === "STORE-VALUE"), text(r));
  r = await call(c, "invoke-restart", { restart: "store-value", values: ["21"] });
  check("store-value continues", value(r) === "42", text(r));
  r = await debug(c, "(defvar *n* 0) (cerror \"Keep going.\" \"stopped at ~D\" 1) (incf *n*)");
  check("cerror offers CONTINUE", sc(r).restarts[0].name === "CONTINUE" && sc(r).restarts[0].report === "Keep going.", text(r));
  r = await call(c, "invoke-restart", { restart: 0 });
  check("continue by number", value(r) === "1", text(r));
  await evaluate(c, "(defvar *tries* 0)");
  r = await debug(c, `(loop (restart-case (progn (incf *tries*) (if (< *tries* 3) (error "try ~D" *tries*) (return *tries*)))
                             (retry () :report "Try again." nil)))`);
  check("a RETRY the code made", (sc(r).restarts || []).some((x) => x.name === "RETRY" && x.report === "Try again."), text(r));
  r = await call(c, "invoke-restart", { restart: "retry" });
  check("retry suspends again at the next error", sc(r).suspended && sc(r).error.message === "try 2", text(r));
  r = await call(c, "invoke-restart", { restart: "retry" });
  check("retry until it succeeds", value(r) === "3", text(r));
  r = await debug(c, "(car 5) (setq *n* 100)");
  check("a primitive's error shows (CAR 5)", sc(r).error.backtrace[0] === "(CAR 5)", text(r));
  r = await call(c, "abort-evaluation");
  check("abort-evaluation ends it", r.isError && sc(r).error.type === "ABORT", text(r));
  r = await evaluate(c, "*n*");
  check("the forms after the error did not run", value(r) === "1", text(r));
  r = await debug(c, "(error \"x\")");
  const abortIndex = sc(r).restarts.findIndex((x) => x.name === "ABORT");
  r = await call(c, "invoke-restart", { restart: abortIndex });
  check("the ABORT restart by number", r.isError && sc(r).error.type === "ABORT", text(r));
});

await scenario("timeouts, reset and bad arguments", async (c) => {
  let r = await debug(c, "(error \"waiting\")", { timeout_seconds: 1 });
  check("suspended with a short limit", sc(r).suspended === true, text(r));
  await sleep(1300);
  r = await evaluate(c, "(+ 1 1)");
  check("the session works after the limit passed", value(r) === "2", text(r));
  r = await call(c, "invoke-restart", { restart: "abort" });
  check("the suspended evaluation timed out", r.isError && sc(r).error.type === "TIMEOUT", text(r));
  r = await debug(c, "(error \"before reset\")");
  await call(c, "reset-session");
  r = await call(c, "abort-evaluation");
  check("reset ends a suspension", sc(r).error.type === "NO-SUSPENDED-EVALUATION", text(r));
  r = await debug(c, "(+ 1 2)");
  check("debug without an error is a plain evaluation", !r.isError && value(r) === "3", text(r));
  r = await call(c, "invoke-restart", {});
  check("restart is required", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
  r = await call(c, "invoke-restart", { restart: "abort", values: [1, 2] });
  check("values must be strings", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
  r = await evaluate(c, "1", { debug: "yes" });
  check("debug must be a boolean", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
  r = await call(c, "backtrace", { locals: 3 });
  check("locals must be a boolean", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
  r = await debug(c, "(let ((l (list 1 2))) (setf (cdr (cdr l)) l) (error \"circular ~A\" (length l)))");
  check("a circular argument suspends and prints within bounds", sc(r).suspended === true && text(r).length < 20000, text(r).slice(0, 300));
  await call(c, "abort-evaluation");
  r = await debug(c, "(defun deep (n) (if (= n 0) (error \"bottom\") (1+ (deep (1- n))))) (deep 500)");
  check("deep recursion suspends", sc(r).suspended === true, text(r).slice(0, 300));
  const bt = await call(c, "backtrace", {});
  check("every frame is listed", sc(bt).frames.length >= 60 && sc(bt).frames[0].call === "(DEEP 0)", sc(bt).frames.length);
  await call(c, "abort-evaluation");
  // a function's calls of itself in tail position run as a loop: one frame, the last arguments (as SBCL)
  r = await debug(c, "(defun loops (n) (if (= n 0) (error \"bottom\") (loops (1- n)))) (loops 500)");
  const lbt = await call(c, "backtrace", {});
  check("self tail calls show as one frame", sc(r).suspended === true &&
        sc(lbt).frames.filter((f) => f.call.startsWith("(LOOPS")).map((f) => f.call).join() === "(LOOPS 0)",
        JSON.stringify(sc(lbt).frames.slice(0, 4)));
  await call(c, "abort-evaluation");
  r = await debug(c, "(defun inf (n) (1+ (inf (1+ n)))) (inf 0)");
  check("stack exhaustion suspends", sc(r).suspended === true && sc(r).error.type === "STORAGE-CONDITION", text(r).slice(0, 300));
  r = await call(c, "abort-evaluation");
  check("and aborts cleanly from the headroom", r.isError && sc(r).error.type === "ABORT", text(r).slice(0, 300));
  r = await debug(c, "(make-array (expt 10 12))");
  check("heap exhaustion suspends", sc(r).suspended === true && sc(r).error.type === "STORAGE-CONDITION", text(r).slice(0, 300));
  r = await call(c, "abort-evaluation");
  check("and aborts", sc(r).error.type === "ABORT", text(r).slice(0, 300));
  r = await debug(c, "(loop)", { timeout_seconds: 1 });
  check("a runaway debug evaluation times out", r.isError && sc(r).error.type === "TIMEOUT", text(r).slice(0, 300));
});

await scenario("profile and trace", async (c) => {
  let r = await call(c, "profile", { code: "(defun fib (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (defun top () (fib 15) (make-list 1000)) (length (top))" });
  check("profile returns the value", value(r) === "1000", text(r));
  const p = sc(r).profile || [];
  const fib = p.find((e) => e.function === "FIB"), top = p.find((e) => e.function === "TOP");
  check("calls counted", fib && fib.calls === 1973 && top && top.calls === 1, JSON.stringify(p.slice(0, 5)));
  check("inclusive covers the callees", top && fib && top.inclusive_ms >= fib.inclusive_ms, JSON.stringify([top, fib]));
  check("the text has the table", text(r).includes("calls   incl ms   excl ms") && text(r).includes("FIB"), text(r));
  r = await call(c, "profile", { code: "(car 1)" });
  check("an error in profiled code is reported", r.isError && sc(r).error.type === "TYPE-ERROR", text(r));
  r = await call(c, "profile", { code: 5 });
  check("profile: bad code argument", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
  check("profile: the argument error has structuredContent", sc(r) && sc(r).error && sc(r).error.type === "INVALID-ARGUMENT" && Array.isArray(sc(r).profile), JSON.stringify(r));
  r = await call(c, "backtrace", { locals: "yes" });
  check("backtrace: the argument error has structuredContent", r.isError && sc(r) && sc(r).error && sc(r).error.type === "INVALID-ARGUMENT" && Array.isArray(sc(r).frames), JSON.stringify(r));
  r = await evaluate(c, "(defun sq (x) (* x x)) (trace sq) (sq 3)");
  check("trace output goes to [stdout], as in SBCL", value(r) === "9" && sc(r).stdout.includes("SQ") && !sc(r).stderr.includes("SQ"), JSON.stringify(sc(r)));
  r = await evaluate(c, "(untrace sq) (sq 4)");
  check("untrace", value(r) === "16" && !sc(r).stderr.includes("SQ"), JSON.stringify(sc(r)));
});

await scenario("warnings when code is defined", async (c) => {
  let r = await evaluate(c, "(defun w1 () (undefined-thing 1))\n(defun w2 (x) 1)\n(defun w3 () (car 1 2))\n(defun w4 () (later 1))\n(defun later (y) y)");
  const ws = sc(r).warnings || [];
  check("values are not hidden", value(r) === "LATER", text(r));
  check("undefined function (deferred, as SBCL)", ws.some((w) => w.type === "STYLE-WARNING" && w.message === "undefined function: COMMON-LISP-USER::UNDEFINED-THING" && w.line === 1), JSON.stringify(ws));
  check("unused variable", ws.some((w) => w.type === "STYLE-WARNING" && w.message === "The variable X is defined but never used." && w.line === 2), JSON.stringify(ws));
  check("wrong argument count", ws.some((w) => w.type === "WARNING" && w.message === "The function CAR is called with two arguments, but wants exactly one." && w.line === 3), JSON.stringify(ws));
  check("defined later in the same call: no warning", !ws.some((w) => w.message.includes("LATER")), JSON.stringify(ws));
  check("the text shows them", text(r).includes("[warning] STYLE-WARNING: undefined function: COMMON-LISP-USER::UNDEFINED-THING"), text(r));
  r = await evaluate(c, "(defun w5 () (defined-in-next-call))");
  check("a name defined only in a later call is reported", (sc(r).warnings || []).some((w) => w.message.includes("DEFINED-IN-NEXT-CALL")), text(r));
  r = await evaluate(c, "(handler-bind ((style-warning #'muffle-warning)) (eval '(defun w6 (z) 1)))");
  check("muffle-warning works on them", (sc(r).warnings || []).length === 0, text(r));
  r = await evaluate(c, "(with-compilation-unit () (defun w7 () (not-yet)) (defun not-yet () 1))");
  check("with-compilation-unit: defined before its end", (sc(r).warnings || []).length === 0, text(r));
  r = await evaluate(c, "(defun w8 () (+ *no-such-var* 1))");
  check("undefined variable", (sc(r).warnings || []).some((w) => w.type === "WARNING" && w.message === "undefined variable: COMMON-LISP-USER::*NO-SUCH-VAR*"), text(r));
  r = await evaluate(c, "(defun kk (&key a) a) (defun w9 () (kk :b 1))");
  check("unknown keyword", (sc(r).warnings || []).some((w) => w.message === ":B is not a known argument keyword."), text(r));
});

console.log(`e2e-debug: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(0);
