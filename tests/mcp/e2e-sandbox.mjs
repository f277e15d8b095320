// e2e-sandbox.mjs: the access policy of `tinycl mcp` (docs/security.md) seen by a client using the
// official MCP TypeScript SDK: tests/sandbox/access.lisp (every file operation allowed and refused,
// escapes, LOAD, the system loader, the environment) under the default policy, --allow-read/
// --allow-write/--allow-env, --sandbox and --unrestricted, each in a fresh fixture
// (tests/sandbox/fixture.sh) whose outside/ must come out untouched; the rules in the
// instructions; the error result; the policy surviving reset-session; the system tools.
// Usage: node e2e-sandbox.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { dirname, resolve, join } from "node:path";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

const bin = resolve(process.argv[2]);
const here = resolve(dirname(fileURLToPath(import.meta.url)), "../sandbox");
const accessLisp = readFileSync(join(here, "access.lisp"), "utf8");
const root = mkdtempSync(join(tmpdir(), "tinycl-e2e-sandbox-"));
let passed = 0, failed = 0, fixtures = 0;

function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + String(detail).slice(0, 1500) : ""}`); }
}

const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const call = (c, name, args = {}) => c.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
const evaluate = (c, code) => call(c, "evaluate-lisp", { code, timeout_seconds: 60 });

// A fresh fixture; its directory.
function fixture() {
  const d = join(root, `f${++fixtures}`);
  execFileSync(join(here, "fixture.sh"), [d]);
  return d;
}

// What outside/ holds, names and contents.
function outsideState(d) {
  const dir = join(d, "outside");
  const walk = (p) => readdirSync(p, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? [e.name + "/", ...walk(join(p, e.name)).map((x) => e.name + "/" + x)]
                    : [e.name + "=" + readFileSync(join(p, e.name), "utf8")]);
  return walk(dir).sort().join("\n");
}

async function connect(d, args) {
  const transport = new StdioClientTransport({
    command: bin, args: ["mcp", ...args], cwd: join(d, "work"), stderr: "pipe",
    env: { ...getDefaultEnvironment(), TMPDIR: join(d, "tmp"), HOME: join(d, "home"),
           CL_SOURCE_REGISTRY: join(d, "reg") + "//", TINYCL_TEST_SECRET: "s3cret",
           TINYCL_TEST_VISIBLE: "visible" },
  });
  const client = new Client({ name: "tinycl-e2e-sandbox", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

async function scenario(name, args, fn) {
  const d = fixture();
  let client;
  try {
    client = await connect(d, args);
    await fn(client, d);
  } catch (e) {
    check(`${name}: ran to the end`, false, String((e && e.stack) || e));
  } finally {
    if (client) await client.close().catch(() => {});
  }
}

// access.lisp under MODE: its "access-MODE: N passed, N failed" line counts into ours.
async function accessSuite(mode, args) {
  await scenario(`access ${mode}`, args, async (c, d) => {
    const before = outsideState(d);
    const r = await evaluate(c, `(defparameter cl-user::*sandbox-args* '("${mode}" "${d}"))\n${accessLisp}`);
    const out = (r.structuredContent && r.structuredContent.stdout) || text(r);
    const m = out.match(new RegExp(`access-${mode}: (\\d+) passed, (\\d+) failed`));
    if (!m) { check(`access ${mode} (${args.join(" ")}): finished`, false, text(r)); return; }
    for (const line of out.split("\n")) if (line.startsWith("FAIL")) console.log(`${line} [mcp ${args.join(" ")}]`);
    console.log(`e2e-sandbox access-${mode}: ${m[1]} passed, ${m[2]} failed (mcp ${args.join(" ")})`);
    passed += Number(m[1]);
    failed += Number(m[2]);
    if (mode !== "unrestricted") check(`access ${mode}: outside/ untouched`, outsideState(d) === before);
  });
}

