// e2e-systems.mjs: scripted sessions against `tinycl mcp` with the official MCP TypeScript SDK
// client, for the system tools (issue 6): every verification of seed 004 (system state tracking),
// each failure case leaving the tracking unchanged, reset across systems (DESIGN.md section 7),
// progress notifications while loading, and the tool schemas. The fixture systems of tests/systems/
// are found through CL_SOURCE_REGISTRY; the Debian libraries are used when they load.
// Usage: node e2e-systems.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

const bin = process.argv[2];
const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), "../systems");
let passed = 0, failed = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + String(detail).slice(0, 1500) : ""}`); }
}

async function connect() {
  const transport = new StdioClientTransport({
    command: bin, args: ["mcp"], stderr: "pipe",
    env: { ...getDefaultEnvironment(), CL_SOURCE_REGISTRY: `${fixtures}//` },
  });
  const client = new Client({ name: "tinycl-e2e-systems", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools(); // so that the client validates structuredContent against the output schemas
  return client;
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const sc = (r) => r.structuredContent || {};
const success = (r) => !r.isError;
const result = (r) => (r.structuredContent && r.structuredContent.values ? r.structuredContent.values[0] : null);
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

const call = (c, name, args = {}, options = {}) =>
  c.callTool({ name, arguments: args }, undefined, { timeout: 300000, ...options });
const evaluate = (c, code) => call(c, "evaluate-lisp", { code });
const loadSystem = (c, system, extra = {}) => call(c, "load-system", { system, ...extra });
const quickload = (c, system) => call(c, "quickload", { system });
const describeSystem = (c, system) => call(c, "describe-system", { system });
const reset = (c, args = {}) => call(c, "reset-session", args);
const listDefinitions = async (c, args = {}) => text(await call(c, "list-definitions", args));
// the seed's list-loaded-systems: names
const loaded = async (c) => (sc(await call(c, "list-loaded-systems")).systems || []).map((s) => s.name);
const loadTime = async (c, system) => {
  const s = (sc(await call(c, "list-loaded-systems")).systems || []).find((x) => x.name === system);
  return s ? s.load_time_universal : null;
};
const loadedP = async (c, system) => (await loaded(c)).includes(system);

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

// Which real library the seed's checks use: alexandria when it loads in this build, else fix-util.
let lib = "fix-util", libPackage = "FIX-UTIL", libFunctions = ["DOUBLE", "TRIPLE"];
await scenario("probe alexandria", async (c) => {
  const r = await loadSystem(c, "alexandria");
  if (success(r)) { lib = "alexandria"; libPackage = "ALEXANDRIA"; libFunctions = ["COPY-SEQUENCE", "HASH-TABLE-KEYS"]; }
  console.log(`e2e-systems: the seed's library checks use ${lib}${success(r) ? "" : " (alexandria does not load: " + text(r).split("\n").slice(0, 3).join(" ") + ")"}`);
});

// seed 004: verify-state-tracking, step by step
await scenario("seed 004 verify-state-tracking", async (c) => {
  await reset(c);
  check("S1 after reset no systems are loaded", (await loaded(c)).length === 0);
  const before = Math.floor(Date.now() / 1000) + 2208988800;
  const q = await quickload(c, lib);
  const after = Math.floor(Date.now() / 1000) + 2208988800;
  check("S2 quickload succeeds", success(q) && text(q).startsWith(`Loading system: ${lib}`) && text(q).includes(`Loaded: ${lib}`), text(q));
  check("S2 the system is listed as loaded", (await loadedP(c, lib)), (await loaded(c)).join(","));
  const d = await describeSystem(c, lib);
  check("S3 describe-system gives a version", success(d) && typeof sc(d).version === "string" && /\d+\.\d+/.test(sc(d).version), text(d));
  check("S3 describe-system says loaded", sc(d).status === "loaded" && text(d).includes("Status: loaded at"), text(d));
  const defs = await listDefinitions(c, { package: libPackage });
  for (const f of libFunctions) check(`S4 list-definitions {package} shows ${f}`, defs.includes(f), defs.slice(0, 400));
  const t = await loadTime(c, lib);
  check("S5 load time recorded and recent", t !== null && before - 1 <= t && t <= after + 1, `${before} <= ${t} <= ${after}`);
  const iso = sc(d).record && sc(d).record.load_time;
  check("S5 load time is ISO 8601", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(iso || ""), iso);
  // a system with dependencies: all of them are tracked
  const a = await quickload(c, "fix-app");
  check("S6 load with dependencies", success(a) && text(a).includes("Loaded: fix-app (version 0.3.0)"), text(a));
  const l6 = await loaded(c);
  check("S6 the system and its dependencies are loaded", l6.includes("fix-app") && l6.includes("fix-util"), l6.join(","));
  // a failed load does not pollute the state
  const b7 = await loaded(c);
  const f = await quickload(c, "nonexistent-xyz-123");
  check("S7 missing system is SYSTEM-NOT-FOUND", f.isError &&
        text(f) === '[ERROR] QUICKLISP-CLIENT:SYSTEM-NOT-FOUND\nSystem "nonexistent-xyz-123" not found in any known distribution.', text(f));
  const a7 = await loaded(c);
  check("S7 state unchanged after the failure", JSON.stringify(b7) === JSON.stringify(a7) && !a7.includes("nonexistent-xyz-123"));
  // reload with force updates the time
  const t1 = await loadTime(c, lib);
  await sleep(1100);
  const r8 = await evaluate(c, `(asdf:load-system "${lib}" :force t)`);
  check("S8 forced reload from Lisp succeeds", success(r8) && result(r8) === "T", text(r8));
  const t2 = await loadTime(c, lib);
  check("S8 forced reload updates the load time", t2 > t1, `${t1} -> ${t2}`);
});

// seed 004: the property-test strategies
await scenario("seed 004 strategies", async (c) => {
  // 1. basic load tracking (via the Lisp functions the seed names)
  await reset(c);
  await quickload(c, "fix-util");
  const p1 = await evaluate(c, '(tinycl:system-loaded-p "fix-util")');
  check("P1 system-loaded-p after quickload", result(p1) === "T", text(p1));
  // 2. failed load tracking
  const p2 = await evaluate(c, '(handler-case (ql:quickload "does-not-exist-xyz") (error () :failed))');
  check("P2 quickload of a missing system signals", result(p2) === ":FAILED", text(p2));
  const p2b = await evaluate(c, '(tinycl:system-loaded-p "does-not-exist-xyz")');
  check("P2 the missing system is not loaded", result(p2b) === "NIL", text(p2b));
  // 3. version tracking
  const p3 = await describeSystem(c, "fix-util");
  check("P3 version tracked", sc(p3).version === "1.2.0" && sc(p3).record.version === "1.2.0", text(p3));
  // 4. definition visibility
  const p4 = await evaluate(c, "(fboundp 'fix-util:double)");
  check("P4 the system's function is fbound", result(p4) === "T", text(p4));
  check("P4 list-definitions {package} lists it", (await listDefinitions(c, { package: "FIX-UTIL" })).includes("FIX-UTIL:DOUBLE"));
  // 5. dependency tracking
  await loadSystem(c, "fix-app");
  const deps = await call(c, "system-dependencies", { system: "fix-app" });
  check("P5 system-dependencies", success(deps) && sc(deps).dependencies.map((d) => d.name).join() === "fix-util" &&
        text(deps).includes("fix-util 1.2.0 [loaded]"), text(deps));
  const td = await call(c, "system-dependencies", { system: "fix-app/test", transitive: true });
  check("P5 transitive dependencies in load order", sc(td).dependencies.map((d) => d.name).join() === "fix-util,fix-app", text(td));
  check("P5 every dependency is loaded", (await loaded(c)).includes("fix-util"));
  // 6. load time tracking
  const p6 = await evaluate(c, '(let ((before (get-universal-time))) (asdf:load-system "fix-clos") (<= before (tinycl:system-load-time "fix-clos") (get-universal-time)))');
  check("P6 load time between before and after", result(p6) === "T", text(p6));
  // 7. reload tracking
  const t1 = await loadTime(c, "fix-clos");
  await sleep(1100);
  const r7 = await loadSystem(c, "fix-clos", { force: true });
  check("P7 forced reload", success(r7) && sc(r7).status === "reloaded", text(r7));
  check("P7 load time increases", (await loadTime(c, "fix-clos")) > t1);
  // 8. reset state
  await reset(c);
  check("P8 reset clears the records", (await loaded(c)).length === 0);
  const l8 = await call(c, "list-loaded-systems");
  check("P8 list-loaded-systems says so", text(l8) === "No systems loaded", text(l8));
});

// edge cases of seed 004
await scenario("seed 004 edge cases", async (c) => {
  const a1 = await loadSystem(c, "fix-util");
  const a2 = await loadSystem(c, "fix-util");
  check("E1 loading a loaded system does nothing", success(a2) && sc(a2).status === "present" &&
        text(a2).includes("already loaded") && sc(a1).record.load_time === sc(a2).record.load_time, text(a2));
  const u = await evaluate(c, "fix-util:*util-loads*");
  check("E1 its files ran once", result(u) === "1", text(u));
  // circular dependencies
  const b = await loaded(c);
  const cy = await loadSystem(c, "fix-cycle-a");
  check("E2 a cycle is an error naming the systems and files", cy.isError && text(cy).startsWith("[ERROR] ASDF:CIRCULAR-DEPENDENCY") &&
        text(cy).includes('"fix-cycle-a" -> system "fix-cycle-b" -> system "fix-cycle-a"') && text(cy).includes("fix-cycle-b.asd"), text(cy));
  check("E2 tracking unchanged", JSON.stringify(await loaded(c)) === JSON.stringify(b));
  // partial failure: dependencies loaded, the main system fails
  await reset(c, { systems: true });
  const pf = await loadSystem(c, "fix-broken");
  check("E3 an error halfway names the system and the file", pf.isError && text(pf).startsWith("[ERROR] ASDF:COMPONENT-LOAD-ERROR") &&
        text(pf).includes("second.lisp") && text(pf).includes('"fix-broken"') && text(pf).includes("failing halfway"), text(pf));
  check("E3 the result says which dependencies loaded", text(pf).includes("Loaded before the error (recorded): fix-util (version 1.2.0)") &&
        sc(pf).loaded_before_error && sc(pf).loaded_before_error[0].name === "fix-util", text(pf));
  const l3 = await loaded(c);
  check("E3 the dependency is recorded, the failed system is not", l3.join() === "fix-util", l3.join());
  const d3 = await describeSystem(c, "fix-broken");
  check("E3 describe-system: not loaded", sc(d3).status === "not-loaded" && text(d3).includes("Status: not loaded"), text(d3));
  // systems loaded outside the tools (from Lisp) are tracked too
  const ev = await evaluate(c, '(asdf:load-system "fix-defsys")');
  check("E4 asdf:load-system from evaluate-lisp", success(ev), text(ev));
  check("E4 ... is tracked", (await loaded(c)).includes("fix-defsys"));
  const ql = await evaluate(c, '(ql:quickload "fix-clos" :silent t)');
  check("E4 ql:quickload from evaluate-lisp returns the systems", result(ql) === '("fix-clos")', text(ql));
  check("E4 ... is tracked", (await loaded(c)).includes("fix-clos"));
  const rq = await evaluate(c, "(require :fix-app)");
  check("E4 require loads a system", success(rq) && (await loaded(c)).includes("fix-app"), text(rq));
});

// every failure case leaves the tracking unchanged
await scenario("failures leave tracking unchanged", async (c) => {
  await loadSystem(c, "fix-util");
  const base = JSON.stringify(await loaded(c));
  const cases = [
    ["load-system", "nonexistent", "[ERROR] QUICKLISP-CLIENT:SYSTEM-NOT-FOUND\nSystem \"nonexistent\" not found in any known distribution."],
    ["load-system", "fix-missing-dep", "[ERROR] ASDF:MISSING-DEPENDENCY\nComponent \"no-such-system-xyz\" not found, required by system \"fix-missing-dep\""],
    ["load-system", "fix-cycle-b", "[ERROR] ASDF:CIRCULAR-DEPENDENCY"],
    ["load-system", "fix-unreadable", "[ERROR] ASDF:LOAD-SYSTEM-DEFINITION-ERROR\nError while loading the definition of system \"fix-unreadable\" from "],
    ["load-system", "fix-missing-file", "[ERROR] ASDF:MISSING-COMPONENT\nComponent \"absent\" not found in system \"fix-missing-file\": the file "],
    ["quickload", "fix-broken", "[ERROR] ASDF:COMPONENT-LOAD-ERROR\nError while loading "],
  ];
  for (const [tool, system, prefix] of cases) {
    const r = await call(c, tool, { system });
    check(`${tool} ${system}: isError with a clear message`, r.isError && text(r).startsWith(prefix), text(r));
    check(`${tool} ${system}: the error is structured`, sc(r).error && sc(r).error.type && text(r).includes(sc(r).error.message));
    check(`${tool} ${system}: names the file`, system === "nonexistent" || text(r).includes(`${system}.asd`) || text(r).includes(".lisp"), text(r));
    check(`${tool} ${system}: tracking unchanged`, JSON.stringify(await loaded(c)) === base, JSON.stringify(await loaded(c)));
    check(`${tool} ${system}: not loaded`, !(await loadedP(c, system)));
  }
  const to = await call(c, "load-system", { system: "fix-slow", timeout_seconds: 1 });
  check("a load cut by the time limit is a TIMEOUT", to.isError && text(to).startsWith("[ERROR] TIMEOUT"), text(to));
  check("... and records nothing for the system", JSON.stringify(await loaded(c)) === base && !(await loadedP(c, "fix-slow")));
  const u = await describeSystem(c, "no-such-system-xyz");
  check("describe-system of a missing system", u.isError && text(u).startsWith("[ERROR] QUICKLISP-CLIENT:SYSTEM-NOT-FOUND"), text(u));
  const bad = await call(c, "load-system", {});
  check("load-system without a system is an argument error", bad.isError && text(bad).startsWith("[ERROR] INVALID-ARGUMENT"), text(bad));
  const bad2 = await call(c, "load-system", { system: "fix-util", force: "yes" });
  check("force must be a boolean", bad2.isError && text(bad2).includes("force"), text(bad2));
  check("argument errors leave tracking unchanged", JSON.stringify(await loaded(c)) === base);
});

// reset across systems (DESIGN.md section 7)
await scenario("reset across systems", async (c) => {
  const l = await loadSystem(c, "fix-clos");
  check("fix-clos loads", success(l), text(l));
  await evaluate(c, "(defun user-fn () 1) (defpackage :user-pkg (:use :cl))");
  await reset(c);
  check("plain reset: no records", (await loaded(c)).length === 0);
  const use = await evaluate(c, "(list (fix-clos:area (fix-clos:make-circle 2)) (prin1-to-string (fix-clos:make-circle 1)) " +
                                "(handler-case (fix-clos:check-shape 5) (fix-clos:shape-error () :handled)) " +
                                "(fix-clos:option-value :fix-clos-private-option 7) (and (member :fix-clos-loaded *features*) t) " +
                                "(fboundp 'user-fn) (find-package :user-pkg))");
  check("plain reset: the system's code, classes, methods, conditions, keywords and features stay usable",
        result(use) === '(12 "#<FIX-CLOS:CIRCLE circle>" :HANDLED 7 T NIL NIL)', text(use));
  const defs = await listDefinitions(c);
  check("plain reset: no user definitions (the system's are not the user's)", defs === "No user definitions", defs);
  const d = await describeSystem(c, "fix-clos");
  check("describe-system: loaded in the image before the last reset", sc(d).status === "loaded-before-reset" &&
        text(d).includes("loaded in the image before the last reset"), text(d));
  const local = await call(c, "list-local-systems", { filter: "fix-clos" });
  check("list-local-systems shows it", text(local).includes("fix-clos 2.0.1 [loaded before the last reset]"), text(local));
  const again = await loadSystem(c, "fix-clos");
  check("load-system re-records without reloading", success(again) && sc(again).status === "recorded" &&
        text(again).includes("recorded again without reloading"), text(again));
  check("... and it is listed again", (await loaded(c)).includes("fix-clos"));
  check("... with its original load time", sc(again).record.load_time === sc(l).record.load_time);
  // user changes inside a system's package are the user's: a reset removes them
  await evaluate(c, "(in-package :fix-clos) (defun user-added () 1) (in-package :cl-user)");
  await reset(c);
  const ua = await evaluate(c, '(find-symbol "USER-ADDED" :fix-clos)');
  check("a reset removes what the user added to a system's package", result(ua) === "NIL", text(ua));
  // reset with systems: exactly a new process
  const rs = await reset(c, { systems: true });
  check("reset {systems: true} says so", text(rs).includes("Loaded systems dropped."), text(rs));
  const gone = await evaluate(c, "(list (find-package :fix-clos) (and (member :fix-clos-loaded *features*) t))");
  check("reset {systems: true}: the system's package and features are gone", result(gone) === "(NIL NIL)", text(gone));
  const d2 = await describeSystem(c, "fix-clos");
  check("reset {systems: true}: describe-system says not loaded", sc(d2).status === "not-loaded", text(d2));
  const l2 = await loadSystem(c, "fix-clos");
  check("reset {systems: true}: it loads again from source", success(l2) && sc(l2).status === "loaded", text(l2));
  const sect = await listDefinitions(c, { type: "systems" });
  check("list-definitions [Loaded Systems]", sect === "[Loaded Systems]\n- fix-clos 2.0.1", sect);
});

// progress notifications while loading, when asked for
await scenario("progress", async (c) => {
  const notes = [];
  const r = await c.callTool({ name: "load-system", arguments: { system: "fix-slow" } }, undefined,
                             { timeout: 300000, onprogress: (p) => notes.push(p) });
  check("slow system loads", success(r), text(r));
  check("progress notifications arrive", notes.length >= 1, JSON.stringify(notes));
  check("progress values increase", notes.every((n, i) => i === 0 || n.progress > notes[i - 1].progress), JSON.stringify(notes));
  check("progress messages say what is loading", notes.some((n) => typeof n.message === "string" && n.message.includes("fix-slow")), JSON.stringify(notes));
  const q = await c.callTool({ name: "list-loaded-systems", arguments: {} });
  check("no progress without a token, and the session goes on", success(q) && text(q).includes("fix-slow"), text(q));
});

// list-local-systems: bounded and paginated
await scenario("list-local-systems", async (c) => {
  const all = await call(c, "list-local-systems", { filter: "fix-" });
  const names = sc(all).systems.map((s) => s.name);
  check("lists the fixtures with versions", names.includes("fix-util") && names.includes("fix-app/test") &&
        text(all).includes("- fix-util 1.2.0"), text(all));
  const p1 = await call(c, "list-local-systems", { filter: "fix-", limit: 3 });
  check("first page", sc(p1).systems.length === 3 && sc(p1).next_offset === 3 && sc(p1).total === names.length, JSON.stringify(sc(p1)));
  const p2 = await call(c, "list-local-systems", { filter: "fix-", limit: 3, offset: 3 });
  check("second page continues", sc(p2).systems[0].name === names[3] && text(p2).includes("(next page: offset 6)"), text(p2));
  await loadSystem(c, "fix-util");
  const p3 = await call(c, "list-local-systems", { filter: "fix-util" });
  check("marks loaded systems", text(p3).includes("- fix-util 1.2.0 [loaded]") && sc(p3).systems[0].loaded === true, text(p3));
  const bad = await call(c, "list-local-systems", { limit: 0 });
  check("a bad limit is an argument error", bad.isError && text(bad).includes("limit"), text(bad));
});

// the tool list and schemas
await scenario("system tool schemas", async (c) => {
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ["load-system", "quickload", "describe-system", "list-local-systems", "list-loaded-systems", "system-dependencies"]) {
    const t = tools.find((x) => x.name === n);
    check(`tool ${n} listed`, !!t, names.join(","));
    if (!t) continue;
    check(`tool ${n} has an output schema`, t.outputSchema && t.outputSchema.type === "object");
    check(`tool ${n} has a title and annotations`, t.title && t.annotations && typeof t.annotations.readOnlyHint === "boolean");
  }
  check("load-system requires system", tools.find((t) => t.name === "load-system").inputSchema.required.includes("system"));
  check("read-only tools are marked so", ["describe-system", "list-local-systems", "list-loaded-systems", "system-dependencies"]
        .every((n) => tools.find((t) => t.name === n).annotations.readOnlyHint === true));
  // results validated by the client against the output schemas
  for (const [n, a] of [["load-system", { system: "fix-util" }], ["describe-system", { system: "fix-app" }],
                        ["list-local-systems", {}], ["list-loaded-systems", {}], ["system-dependencies", { system: "fix-app" }],
                        ["quickload", { system: "fix-util" }]]) {
    const r = await call(c, n, a);
    check(`${n} result conforms to its schema`, success(r) && r.structuredContent && r.structuredContent.error === null, text(r));
  }
});

console.log(`e2e-systems: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(0);
