// e2e-results.mjs: exact and bounded results, seen through the official MCP TypeScript SDK client,
// which validates every structuredContent against the tool's outputSchema (after tools/list):
// errors of every kind carry structuredContent that says what the text says, NUL characters and
// lone surrogates come back exactly, floods stop at once, and one reply stays within its budget.
// Usage: node e2e-results.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.argv[2];
let passed = 0, failed = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + detail : ""}`); }
}

async function connect(args = []) {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp", ...args], stderr: "pipe" });
  const client = new Client({ name: "tinycl-e2e-results", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();   // the SDK validates structuredContent only for tools it has listed
  return client;
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const evaluate = (c, code, extra = {}) => c.callTool({ name: "evaluate-lisp", arguments: { code, ...extra } });

async function scenario(name, fn, args = []) {
  let client;
  try {
    client = await connect(args);
    await fn(client);
  } catch (e) {
    check(`${name}: ran to the end`, false, String(e && e.stack || e));
  } finally {
    if (client) await client.close().catch(() => {});
  }
}

// An error result: structuredContent present (validated by the SDK) and saying what the text says.
function checkError(label, r, type) {
  const st = r.structuredContent;
  check(`${label}: isError`, r.isError === true, JSON.stringify(r).slice(0, 300));
  check(`${label}: has structuredContent`, st && st.error, JSON.stringify(r).slice(0, 300));
  if (!st || !st.error) return;
  check(`${label}: type ${type}`, st.error.type === type, JSON.stringify(st.error).slice(0, 300));
  check(`${label}: text says the same type`, text(r).includes(`[ERROR] ${st.error.type}\n`), text(r).slice(0, 300));
  check(`${label}: text holds the message`, text(r).includes(st.error.message), `${st.error.message} / ${text(r).slice(0, 300)}`);
}

await scenario("errors", async (c) => {
  checkError("reader EOF", await evaluate(c, "(+ 1 2"), "END-OF-FILE");
  checkError("reader error", await evaluate(c, "(list cl:no-such-symbol-here)"), "READER-ERROR");
  checkError("runtime error", await evaluate(c, "(car 5)"), "TYPE-ERROR");
  checkError("unknown package", await evaluate(c, "1", { package: "NO-SUCH-PACKAGE" }), "PACKAGE-ERROR");
  checkError("timeout", await evaluate(c, "(loop)", { timeout_seconds: 0.3 }), "TIMEOUT");
  checkError("missing code", await c.callTool({ name: "evaluate-lisp", arguments: {} }), "INVALID-ARGUMENT");
  checkError("bad timeout", await evaluate(c, "1", { timeout_seconds: "soon" }), "INVALID-ARGUMENT");
  checkError("bad limit", await evaluate(c, "1", { max_output_chars: 1.5 }), "INVALID-ARGUMENT");
  checkError("exit", await evaluate(c, "(exit)"), "EXIT-NOT-AVAILABLE");
  checkError("output limit", await evaluate(c, "(loop (princ 1))", { max_output_chars: 100 }), "OUTPUT-LIMIT");
  checkError("list-definitions unknown package",
             await c.callTool({ name: "list-definitions", arguments: { package: "NO-SUCH-PACKAGE" } }), "PACKAGE-ERROR");
  checkError("list-definitions bad type", await c.callTool({ name: "list-definitions", arguments: { type: 7 } }), "INVALID-ARGUMENT");
  checkError("reset bad systems", await c.callTool({ name: "reset-session", arguments: { systems: 1 } }), "INVALID-ARGUMENT");
  checkError("load-system no name", await c.callTool({ name: "load-system", arguments: {} }), "INVALID-ARGUMENT");
  checkError("load-system missing", await c.callTool({ name: "load-system", arguments: { system: "no-such-system-xyz" } }),
             "QUICKLISP-CLIENT:SYSTEM-NOT-FOUND");
  checkError("describe-system no name", await c.callTool({ name: "describe-system", arguments: { system: "" } }), "INVALID-ARGUMENT");
  checkError("list-local-systems bad limit",
             await c.callTool({ name: "list-local-systems", arguments: { limit: 0 } }), "INVALID-ARGUMENT");
  const ok = await c.callTool({ name: "reset-session", arguments: {} });
  check("reset has error null", ok.structuredContent && ok.structuredContent.error === null, JSON.stringify(ok));
});

await scenario("positions", async (c) => {
  const r = await evaluate(c, "(defvar *x* 1)\n(setf *x* 2) (car *x*)\n(setf *x* 3)");
  const e = r.structuredContent.error;
  check("runtime error: form 3", e.stage === "eval" && e.form.index === 3 && e.form.line === 2 && e.form.column === 14 &&
        e.form.text === "(car *x*)" && e.later_forms_skipped === true && r.structuredContent.forms_evaluated === 2, JSON.stringify(e));
  check("runtime error: text names it", text(r).includes("Form 3 (line 2, column 14) failed: (car *x*)\nThe forms after it were not evaluated."), text(r));
  const v = await evaluate(c, "*x*");
  check("later forms were not evaluated", v.structuredContent.values[0] === "2", text(v));
  const rd = await evaluate(c, "(setf *x* 4)\n(list 1 2\n   #<bad>)");
  const re = rd.structuredContent.error;
  check("reader error: where", re.stage === "read" && re.form.index === 2 && re.form.line === 2 && re.form.column === 1 &&
        re.position.line === 3, JSON.stringify(re));
  check("reader error: text", /Reading form 2 \(line 2, column 1\) failed at line 3, column \d+; the form before it was evaluated\./.test(text(rd)), text(rd));
  const v2 = await evaluate(c, "*x*");
  check("forms before a reader error were evaluated", v2.structuredContent.values[0] === "4", text(v2));
});

await scenario("exact text", async (c) => {
  const nul = await evaluate(c, '(format nil "a~cb" (code-char 0))');
  check("NUL in a value", nul.structuredContent.values[0] === '"a\u0000b"' && text(nul) === '=> "a\u0000b"', JSON.stringify(nul.content));
  const code = await evaluate(c, '(list (length "a\u0000bc") (char-code (char "a\u0000bc" 1)))');
  check("NUL in the code", code.structuredContent.values[0] === "(4 0)", text(code));
  const sur = await evaluate(c, "(princ (string (code-char #xD800)))");
  check("lone surrogate in output", sur.structuredContent.stdout === "\ud800", JSON.stringify(sur.structuredContent.stdout));
  const pair = await evaluate(c, '(map (quote list) (function char-code) "\u{1F600}")');
  check("astral character", pair.structuredContent.values[0] === "(128512)", text(pair));
});

await scenario("floods", async (c) => {
  const t0 = Date.now();
  const r = await evaluate(c, '(loop (princ "spam "))');
  const ms = Date.now() - t0;
  check("flood stops within a second", ms < 1000, `${ms} ms`);
  check("flood is an output-limit error", r.isError && r.structuredContent.error.type === "OUTPUT-LIMIT" &&
        r.structuredContent.stdout.length === 100000, text(r).slice(-300));
  const vals = await evaluate(c, "(values-list (loop repeat 200 collect (make-string 90000 :initial-element #\\x)))");
  const size = JSON.stringify(vals).length;
  check("200 values of 90 KB: one bounded reply", size < 250000 && vals.structuredContent.note.includes("values were left out"), `${size}`);
  const warns = await evaluate(c, "(dotimes (i 300) (warn (make-string 180000 :initial-element #\\w)))");
  const wsize = JSON.stringify(warns).length;
  check("300 warnings: one bounded reply", wsize < 250000 && warns.structuredContent.note.includes("warnings were left out"), `${wsize}`);
  const after = await evaluate(c, "(+ 1 2)");
  check("session answers after floods", after.structuredContent.values[0] === "3", text(after));
});

await scenario("server limit", async (c) => {
  const r = await evaluate(c, "(princ (make-string 600 :initial-element #\\a))");
  check("--max-output-chars applies", r.isError && r.structuredContent.error.type === "OUTPUT-LIMIT" &&
        r.structuredContent.stdout.length === 500, text(r).slice(0, 200));
  const more = await evaluate(c, "(princ (make-string 600 :initial-element #\\a)) 1", { max_output_chars: 1000 });
  check("max_output_chars raises it for a call", !more.isError && more.structuredContent.stdout.length === 600, text(more).slice(0, 200));
}, ["--max-output-chars", "500"]);

console.log(`e2e-results: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
