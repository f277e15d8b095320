// e2e-introspect.mjs: scripted sessions against `tinycl mcp` with the official MCP TypeScript SDK
// client, for the introspection tools (issue 11): describe-symbol, apropos, macroexpand,
// find-definitions, the who-* cross-reference and calls-who, inspect, documentation. Normal
// cases, unknown symbols and packages, bad arguments, huge and circular values; the
// cross-reference and source locations against the Debian alexandria and cl-ppcre sources,
// redefinition, removal and reset-session.
// Usage: node e2e-introspect.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync, existsSync } from "node:fs";

const bin = process.argv[2];
let passed = 0, failed = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + String(detail).slice(0, 1500) : ""}`); }
}

async function connect(args = ["mcp"]) {
  const transport = new StdioClientTransport({ command: bin, args, stderr: "pipe", env: getDefaultEnvironment() });
  const client = new Client({ name: "tinycl-e2e-introspect", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools(); // so that the client validates structuredContent against the output schemas
  return client;
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const sc = (r) => r.structuredContent || {};
const items = (r) => sc(r).items || [];
const names = (r) => items(r).map((i) => i.name);
const call = (c, name, args = {}) => c.callTool({ name, arguments: args }, undefined, { timeout: 300000 });
const evaluate = (c, code) => call(c, "evaluate-lisp", { code });

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

await scenario("describe-symbol and documentation", async (c) => {
  await evaluate(c, `(defun area (w h) "The area of a W by H rectangle." (* w h))
