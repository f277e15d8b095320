// check-docs.mjs: keeps a few classes of documented facts true to the code, each read from the
// running binary or the sources rather than from a list kept here:
//  - every MCP tool is in docs/tools.md as "`name {arg, optional?, ...}`", its arguments in the
//    order and with the optionality of its inputSchema;
//  - every tool group is in `tinycl --help` and in docs/tools.md's group table with exactly its tools;
//  - every command-line option the parser accepts is in `tinycl --help` and in README.md;
//  - every TINYCL_* environment variable the C code reads is named in docs/ or README.md.
// Usage: node check-docs.mjs TINYCL ; prints one line per failure and "N passed, N failed".
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const bin = process.argv[2] || "build/tinycl";
let passed = 0, failed = 0;
const check = (what, ok, detail = "") => {
  if (ok) passed++;
  else { failed++; console.log(`FAIL ${what}${detail ? ": " + detail : ""}`); }
};
const read = (p) => readFileSync(p, "utf8");
const toolsMd = read("docs/tools.md");
const readme = read("README.md");
const allDocs = readme + readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => read(join("docs", f))).join("\n");
const help = spawnSync(bin, ["--help"], { encoding: "utf8" }).stdout;

// Intended differences from the schema's form: check-parens takes one of its two arguments.
const written = { "check-parens": "{code | path}" };

function toolsList(args) {
  const input = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "check-docs", version: "1" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ].map((m) => JSON.stringify(m)).join("\n") + "\n";
  const r = spawnSync(bin, ["mcp", ...args], { input, encoding: "utf8", timeout: 60000 });
  for (const line of r.stdout.split("\n")) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id === 2) return m.result.tools;
  }
  throw new Error(`no tools/list answer from ${bin} mcp ${args.join(" ")}: ${r.stderr}`);
}

function signature(t) {
  const req = new Set(t.inputSchema.required || []);
  // `session` is added to every tool when the sessions group is offered (src/mcp/registry.c)
  const props = Object.keys(t.inputSchema.properties || {}).filter((k) => k !== "session" || req.has(k));
  return written[t.name] || `{${props.map((k) => (req.has(k) ? k : k + "?")).join(", ")}}`;
}

// the groups, from the server's own answer to an unknown one
const err = spawnSync(bin, ["mcp", "--tools", "no-such-group"], { input: "", encoding: "utf8" }).stderr;
const groups = (err.match(/the groups are: (.*)/) || [, ""])[1].trim().split(/\s+/).filter(Boolean);
check("the server names its tool groups", groups.length > 0, err);
const helpTools = (help.match(/--tools GROUP[\s\S]*?\n  --(?!.*\n {20,})/) || [""])[0];
for (const g of groups) {
  check(`group ${g} in --help`, new RegExp(`\\b${g}\\b`).test(helpTools), helpTools);
  const tools = toolsList(["--tools", g]).filter((t) => g === "sessions" || !["create-session", "end-session"].includes(t.name));
  const row = toolsMd.split("\n").find((l) => l.startsWith(`| \`${g}\` |`));
  check(`group ${g} has a row in docs/tools.md's group table`, !!row);
  if (row) {
    // the names the cell starts with ("`a`, `b`"), before any note after them
    const listed = (row.split("|")[2].match(/^\s*`[a-z-]+`(, `[a-z-]+`)*/) || [""])[0].match(/[a-z-]+/g) || [];
    const names = tools.map((t) => t.name);
    check(`docs/tools.md's row of group ${g} lists its tools`, JSON.stringify(listed) === JSON.stringify(names),
      `docs: ${listed.join(" ")}; server: ${names.join(" ")}`);
  }
  for (const t of tools) {
    const sig = `\`${t.name} ${signature(t)}\``;
    check(`docs/tools.md has ${sig}`, toolsMd.includes(sig));
  }
}

// command-line options: what the parsers compare arguments with
const parsers = ["src/main.c", "src/mcp/http.c"].map(read).join("\n");
const internal = new Set(["--write-boot-image"]);   // the build's own step (Makefile)
const options = [...new Set([...parsers.matchAll(/strcmp\(a, "(--?[a-z-]+)"\)/g)].map((m) => m[1]))];
check("the option parsers were found", options.length > 10, options.join(" "));
for (const o of options) {
  if (internal.has(o)) continue;
  check(`option ${o} in --help`, new RegExp(`(^|[\\s,])${o}\\b`, "m").test(help));
  if (o.startsWith("--") && !["--help", "--version", "--quiet", "--eval"].includes(o))
    check(`option ${o} in README.md`, readme.includes("`" + o));
}

// environment variables the C code reads
const srcFiles = (dir) => readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".c")).map((f) => join(dir, f));
const envs = new Set();
for (const f of [...srcFiles("runtime"), ...srcFiles("src")])
  for (const m of read(f).matchAll(/getenv\("(TINYCL_[A-Z_0-9]+)"\)/g)) envs.add(m[1]);
check("getenv calls were found", envs.size > 0);
for (const v of envs) check(`${v} is documented in docs/ or README.md`, allDocs.includes(v));

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
