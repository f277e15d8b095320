// http-load.mjs: a bounded load test of `tinycl mcp --http` on the loopback interface (not part of
// `make test`). SESSIONS clients each open their own session, define their own function and
// variable, then evaluate for SECONDS: mostly (+ 1 2), and every tenth call a check that they see
// their own definitions and none of another session's. Reports lost calls, cross-talk, memory per
// added session and round-trip percentiles, and a single client's unloaded (+ 1 2) round trip.
// Usage: node bench/http-load.mjs build/tinycl [SESSIONS=100] [SECONDS=60] [--pace MS] [--trivial]
//   --pace MS   each session calls once every MS ms (an agent thinks between calls), instead of
//               back to back (which measures throughput: the median is then the queue)
//   --trivial   aim the same client at a trivial Node server that answers at once, to measure what
//               the client itself costs on this machine (no tinycl involved)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";

const argv = process.argv.slice(2);
const flag = (name) => { const i = argv.indexOf(name); if (i < 0) return null; const v = argv[i + 1]; argv.splice(i, name === "--trivial" ? 1 : 2); return v ?? true; };
const PACE = Number(flag("--pace") || 0), TRIVIAL = flag("--trivial") !== null;
const [bin, nArg, sArg] = argv;
const SESSIONS = Number(nArg || 100), SECONDS = Number(sArg || 60);
const agent = new http.Agent({ keepAlive: true, maxSockets: SESSIONS + 10 });

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

function post(port, body, sid) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Content-Length": Buffer.byteLength(data) };
    if (sid) { headers["Mcp-Session-Id"] = sid; headers["MCP-Protocol-Version"] = "2025-11-25"; }
    const rq = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers, agent }, (res) => {
      let t = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (t += d));
      res.on("end", () => resolve({ status: res.statusCode, sid: res.headers["mcp-session-id"], json: t ? JSON.parse(t) : null }));
    });
    rq.on("error", reject);
    rq.end(data);
  });
}

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

// the trivial server: answers every POST at once with what the checks below expect
const TRIVIAL_SERVER = `
const http = require("node:http"); let n = 0;
http.createServer((rq, rs) => { let b = ""; rq.on("data", (d) => (b += d)); rq.on("end", () => {
  const m = JSON.parse(b), code = m.params && m.params.arguments && m.params.arguments.code || "";
  const k = /only-(\\d+)\\) \\(only-(\\d+)/.exec(code); const i = k ? Number(k[2]) : 0;
  const v = k ? "(" + (1000 + i) + " " + i + " NIL " + i + ")" : "3";
  const h = { "Content-Type": "application/json" }; if (m.method === "initialize") h["Mcp-Session-Id"] = "s" + ++n;
  rs.writeHead(200, h); rs.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { structuredContent: { values: [v] } } })); }); })
  .listen(0, "127.0.0.1", function () { console.error("serving Streamable HTTP at http://127.0.0.1:" + this.address().port + "/mcp"); });`;
const server = TRIVIAL ? spawn(process.execPath, ["-e", TRIVIAL_SERVER], { stdio: ["ignore", "ignore", "pipe"] })
  : spawn(bin, ["mcp", "--http", "127.0.0.1:0", "--max-sessions", String(SESSIONS + 5), "--timeout", "30"], { stdio: ["ignore", "ignore", "pipe"] });
if (process.env.LOAD_PID_FILE) (await import("node:fs")).writeFileSync(process.env.LOAD_PID_FILE, String(server.pid));
const url = await new Promise((resolve, reject) => {
  let err = "";
  server.stderr.on("data", (d) => { err += d; const m = /at (http:\/\/\S+)/.exec(err); if (m) resolve(m[1]); });
  server.on("exit", () => reject(new Error(err)));
});
const port = new URL(url).port;
let id = 0;
const call = (sid, code) => post(port, { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code } } }, sid);
const init = async () => {
  const r = await post(port, { jsonrpc: "2.0", id: ++id, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "load", version: "1" } } });
  if (!r.sid) throw new Error("no session: " + JSON.stringify(r.json));
  return r.sid;
};
const value = (r) => r.json && r.json.result && !r.json.result.isError && r.json.result.structuredContent ? r.json.result.structuredContent.values[0] : null;