(defvar *scale* 3 "How much to scale.")
(defclass shape () ((name :initarg :name :reader shape-name :type string)))
(defgeneric draw (s))
(defmethod draw ((s shape)) (shape-name s))`);
  let r = await call(c, "describe-symbol", { symbol: "area" });
  check("describe a function", !r.isError && text(r).includes("[function] (W H)") && text(r).includes("The area of a W by H"), text(r));
  check("describe says where it was defined", text(r).includes("defined at evaluate-lisp call"), text(r));
  const f = items(r).find((i) => i.kind === "function");
  check("structured function item with its call location", f && f.location && f.location.call >= 1 && f.location.source.startsWith("(defun area"), JSON.stringify(items(r)));
  r = await call(c, "describe-symbol", { symbol: "*scale*" });
  check("describe a variable with its value", text(r).includes("[variable] 3") && text(r).includes("How much to scale"), text(r));
  r = await call(c, "describe-symbol", { symbol: "shape" });
  check("describe a class: superclasses and slots", text(r).includes("[class]") && text(r).includes("NAME initargs (:NAME) readers (SHAPE-NAME) type STRING"), text(r));
  r = await call(c, "describe-symbol", { symbol: "draw" });
  check("describe a generic function and its methods", text(r).includes("[generic-function] (S)") && text(r).includes("[method] ((SHAPE))"), text(r));
  r = await call(c, "describe-symbol", { symbol: "cl:if" });
  check("describe a special operator", text(r).includes("[special-operator]"), text(r));
  r = await call(c, "describe-symbol", { symbol: "when" });
  check("describe a CL macro defined in the stdlib", text(r).includes("[macro]") && text(r).includes("stdlib-lisp/boot.lisp:"), text(r));
  r = await call(c, "describe-symbol", { symbol: ":common-lisp" });
  check("describe a symbol naming a package", text(r).includes("[package] COMMON-LISP"), text(r));
  r = await call(c, "describe-symbol", { symbol: "no-such-symbol-xyz" });
  check("unknown symbol is an error that says so", r.isError && text(r).includes("No symbol named \"NO-SUCH-SYMBOL-XYZ\""), text(r));
  const after = await call(c, "apropos", { query: "NO-SUCH-SYMBOL-XYZ" });
  check("describing an unknown symbol does not intern it", text(after).startsWith("No symbols match"), text(after));
  r = await call(c, "describe-symbol", { symbol: "car", package: "NO-SUCH-PACKAGE" });
  check("unknown package is a PACKAGE-ERROR", r.isError && text(r).startsWith("[ERROR] PACKAGE-ERROR"), text(r));
  r = await call(c, "describe-symbol", { symbol: "nope:car" });
  check("unknown package prefix is a PACKAGE-ERROR", r.isError && text(r).includes("PACKAGE-ERROR"), text(r));
  r = await call(c, "describe-symbol", {});
  check("missing symbol is INVALID-ARGUMENT", r.isError && text(r).startsWith("[ERROR] INVALID-ARGUMENT"), text(r));
  r = await call(c, "describe-symbol", { symbol: 42 });
  check("non-string symbol is INVALID-ARGUMENT", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
  await evaluate(c, `(defvar *big* (make-list 100000 :initial-element 7)) (defvar *circ* (let ((l (list 1 2))) (setf (cddr l) l) l))`);
  r = await call(c, "describe-symbol", { symbol: "*big*" });
  check("a huge value is printed within bounds", !r.isError && text(r).length < 2000 && text(r).includes("..."), text(r).length);
  r = await call(c, "describe-symbol", { symbol: "*circ*" });
  check("a circular value prints", !r.isError && text(r).includes("#1="), text(r));

  r = await call(c, "documentation", { symbol: "area" });
  check("documentation of a function", text(r) === "[function] The area of a W by H rectangle.", text(r));
  r = await call(c, "documentation", { symbol: "*scale*", doc_type: "variable" });
  check("documentation of a variable by doc_type", text(r) === "[variable] How much to scale.", text(r));
  r = await call(c, "documentation", { symbol: "area", doc_type: "variable" });
  check("no documentation of that type", !r.isError && text(r).includes("has no documentation of type variable"), text(r));
  r = await call(c, "documentation", { symbol: "area", doc_type: "bogus" });
  check("bad doc_type is an error", r.isError, text(r));
});

await scenario("apropos", async (c) => {
  let r = await call(c, "apropos", { query: "remove-if" });
  check("exact match first", names(r)[0] === "COMMON-LISP:REMOVE-IF" && names(r)[1] === "COMMON-LISP:REMOVE-IF-NOT", names(r).join(","));
  check("apropos says what each names", items(r)[0].kind === "function", JSON.stringify(items(r)[0]));
  r = await call(c, "apropos", { query: "with-", package: "CL", kinds: ["macro"] });
  check("kinds and package filter", names(r).length > 5 && items(r).every((i) => i.kind.includes("macro") && i.name.startsWith("COMMON-LISP:")), names(r).join(","));
  r = await call(c, "apropos", { query: "e" });
  check("a broad query is capped with a note", sc(r).more === true && items(r).length === 200 && sc(r).total > 200 && text(r).includes("more ("), text(r).slice(-80));
  r = await call(c, "apropos", { query: "%tool", external_only: true });
  check("external_only hides internal symbols", text(r).startsWith("No symbols match"), text(r));
  r = await call(c, "apropos", { query: "car", kinds: ["nonsense"] });
  check("bad kinds is INVALID-ARGUMENT", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
  r = await call(c, "apropos", { query: "" });
  check("empty query is INVALID-ARGUMENT", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
});

await scenario("macroexpand", async (c) => {
  let r = await call(c, "macroexpand", { code: "(when a b)" });
  check("macroexpand-1", !r.isError && /^\(IF A\s+\(PROGN B\)/.test(text(r)) && sc(r).subject === "expanded", text(r));
  r = await call(c, "macroexpand", { code: "(car x)" });
  check("a non-macro form is returned unchanged", text(r) === "(CAR X)" && sc(r).subject === "not a macro form", text(r));
  r = await call(c, "macroexpand", { code: "(when a (unless b (incf c)))", full: true });
  check("full expansion expands nested macros", !/WHEN|UNLESS|INCF/.test(text(r)) && text(r).includes("SETQ C"), text(r));
  r = await call(c, "macroexpand", { code: "(list '(when a b) (quote (unless c)))", full: true });
  check("quoted data is not expanded", text(r).includes("(WHEN A B)") && text(r).includes("(UNLESS C)"), text(r));
  r = await call(c, "macroexpand", { code: "(flet ((when (x) x)) (when 1))", full: true });
  check("a local function shadows a global macro", text(r).includes("(WHEN 1)"), text(r));
  r = await call(c, "macroexpand", { code: "(macrolet ((twice (x) `(progn ,x ,x))) (twice (when a b)))", full: true });
  check("macrolet macros are expanded in the body", /\(PROGN\s+\(IF A/.test(text(r)) && !text(r).includes("(TWICE (WHEN"), text(r));
  r = await call(c, "macroexpand", { code: "(symbol-macrolet ((s (car q))) (list s (let ((s 1)) s)))", full: true });
  check("symbol-macrolet expands; a binding shadows it", /\(LIST \(CAR Q\)\s+\(LET \(\(S 1\)\)\s+S\)\)/.test(text(r)), text(r));
  r = await call(c, "macroexpand", { code: "(lambda (a &optional (b (when a 1))) (when b 2))", full: true });
  check("lambda-list default forms are walked", !text(r).includes("WHEN"), text(r));
  r = await call(c, "macroexpand", { code: "(when #.(progn (defvar *evaluated* t) 'a) b)" });
  check("#. is not evaluated by macroexpand", r.isError && text(r).includes("*READ-EVAL*"), text(r));
  r = await call(c, "macroexpand", { code: "'#1=(a . #1#)", full: true });
  check("circular quoted data prints with labels", !r.isError && text(r).includes("#1=(A . #1#)"), text(r));
  r = await call(c, "macroexpand", { code: "(loop for i below 3 collect i)", full: true });
  check("a LOOP expands fully", !r.isError && !/\(LOOP /.test(text(r)), text(r));
  r = await call(c, "macroexpand", { code: "(defun f (x) (when x (incf x)))", full: true });
  check("a DEFUN's body is expanded too", !r.isError && !/\(WHEN /.test(text(r)) && !text(r).includes("INCF") && text(r).includes("NAMED-LAMBDA F (X)"), text(r));
  r = await call(c, "macroexpand", { code: "(when a" });
  check("incomplete code is an error", r.isError, text(r));
  r = await call(c, "macroexpand", { code: "(when a b) (when c d)" });
  check("two forms is an error", r.isError && text(r).includes("2 forms"), text(r));
  r = await call(c, "macroexpand", { code: "(when a b)", package: "NOPE" });
  check("unknown package", r.isError && text(r).includes("PACKAGE-ERROR"), text(r));
  r = await call(c, "macroexpand", { code: "(when a b)", full: "yes" });
  check("bad full is INVALID-ARGUMENT", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
});

await scenario("inspect", async (c) => {
  let r = await call(c, "inspect", { code: `(list 1 "two" (let ((h (make-hash-table))) (setf (gethash :k h) '(a b)) h))` });
  check("inspect a list: parts numbered", !r.isError && text(r).includes("a proper list of 3 elements") && items(r).length === 3 && items(r)[1].detail === '"two"', text(r));
  r = await call(c, "inspect", { path: [2] });
  check("path drills into the last value without code", !r.isError && text(r).includes("a hash table (test EQL) of 1 entries") && items(r)[0].name === ":K", text(r));
  r = await call(c, "inspect", { path: [2, 0, 1] });
  check("deeper path", !r.isError && text(r).startsWith("B") && text(r).includes("path: 2 > :K > 1"), text(r));
  await evaluate(c, "(defvar *n* 0)");
  r = await call(c, "inspect", { code: "(incf *n*)" });
  await call(c, "inspect", { path: [] });
  const n = await evaluate(c, "*n*");
  check("drilling does not re-evaluate", sc(n).values && sc(n).values[0] === "1", text(n));
  r = await call(c, "inspect", { path: [5] });
  check("a bad path is a clear error", r.isError && text(r).includes("not a part number"), text(r));
  await evaluate(c, "(defstruct point x y)");
  r = await call(c, "inspect", { code: "(make-point :x 1 :y (list 2 3))" });
  check("a structure's slots", items(r).map((i) => i.name).join(",") === "X,Y" && items(r)[1].detail === "(2 3)", text(r));
  r = await call(c, "inspect", { code: "(let ((l (list 1 2 3))) (setf (cdr (last l)) l) l)" });
  check("a circular list", !r.isError && text(r).includes("a circular list") && text(r).includes("#1="), text(r));
  r = await call(c, "inspect", { code: "(make-array 100000 :initial-element 0)" });
  check("a huge vector is capped", !r.isError && items(r).length === 200 && sc(r).more === true && sc(r).total === 10000, `${items(r).length} ${sc(r).total}`);
  await evaluate(c, "(defun make-counter (start) (let ((count start) (step 2)) (lambda () (incf count step))))");
  r = await call(c, "inspect", { code: "(let ((c (make-counter 10))) (funcall c) c)" });
  check("a closure's variables and their values", items(r).some((i) => i.name === "closure variable COUNT" && i.detail === "12") &&
        items(r).some((i) => i.name === "closure variable STEP" && i.detail === "2"), text(r));
  r = await call(c, "inspect", { code: "#'car" });
  check("a function", text(r).includes("a function") && items(r).some((i) => i.name === "lambda-list"), text(r));
  r = await call(c, "inspect", { code: "(error \"boom\")" });
  check("an error while evaluating is reported", r.isError && text(r).includes("boom"), text(r));
  r = await call(c, "inspect", { path: ["x"] });
  check("a non-integer path is INVALID-ARGUMENT", r.isError && text(r).includes("INVALID-ARGUMENT"), text(r));
});

await scenario("inspect with nothing inspected", async (c) => {
  const r = await call(c, "inspect", {});
  check("nothing inspected yet", r.isError && text(r).includes("Nothing has been inspected"), text(r));
});

await scenario("cross-reference and find-definitions in the session", async (c) => {
  await evaluate(c, `(defvar *count* 0)
(defun helper (x) (* x 2))
(defun user (y) (let ((*count* 1)) (setq *count* (helper y)) (when y *count*)))
(defmethod area2 ((s integer)) (helper s))`);
  let r = await call(c, "who-calls", { symbol: "helper" });
  check("who-calls: function and method", names(r).join(",") === "(METHOD AREA2 (INTEGER)),USER", text(r));
  const u = items(r).find((i) => i.name === "USER");
  check("each entry has the caller's location (call and source)", u && u.location && u.location.call >= 1 && u.location.source.startsWith("(defun user"), JSON.stringify(u));
  check("who-binds", names(await call(c, "who-binds", { symbol: "*count*" })).join(",") === "USER");
  check("who-sets", names(await call(c, "who-sets", { symbol: "*count*" })).join(",") === "USER");
  check("who-references", names(await call(c, "who-references", { symbol: "*count*" })).join(",") === "USER");
  check("who-macroexpands", names(await call(c, "who-macroexpands", { symbol: "when" })).includes("USER"));
  r = await call(c, "calls-who", { symbol: "user" });
  check("calls-who", names(r).includes("HELPER") && !names(r).some((n) => n.includes("%DEFUN")), names(r).join(","));
  r = await call(c, "find-definitions", { symbol: "helper" });
  check("find-definitions of a typed-in function", items(r).length === 1 && items(r)[0].kind === "function" && items(r)[0].location.source === "(defun helper (x) (* x 2))", JSON.stringify(items(r)));
  // redefinition replaces the entries
  await evaluate(c, "(defun user (y) (list y))");
  r = await call(c, "who-calls", { symbol: "helper" });
  check("after redefinition the old calls are gone", names(r).join(",") === "(METHOD AREA2 (INTEGER))", text(r));
  check("after redefinition who-binds is empty", items(await call(c, "who-binds", { symbol: "*count*" })).length === 0);
  // removal
  await evaluate(c, "(remove-method #'area2 (find-method #'area2 nil (list (find-class 'integer))))");
  r = await call(c, "who-calls", { symbol: "helper" });
  check("a removed method drops out", items(r).length === 0 && text(r).startsWith("No definitions that call it"), text(r));
  await evaluate(c, "(fmakunbound 'helper)");
  r = await call(c, "find-definitions", { symbol: "helper" });
  check("a removed function has no definitions", items(r).length === 0, text(r));
  // reset drops user entries
  // (TAILP, not LIST: the stdlib calls LIST from more definitions than one listing shows)
  await evaluate(c, "(defun caller2 () (tailp nil nil))");
  check("before reset", names(await call(c, "who-calls", { symbol: "tailp" })).includes("CALLER2"));
  await call(c, "reset-session");
  r = await call(c, "who-calls", { symbol: "tailp" });
  check("after reset the user's entries are gone", !names(r).includes("CALLER2"), text(r));
  r = await call(c, "who-calls", { symbol: "list" });
  check("after reset the user's entries are gone (LIST)", !names(r).includes("USER"), text(r));
  // each call site has its own entry, placed in the code of the call (or in the file, below)
  await evaluate(c, "(defun site-callee (x) x)\n(defun site-caller ()\n  (site-callee 1)\n   (list (site-callee 2)))");
  r = await call(c, "who-calls", { symbol: "site-callee" });
  const sites = items(r).filter((i) => i.name === "SITE-CALLER").map((i) => `${i.location.line}:${i.location.column}`);
  check("who-calls gives every call site's line and column", sites.join(",") === "3:3,4:10" && text(r).includes("at line 4, column 10"), JSON.stringify(items(r)));
  r = await call(c, "calls-who", { symbol: "site-caller" });
  check("calls-who gives the sites too", items(r).filter((i) => i.name === "SITE-CALLEE").length === 2, JSON.stringify(items(r)));
  // the stdlib's own definitions (analysed lazily, at their first call) answer too
  r = await call(c, "who-calls", { symbol: "sys::%query-symbol" });
  const tx = items(r).find((i) => i.name === "SYSTEM::%QUERY-XREF");
  check("who-calls finds callers inside the stdlib, with their file", tx && tx.location && tx.location.file === "stdlib-lisp/introspect.lisp" && tx.location.line > 1, JSON.stringify(items(r)).slice(0, 800));
  r = await call(c, "calls-who", { symbol: "sys::%query-xref" });
  check("calls-who of a stdlib function", names(r).includes("STABLE-SORT") && names(r).includes("MAPHASH"), names(r).join(","));
  r = await call(c, "who-references", { symbol: "sys::*xref-relations*" });
  check("who-references inside the stdlib", names(r).includes("SYSTEM::%QUERY-XREF"), text(r));
  r = await call(c, "who-calls", { symbol: "no-such-fn-xyz" });
  check("xref of an unknown symbol is an error", r.isError && text(r).includes("No symbol named"), text(r));
  r = await call(c, "who-calls", { symbol: "car", package: "NOPE" });
  check("xref in an unknown package", r.isError && text(r).includes("PACKAGE-ERROR"), text(r));
  r = await call(c, "find-definitions", { symbol: "car" });
  check("a C primitive is built in", items(r).some((i) => i.kind === "function" && i.name === "CAR" && i.detail.includes("built in")), text(r));
  await evaluate(c, "(defstruct pt3 x y)");
  r = await call(c, "find-definitions", { symbol: "pt3-x" });
  check("a structure accessor is located at its DEFSTRUCT", items(r).some((i) => i.name === "PT3-X" && i.location && (i.location.source || "").startsWith("(defstruct pt3")), text(r));
});

const alexandria = "/usr/share/common-lisp/source/alexandria/alexandria-1/lists.lisp";
const ppcreApi = "/usr/share/common-lisp/source/cl-ppcre/api.lisp";
if (existsSync(alexandria) && existsSync(ppcreApi)) {
  await scenario("loaded libraries: source locations and cross-reference", async (c) => {
    let r = await call(c, "load-system", { system: "alexandria" });
    check("alexandria loads", !r.isError, text(r));
    r = await call(c, "load-system", { system: "cl-ppcre" });
    check("cl-ppcre loads", !r.isError, text(r));
    r = await call(c, "find-definitions", { symbol: "alexandria:flatten" });
    const loc = items(r)[0] && items(r)[0].location;
    check("find-definitions gives file, line and column", loc && loc.file === alexandria && loc.column === 1, JSON.stringify(items(r)));
    if (loc && loc.line) {
      const line = readFileSync(alexandria, "utf8").split("\n")[loc.line - 1];
      check("the line holds the definition", line.startsWith("(defun flatten"), line);
    }
    r = await call(c, "find-definitions", { symbol: "cl-ppcre:create-scanner" });
    check("a generic function and its methods, each located", items(r).filter((i) => i.kind === "method").length >= 3 &&
          items(r).every((i) => i.location && i.location.file === ppcreApi && i.location.line > 0), text(r));
    r = await call(c, "who-calls", { symbol: "cl-ppcre:create-scanner" });
    check("who-calls in cl-ppcre", names(r).includes("CL-PPCRE:SCAN-TO-STRINGS") || names(r).includes("CL-PPCRE:REGEX-REPLACE-ALL"), text(r));
    check("callers are located in the library's files", items(r).every((i) => i.location && i.location.file.startsWith("/usr/share/common-lisp/source/cl-ppcre/")), text(r));
    r = await call(c, "who-calls", { symbol: "alexandria:ensure-function" });
    check("who-calls in alexandria", names(r).includes("ALEXANDRIA:DISJOIN") || names(r).includes("ALEXANDRIA:CONJOIN"), text(r));
    const before = names(await call(c, "who-calls", { symbol: "cl-ppcre::parse-string" }));
    check("cl-ppcre's parser callers", before.length > 0, before.join(","));
    // a user redefinition of a library function, then a reset: the library's entries come back
    await evaluate(c, "(in-package :cl-ppcre) (defun create-scanner-aux (&rest args) (list args 'redefined))");
    await evaluate(c, "(defun cl-user::my-scan (s) (cl-ppcre:scan \"a\" s))");
    check("the user's caller is listed", names(await call(c, "who-calls", { symbol: "cl-ppcre:scan" })).includes("COMMON-LISP-USER::MY-SCAN"));
    await call(c, "reset-session");
    r = await call(c, "who-calls", { symbol: "cl-ppcre:scan" });
    check("after reset the user's caller is gone", !names(r).includes("COMMON-LISP-USER::MY-SCAN") && names(r).length > 0, text(r));
    const after = names(await call(c, "who-calls", { symbol: "cl-ppcre::parse-string" }));
    check("the library's entries survive the reset", after.join(",") === before.join(","), after.join(","));
    r = await call(c, "find-definitions", { symbol: "cl-ppcre::create-scanner-aux" });
    check("a redefined library function is back at its file after reset", items(r)[0] && items(r)[0].location && items(r)[0].location.file && items(r)[0].location.file.endsWith("scanner.lisp"), text(r));
    r = await call(c, "calls-who", { symbol: "alexandria:flatten" });
    check("calls-who in a library", names(r).length > 0, text(r));
  });
} else {
  console.log("e2e-introspect: alexandria/cl-ppcre sources not installed (tools/deps.sh test); library checks skipped");
}

await scenario("tool group and schemas", async (c) => {
  await c.close();
  const g = await connect(["mcp", "--tools", "introspection"]);
  try {
    const tools = (await g.listTools()).tools;
    const want = ["describe-symbol", "apropos", "macroexpand", "find-definitions", "who-calls", "who-references", "who-sets",
                  "who-binds", "who-macroexpands", "calls-who", "inspect", "documentation"];
    check("--tools introspection lists exactly the group", tools.map((t) => t.name).join(",") === want.join(","), tools.map((t) => t.name).join(","));
    for (const t of tools) {
      check(`${t.name} has an output schema, title and annotations`, t.outputSchema && t.title && t.annotations && typeof t.annotations.readOnlyHint === "boolean");
    }
  } finally { await g.close(); }
});

console.log(`e2e-introspect: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(0);