await accessSuite("mcp", []);
await accessSuite("allow", ["--allow-read", "@D/extra", "--allow-write", "@D/wextra", "--allow-env", "TINYCL_TEST_VISIBLE"]
  .map((a) => a.replace("@D", join(root, `f${fixtures + 1}`))));
await accessSuite("sandbox", ["--sandbox"]);
await accessSuite("unrestricted", ["--unrestricted"]);

// the instructions state the rules; the error result names the path and the option
await scenario("defaults", [], async (c, d) => {
  const instr = c.getInstructions() || "";
  check("instructions: restricted", instr.includes("File and environment access is restricted"), instr.slice(-800));
  check("instructions: the current directory is writable", instr.includes(join(d, "work")), instr.slice(-800));
  check("instructions: the temporary directory", instr.includes(join(d, "tmp")), instr.slice(-800));
  check("instructions: the environment variables", /HOME, USER/.test(instr), instr.slice(-800));
  check("instructions: the protocol channel", instr.includes("stdin and stdout can never be opened"), instr.slice(-800));
  const r = await evaluate(c, `(open "${d}/outside/secret.txt")`);
  check("refused: isError", r.isError === true, JSON.stringify(r));
  check("refused: the text", text(r).startsWith(`[ERROR] ACCESS-DENIED\nOPEN is not allowed on "${d}/outside/secret.txt"`)
        && text(r).includes(`Start tinycl with --allow-read ${d}/outside to allow it.`), text(r));
  check("refused: structuredContent", r.structuredContent && r.structuredContent.error &&
        r.structuredContent.error.type === "ACCESS-DENIED", JSON.stringify(r.structuredContent));
  const rules = await evaluate(c, "(tinycl:access-rules)");
  check("access-rules", text(rules).includes(join(d, "work")), text(rules));
  // the policy holds after both kinds of reset
  for (const systems of [false, true]) {
    await call(c, "reset-session", { systems });
    const again = await evaluate(c, `(handler-case (open "${d}/outside/secret.txt") (tinycl:access-denied () :refused))`);
    check(`reset-session systems=${systems} keeps the policy`, text(again) === "=> :REFUSED", text(again));
    const env = await evaluate(c, `(tinycl:posix-getenv "TINYCL_TEST_SECRET")`);
    check(`reset-session systems=${systems} keeps the environment rules`, text(env) === "=> NIL", text(env));
    const guard = await evaluate(c, `(handler-case (open "/dev/stdin") (tinycl:access-denied () :refused))`);
    check(`reset-session systems=${systems} keeps the protocol guard`, text(guard) === "=> :REFUSED", text(guard));
  }
  // the system tools: a system outside is not found, one in the current directory loads
  await evaluate(c, `(push "${d}/outside/outsys/" asdf:*central-registry*)`);
  const out = await call(c, "load-system", { system: "outsys" });
  check("load-system outside: refused", out.isError === true, text(out));
  const ins = await call(c, "load-system", { system: "insys" });
  check("load-system in the current directory", !ins.isError, text(ins));
  const list = text(await call(c, "list-local-systems", { filter: "sys" }));
  check("list-local-systems shows what may be read", list.includes("insys") && list.includes("homesys")
        && list.includes("regsys") && !list.includes("outsys"), list);
});

await scenario("sandbox instructions", ["--sandbox"], async (c, d) => {
  const instr = c.getInstructions() || "";
  check("--sandbox instructions: no environment", instr.includes("(none)"), instr.slice(-800));
  check("--sandbox instructions: not the current directory", !instr.includes(join(d, "work")), instr.slice(-800));
  const sys = await call(c, "load-system", { system: "homesys" });
  check("--sandbox: a system under ~/common-lisp loads", !sys.isError, text(sys));
});

await scenario("unrestricted instructions", ["--unrestricted"], async (c) => {
  const instr = c.getInstructions() || "";
  check("--unrestricted instructions", instr.includes("File and environment access: unrestricted"), instr.slice(-800));
});

rmSync(root, { recursive: true, force: true });
console.log(`e2e-sandbox: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
