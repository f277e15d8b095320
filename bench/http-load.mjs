// http-load.mjs: a bounded load test of `tinycl mcp --http` on the loopback interface (not part of
// `make test`). SESSIONS clients each open their own session, define their own function and
// variable, then evaluate for SECONDS: mostly (+ 1 2), and every tenth call a check that they see
// their own definitions and none of another session's. Reports lost calls, cross-talk, memory per
// added session and round-trip percentiles, and a single client's unloaded (+ 1 2) round trip.
// Usage: node bench/http-load.mjs build/tinycl [SESSIONS=100] [SECONDS=60]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";

const [bin, nArg, sArg] = process.argv.slice(2);
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

const server = spawn(bin, ["mcp", "--http", "127.0.0.1:0", "--max-sessions", String(SESSIONS + 5), "--timeout", "30"], { stdio: ["ignore", "ignore", "pipe"] });
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
    while (performance.now() < until) {
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
  console.log(`sessions ${SESSIONS}, ${SECONDS} s: ${calls} calls (${(calls / SECONDS).toFixed(0)}/s), lost ${lost}, cross-talk ${crosstalk}`);
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