try {
  // unloaded: one client, sequential round trips
  const solo = await init();
  for (let i = 0; i < 200; i++) await call(solo, "(+ 1 2)");
  const soloLat = [];
  for (let i = 0; i < 2000; i++) { const t0 = performance.now(); await call(solo, "(+ 1 2)"); soloLat.push(performance.now() - t0); }
  soloLat.sort((a, b) => a - b);

  const rss0 = rssKiB(server.pid);
  const sids = [];
  for (let i = 0; i < SESSIONS; i++) sids.push(await init());
  const rss1 = rssKiB(server.pid);
  await Promise.all(sids.map((sid, i) => call(sid, `(defun own-fn (x) (+ x ${i})) (defvar *own* ${i}) (defun only-${i} () ${i})`)));
  const rss2 = rssKiB(server.pid);

  const lat = [];
  let calls = 0, lost = 0, crosstalk = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(sids.map(async (sid, i) => {
    let n = 0;
    // paced: the sessions' calls spread evenly over the period
    let next = performance.now() + (PACE ? (i / SESSIONS) * PACE : 0);
    while (performance.now() < until) {
      if (PACE) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        next += PACE;
      }
      n++;
      const other = (i + 1 + (n % (SESSIONS - 1))) % SESSIONS;
      const code = n % 10 ? "(+ 1 2)" : `(list (own-fn 1000) *own* (fboundp 'only-${other}) (only-${i}))`;
      const want = n % 10 ? "3" : `(${1000 + i} ${i} NIL ${i})`;
      const t0 = performance.now();
      let r;
      try { r = await call(sid, code); } catch { lost++; continue; }
      const dt = performance.now() - t0;
      calls++;
      const v = value(r);
      if (v === null) lost++;
      else if (v !== want) crosstalk++;
      if (n % 10) lat.push(dt);
    }
  }));
  lat.sort((a, b) => a - b);
  const rss3 = rssKiB(server.pid);
  const f = (x) => x.toFixed(3);
  console.log(`${TRIVIAL ? "TRIVIAL SERVER (the client's own cost), " : ""}${PACE ? `paced: a call every ${PACE} ms per session, ` : "back to back, "}sessions ${SESSIONS}, ${SECONDS} s: ${calls} calls (${(calls / SECONDS).toFixed(0)}/s), lost ${lost}, cross-talk ${crosstalk}`);
  console.log(`(+ 1 2) round trip under load, ms: p50 ${f(pct(lat, 50))} p90 ${f(pct(lat, 90))} p99 ${f(pct(lat, 99))} max ${f(lat[lat.length - 1])}`);
  console.log(`(+ 1 2) round trip, one client alone, ms: p50 ${f(pct(soloLat, 50))} p90 ${f(pct(soloLat, 90))} p99 ${f(pct(soloLat, 99))}`);
  console.log(`RSS: 1 session ${(rss0 / 1024).toFixed(1)} MiB; +${SESSIONS} sessions ${(rss1 / 1024).toFixed(1)} MiB ` +
    `(${((rss1 - rss0) / SESSIONS / 1024).toFixed(2)} MiB each); after definitions ${(rss2 / 1024).toFixed(1)} MiB; after the run ${(rss3 / 1024).toFixed(1)} MiB ` +
    `(${((rss3 - rss0) / SESSIONS / 1024).toFixed(2)} MiB each)`);
  console.log(lost === 0 && crosstalk === 0 ? "load: OK" : "load: FAILED");
} finally {
  server.kill("SIGTERM");
  agent.destroy();
}
