// transcript.mjs: replays protocol transcripts against `tinycl mcp` and checks every response.
// A transcript is a text file of lines:  "> JSON" is sent;  "< JSON" must be the next response
// (a subset match: every key given must match; a string "~re" is a regular expression);
// "< nothing" means no response may arrive; "# ..." is a comment; a first line "@args A B ..." gives the
// server extra command-line arguments after `mcp`.
// Usage: node transcript.mjs TINYCL FILE... ; prints one line per check and "N passed, N failed".
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";

function matches(expected, actual) {
  if (typeof expected === "string" && expected.startsWith("~")) {
    return typeof actual === "string" && new RegExp(expected.slice(1), "s").test(actual);
  }
  if (expected === null || typeof expected !== "object") return expected === actual;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    return expected.every((e, i) => matches(e, actual[i]));
  }
  if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
  for (const k of Object.keys(expected)) {
    if (k === "__absent") {
      for (const a of expected[k]) if (a in actual) return false;
      continue;
    }
    if (!(k in actual) || !matches(expected[k], actual[k])) return false;
  }
  return true;
}

class Server {
  constructor(bin, args = []) {
    this.proc = spawn(bin, ["mcp", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    this.buf = "";
    this.lines = [];
    this.waiters = [];
    this.proc.stdout.on("data", (d) => {
      this.buf += d.toString();
      let i;
      while ((i = this.buf.indexOf("\n")) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        this.lines.push(line);
        const ws = this.waiters;
        this.waiters = [];
        for (const w of ws) w();
      }
    });
    this.stderr = "";
    this.proc.stderr.on("data", (d) => (this.stderr += d.toString()));
    // a server that exits early closes its stdin: writing then fails (EPIPE), which is a test
    // failure to report, not a crash of this script
    this.writeError = null;
    this.exitCode = undefined;
    this.proc.stdin.on("error", (e) => { this.writeError = this.writeError || e; });
    this.proc.on("error", (e) => { this.writeError = this.writeError || e; });
    this.exited = new Promise((res) => this.proc.on("exit", (code) => {
      this.exitCode = code;
      const ws = this.waiters;
      this.waiters = [];
      for (const w of ws) w();
      res(code);
    }));
  }
  send(text) {
    if (this.exitCode !== undefined || this.proc.stdin.destroyed) {
      this.writeError = this.writeError || new Error("the server has exited");
      return;
    }
    this.proc.stdin.write(text + "\n", () => {});
  }
  // why no response came, when the server has gone
  gone() {
    if (this.exitCode === undefined && !this.writeError) return "";
    const err = this.stderr.trim().split("\n").slice(-3).join(" | ");
    return ` (the server ${this.exitCode !== undefined ? `exited with status ${this.exitCode}` : "stopped reading"}${err ? `; stderr: ${err}` : ""})`;
  }
  async next(ms) {
    if (this.lines.length) return this.lines.shift();
    if (this.exitCode !== undefined) return null;
    const got = await Promise.race([
      new Promise((res) => this.waiters.push(res)).then(() => true),
      new Promise((res) => setTimeout(() => res(false), ms)),
    ]);
    if (!got) return null;
    return this.lines.shift() ?? null;
  }
}

async function runFile(bin, file) {
  const results = [];
  const lines = readFileSync(file, "utf8").split("\n");
  const args = lines[0].startsWith("@args ") ? lines[0].slice(6).trim().split(/\s+/) : [];
  const server = new Server(bin, args);
  let lastSent = "";
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    if (line.startsWith("> ")) {
      lastSent = line.slice(2);
      server.send(lastSent);
    } else if (line.startsWith("< ")) {
      const want = line.slice(2).trim();
      const label = `${basename(file)}:${n + 1}`;
      if (want === "nothing") {
        const got = await server.next(400);
        results.push([label, got === null, got === null ? "" : `unexpected response ${got}`]);
        continue;
      }
      const got = await server.next(15000);
      if (got === null) { results.push([label, false, `no response to ${lastSent.slice(0, 120)}${server.gone()}`]); continue; }
      let actual;
      try { actual = JSON.parse(got); } catch { results.push([label, false, `response is not JSON: ${got}`]); continue; }
      const expected = JSON.parse(want);
      results.push([label, matches(expected, actual), `expected ${want}\n     got ${got}`]);
    }
  }
  if (server.writeError) results.push([`${basename(file)}:input`, false, `could not send every message: ${server.writeError.code || server.writeError.message}${server.gone()}`]);
  if (!server.proc.stdin.destroyed) server.proc.stdin.end();
  const code = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r("timeout"), 10000))]);
  results.push([`${basename(file)}:exit`, code === 0, `exit status ${code} (wanted 0 on end of input)`]);
  if (code === "timeout") server.proc.kill("SIGKILL");
  return results;
}

const [bin, ...files] = process.argv.slice(2);
let passed = 0, failed = 0;
for (const f of files) {
  for (const [label, ok, why] of await runFile(bin, f)) {
    if (ok) passed++;
    else { failed++; console.log(`FAIL ${label}: ${why}`); }
  }
}
console.log(`transcripts: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
