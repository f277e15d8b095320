// e2e-http.mjs: `tinycl mcp --http` with the official SDK client's StreamableHTTPClientTransport:
// one interpreter per client session, isolation between them, progress over SSE, cancellation,
// session handles across connections, DELETE, Origin and bearer-token checks, the session limit and
// the stateless requests of the 2026-07-28 revision, log messages on the GET stream (resumable),
// a client leaving during a JSON-mode call, and batches (only before 2025-06-18). Usage: node e2e-http.mjs TINYCL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawn } from "node:child_process";
import http from "node:http";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.argv[2];
let passed = 0, failed = 0;
function check(name, cond, detail = "") {
  if (cond) passed++;
  else { failed++; console.log(`FAIL ${name}${detail ? ": " + detail : ""}`); }
}
const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
const servers = [];

// Start a server on a free loopback port; resolves with its /mcp URL once it listens.
function startServer(extra = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ["mcp", "--http", "127.0.0.1:0", ...extra], { stdio: ["ignore", "ignore", "pipe"] });
    servers.push(p);
    let err = "";
    const timer = setTimeout(() => reject(new Error("server did not start: " + err)), 15000);
    p.stderr.on("data", (d) => {
      err += d;
      const m = /serving Streamable HTTP at (http:\/\/\S+)/.exec(err);
      if (m) { clearTimeout(timer); resolve({ url: m[1], proc: p }); }
    });
    p.on("exit", (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}): ${err}`)); });
  });
}

async function connect(url, opts = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), opts);
  const client = new Client({ name: "tinycl-e2e-http", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}
const evaluate = (c, code, extra = {}, options) => c.callTool({ name: "evaluate-lisp", arguments: { code, ...extra } }, undefined, options);

async function post(url, body, headers = {}) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  let json = null;
  const t = await r.text();
  try { json = JSON.parse(t); } catch { /* not JSON */ }
  return { status: r.status, json, text: t, headers: r.headers };
}

async function step(name, fn) {
  try { await fn(); } catch (e) { check(`${name}: ran to the end`, false, String((e && e.stack) || e)); }
}

try {
  const { url } = await startServer(["--max-sessions", "6", "--timeout", "10"]);

  await step("two clients, two interpreters", async () => {
    const a = await connect(url), b = await connect(url);
    check("each client gets its own Mcp-Session-Id", a.transport.sessionId && b.transport.sessionId && a.transport.sessionId !== b.transport.sessionId);
    const tools = (await a.client.listTools()).tools;
    check("tools/list offers create-session", tools.some((t) => t.name === "create-session"));
    const ev = tools.find((t) => t.name === "evaluate-lisp");
    check("every stateful tool takes `session`", ev && ev.inputSchema.properties.session && ev.inputSchema.properties.session.type === "string");
    check("create-session takes no session", !tools.find((t) => t.name === "create-session").inputSchema.properties);
    const r1 = await evaluate(a.client, "(defun only-in-a () :a) (defvar *who* :a) (only-in-a)");
    check("A defines a function", text(r1).includes("=> :A"), text(r1));
    const r2 = await evaluate(b.client, "(fboundp 'only-in-a)");
    check("B does not see A's function", text(r2).includes("=> NIL"), text(r2));
    const r3 = await evaluate(b.client, "(defvar *who* :b) *who*");
    const r4 = await evaluate(a.client, "*who*");
    check("each keeps its own variable", text(r3).includes("=> :B") && text(r4).includes("=> :A"), text(r3) + " / " + text(r4));

    // a runaway loop in A holds up neither B nor A's cancellation
    const ctl = new AbortController();
    const looping = evaluate(a.client, "(loop)", {}, { signal: ctl.signal, timeout: 20000 }).then(() => "done", (e) => "rejected:" + e.message);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    const quick = await evaluate(b.client, "(+ 1 2)");
    const ms = performance.now() - t0;
    check("B answers while A loops", text(quick).includes("=> 3") && ms < 1000, `${ms} ms: ${text(quick)}`);
    ctl.abort("stop");
    check("the cancelled call is abandoned", (await looping).startsWith("rejected"));
    const after = await evaluate(a.client, "(only-in-a)");
    check("A's session survives the cancellation", text(after).includes("=> :A"), text(after));

    // progress over SSE: a call with a progress token gets notifications while it runs
    const seen = [];
    const slow = await evaluate(a.client, "(let ((end (+ (get-internal-real-time) (* 2500 (/ internal-time-units-per-second 1000))))) (loop while (< (get-internal-real-time) end)) :slow)",
      {}, { onprogress: (p) => seen.push(p), timeout: 20000 });
    check("a slow call returns over SSE", text(slow).includes("=> :SLOW"), text(slow));
    check("progress notifications came", seen.length >= 1 && seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress), JSON.stringify(seen));

    // a runaway evaluation's time limit and heap errors stay in their session
    const tl = await evaluate(a.client, "(loop)", { timeout_seconds: 1 });
    check("the time limit ends A's loop", tl.isError && /TIMEOUT|time/i.test(text(tl)), text(tl));
    const b2 = await evaluate(b.client, "*who*");
    check("B untouched by A's timeout", text(b2).includes("=> :B"), text(b2));
    const deep = await evaluate(a.client, "(defun down (n) (1+ (down n))) (down 1)");
    check("A's runaway recursion ends in A", deep.isError && /STACK|CONTROL/i.test(text(deep)), text(deep).slice(0, 200));
    const b3 = await evaluate(b.client, "*who*"), a3 = await evaluate(a.client, "(only-in-a)");
    check("both sessions carry on after it", text(b3).includes("=> :B") && text(a3).includes("=> :A"), text(b3) + " / " + text(a3));

    // handles: made by one connection, used from another, until ended
    const made = await a.client.callTool({ name: "create-session", arguments: {} });
    const h = made.structuredContent && made.structuredContent.session;
    check("create-session returns a handle", typeof h === "string" && /^tcl-[0-9a-f]{32}$/.test(h), JSON.stringify(made));
    const d1 = await evaluate(a.client, "(defun in-handle () 42)", { session: h });
    check("a call in the handle's session", !d1.isError, text(d1));
    const d2 = await evaluate(b.client, "(in-handle)", { session: h });
    check("another connection reaches the same session", text(d2).includes("=> 42"), text(d2));
    const d3 = await evaluate(b.client, "(fboundp 'in-handle)");
    check("the handle's session is not B's own", text(d3).includes("=> NIL"), text(d3));
    const bad = await evaluate(b.client, "(+ 1 2)", { session: "tcl-00000000000000000000000000000000" });
    check("an unknown handle is a tool error", bad.isError && text(bad).includes("UNKNOWN-SESSION"), text(bad));
    const ended = await b.client.callTool({ name: "end-session", arguments: { session: h } });
    check("end-session ends it", !ended.isError && ended.structuredContent.ended === true, text(ended));
    const gone = await evaluate(a.client, "(in-handle)", { session: h });
    check("an ended handle is refused", gone.isError && text(gone).includes("UNKNOWN-SESSION"), text(gone));

    // DELETE ends the protocol session
    const sid = b.transport.sessionId;
    await b.transport.terminateSession();
    const late = await post(url, { jsonrpc: "2.0", id: 9, method: "tools/list" }, { "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25" });
    check("a deleted session is 404", late.status === 404, `${late.status} ${late.text}`);
    await a.client.close();
    await b.client.close().catch(() => {});
  });

  await step("HTTP rules", async () => {
    const put = await fetch(url, { method: "PUT", body: "{}" });
    check("PUT is 405 naming the methods", put.status === 405 && put.headers.get("allow") === "GET, POST, DELETE", String(put.status));
    const evil = await post(url, { jsonrpc: "2.0", id: 1, method: "ping" }, { Origin: "http://evil.example" });
    check("a foreign Origin is 403", evil.status === 403, String(evil.status));
    const local = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } }, { Origin: "http://localhost:3000" });
    check("a loopback Origin is accepted", local.status === 200, String(local.status));
    await fetch(url, { method: "DELETE", headers: { "Mcp-Session-Id": local.headers.get("mcp-session-id") } });
    // DNS rebinding: a page of attacker.example whose name resolves to 127.0.0.1 sends its own Host
    const u = new URL(url);
    const rebound = await new Promise((resolve) => {
      const rq = http.request({ host: "127.0.0.1", port: u.port, path: "/mcp", method: "POST", headers: { Host: `attacker.example:${u.port}`, "Content-Type": "application/json" } },
        (res) => { res.resume(); resolve(res.statusCode); });
      rq.on("error", (e) => resolve(String(e)));
      rq.end("{}");
    });
    check("a foreign Host is 403", rebound === 403, String(rebound));
    const nosid = await post(url, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    check("a legacy request without Mcp-Session-Id is 400", nosid.status === 400 && nosid.json && nosid.json.error, nosid.text);
    const parse = await post(url, "{not json");
    check("a body that is not JSON is 400 with -32700", parse.status === 400 && parse.json && parse.json.error.code === -32700, parse.text);
    const other = await fetch(url.replace("/mcp", "/other"));
    check("another path is 404", other.status === 404);
  });

  await step("the 2026-07-28 revision, stateless", async () => {
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "m", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
    const hv = { "MCP-Protocol-Version": "2026-07-28" };
    const disc = await post(url, { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } }, hv);
    check("server/discover answers", disc.status === 200 && disc.json.result.supportedVersions.includes("2026-07-28") && disc.json.result.capabilities.tools
      && disc.json.result._meta["io.modelcontextprotocol/serverInfo"].name === "tinycl", disc.text);
    check("no Mcp-Session-Id is minted for a modern request", !disc.headers.get("mcp-session-id"));
    const bare = await post(url, { jsonrpc: "2.0", id: 11, method: "server/discover" });
    check("server/discover without the modern _meta is 400 with -32602", bare.status === 400 && bare.json.error.code === -32602 && bare.json.id === 11, bare.text);
    const list = await post(url, { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta } }, hv);
    check("tools/list without initialize", list.status === 200 && list.json.result.resultType === "complete" && list.json.result.tools.length > 5, list.text.slice(0, 200));
    const nos = await post(url, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(+ 1 2)" }, _meta: meta } }, hv);
    check("a stateful call without `session` is a clear tool error", nos.json.result.isError && nos.json.result.content[0].text.includes("create-session"), nos.text);
    const made = await post(url, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "create-session", arguments: {}, _meta: meta } }, hv);
    const h = made.json.result.structuredContent.session;
    const def = await post(url, { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(defvar *n* 41)", session: h }, _meta: meta } }, hv);
    const use = await post(url, { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(1+ *n*)", session: h }, _meta: meta } }, hv);
    check("state lives in the handle across requests", !def.json.result.isError && use.json.result.content[0].text.includes("=> 42") && use.json.result.resultType === "complete", use.text);
    const old = await post(url, { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } }, { "MCP-Protocol-Version": "2099-01-01" });
    check("an unsupported version is 400 with -32022", old.status === 400 && old.json.error.code === -32022 && old.json.error.data.supported.includes("2026-07-28"), old.text);
    const mism = await post(url, { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: meta } }, { "MCP-Protocol-Version": "2025-11-25" });
    check("a header that disagrees with _meta is -32020", mism.status === 400 && mism.json.error.code === -32020, mism.text);
    const unk = await post(url, { jsonrpc: "2.0", id: 9, method: "resources/list", params: { _meta: meta } }, hv);
    check("an unknown modern method is 404 with -32601", unk.status === 404 && unk.json.error.code === -32601, unk.text);
    await post(url, { jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "end-session", arguments: { session: h }, _meta: meta } }, hv);
  });

  await step("log messages on the GET stream", async () => {
    const a = await connect(url);
    const logs = [];
    a.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
    await a.client.setLoggingLevel("notice");
    const r = await evaluate(a.client, '(asdf:defsystem "log-demo" :encoding :utf-8) :defined');
    check("the call answers", text(r).includes("=> :DEFINED"), text(r));
    for (let i = 0; i < 40 && logs.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
    check("the loader's note reaches the SDK client as notifications/message",
      logs.length === 1 && logs[0].level === "notice" && logs[0].logger === "tinycl.loader" && /ENCODING/.test(logs[0].data), JSON.stringify(logs));
    await a.client.setLoggingLevel("error");
    await evaluate(a.client, '(asdf:defsystem "log-demo-2" :encoding :utf-8) :quiet');
    await new Promise((res) => setTimeout(res, 300));
    check("nothing below the level set", logs.length === 1, JSON.stringify(logs));
    // a handle's session made by this client logs to this client's stream while it serves its call
    await a.client.setLoggingLevel("notice");
    const h = (await a.client.callTool({ name: "create-session", arguments: {} })).structuredContent.session;
    await evaluate(a.client, '(asdf:defsystem "log-demo-3" :encoding :utf-8)', { session: h });
    for (let i = 0; i < 40 && logs.length === 1; i++) await new Promise((res) => setTimeout(res, 50));
    check("a handle's session logs to the caller's stream", logs.length === 2 && /log-demo-3/.test(logs[1].data), JSON.stringify(logs));
    await a.client.callTool({ name: "end-session", arguments: { session: h } });
    await a.client.close();

    // raw: the stream's events have ids, and Last-Event-ID resumes after one
    const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    const sid = init.headers.get("mcp-session-id");
    const hs = { "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25" };
    await post(url, { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "notice" } }, hs);
    for (const n of ["r1", "r2"]) await post(url, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: `(asdf:defsystem "${n}" :encoding :utf-8)` } } }, hs);
    const read = async (extra) => {
      const ctl = new AbortController();
      const res = await fetch(url, { headers: { Accept: "text/event-stream", ...hs, ...extra }, signal: ctl.signal });
      let body = "";
      const reader = res.body.getReader();
      const timer = setTimeout(() => ctl.abort(), 700);
      try { for (;;) { const { value, done } = await reader.read(); if (done) break; body += new TextDecoder().decode(value); } } catch { /* aborted */ }
      clearTimeout(timer);
      return { status: res.status, type: res.headers.get("content-type"), body };
    };
    const first = await read({});
    check("GET opens an event stream with the messages not yet delivered", first.status === 200 && /text\/event-stream/.test(first.type)
      && /id: 1\n/.test(first.body) && /id: 2\n/.test(first.body) && /r2/.test(first.body), JSON.stringify(first));
    const resumed = await read({ "Last-Event-ID": "1" });
    check("Last-Event-ID resumes after that event", /id: 2\n/.test(resumed.body) && !/id: 1\n/.test(resumed.body), JSON.stringify(resumed));
    const none = await fetch(url, { headers: { Accept: "text/event-stream" } });
    check("GET without a session is 400", none.status === 400);
    const modern = await fetch(url, { headers: { Accept: "text/event-stream", "MCP-Protocol-Version": "2026-07-28" } });
    check("GET in the 2026-07-28 revision is 405", modern.status === 405);
    await fetch(url, { method: "DELETE", headers: hs });
  });

  await step("a client leaving during a JSON-mode call", async () => {
    const init = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    const sid = init.headers.get("mcp-session-id");
    const hs = { "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25" };
    // JSON mode (no progress token): the connection is simply dropped after 400 ms
    await new Promise((resolve) => {
      const data = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(defvar *left* :yes) (loop)" } } });
      const u = new URL(url);
      const rq = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "Content-Length": Buffer.byteLength(data), ...hs } });
      rq.on("error", () => resolve());
      rq.on("close", () => resolve());
      rq.end(data);
      setTimeout(() => rq.destroy(), 400);
    });
    const t0 = performance.now();
    const after = await post(url, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "*left*" } } }, hs);
    const ms = performance.now() - t0;
    check("the abandoned evaluation is stopped: the session answers at once, not after the 10 s limit",
      ms < 3000 && after.json && after.json.result.content[0].text.includes("=> :YES"), `${ms} ms: ${after.text}`);
    await fetch(url, { method: "DELETE", headers: hs });
  });

  await step("batches", async () => {
    const start = async (v) => {
      const r = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: v, capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
      return { "Mcp-Session-Id": r.headers.get("mcp-session-id"), "MCP-Protocol-Version": v };
    };
    const old = await start("2025-03-26");
    const b = await post(url, [
      { jsonrpc: "2.0", id: "p", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: "e", method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(+ 1 2)" } } },
      { jsonrpc: "2.0", id: "i", method: "initialize", params: {} },
      { jsonrpc: "2.0", id: "u", method: "no/such" },
    ], old);
    const by = (id) => b.json && b.json.find((x) => x.id === id);
    check("a 2025-03-26 session's batch is answered as one array", b.status === 200 && Array.isArray(b.json) && b.json.length === 4
      && by("p").result && by("e").result.content[0].text.includes("=> 3") && by("i").error.code === -32600 && by("u").error.code === -32601, b.text);
    const quiet = await post(url, [{ jsonrpc: "2.0", method: "notifications/initialized" }], old);
    check("a batch of notifications alone is 202", quiet.status === 202, `${quiet.status} ${quiet.text}`);
    const empty = await post(url, [], old);
    check("an empty batch is 400 with -32600", empty.status === 400 && empty.json.error.code === -32600 && empty.json.id === undefined, empty.text);
    const cur = await start("2025-11-25");
    const refused = await post(url, [{ jsonrpc: "2.0", id: 1, method: "ping" }], cur);
    check("a 2025-11-25 session's batch is 400 with -32600", refused.status === 400 && refused.json.error.code === -32600 && /2025-06-18/.test(refused.json.error.message), refused.text);
    const anon = await post(url, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    check("a batch without a session is 400 with -32600", anon.status === 400 && anon.json.error.code === -32600, anon.text);
    for (const h of [old, cur]) await fetch(url, { method: "DELETE", headers: h });
  });

  await step("the session limit", async () => {
    const { url: small } = await startServer(["--max-sessions", "2"]);
    const a = await connect(small), b = await connect(small);
    let refused = null;
    try { await connect(small); } catch (e) { refused = e; }
    check("a third session is refused at --max-sessions 2", refused !== null, String(refused));
    const still = await evaluate(a.client, "(+ 1 2)");
    check("the others still work", text(still).includes("=> 3"), text(still));
    // b is busy when it ends: the interrupted call holds it for its cleanup's second after the end,
    // and the end is answered only once the slot is free, so a new session fits at once
    const busy = evaluate(b.client, "(unwind-protect (loop) (sleep 1))", { timeout_seconds: 60 }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 300));
    await b.transport.terminateSession();
    let c = null, err = null;
    try { c = await connect(small); } catch (e) { err = e; }
    check("a slot frees when a session ends, also while it was running a call", c && !!c.transport.sessionId, String(err));
    await busy;
    await Promise.all([a.client.close(), b.client.close().catch(() => {}), c ? c.client.close() : null]);
  });

  await step("bearer token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinycl-http-"));
    const token = "s3cret-token-0123456789abcdef";
    writeFileSync(join(dir, "token"), token + "\n");
    const { url: guarded } = await startServer(["--token-file", join(dir, "token")]);
    const none = await post(guarded, { jsonrpc: "2.0", id: 1, method: "ping" });
    check("no token: 401", none.status === 401 && /Bearer/.test(none.headers.get("www-authenticate") || ""), String(none.status));
    const wrong = await post(guarded, { jsonrpc: "2.0", id: 1, method: "ping" }, { Authorization: "Bearer nope" });
    check("a wrong token: 401", wrong.status === 401);
    const c = await connect(guarded, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const r = await evaluate(c.client, "(+ 1 2)");
    check("the right token works", text(r).includes("=> 3"), text(r));
    await c.client.close();
  });
  await step("stdio: handles beside the default session", async () => {
    const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--tools", "all"], stderr: "pipe" });
    const c = new Client({ name: "tinycl-e2e-stdio-handles", version: "1.0.0" });
    await c.connect(transport);
    try {
      await evaluate(c, "(defvar *where* :default)");
      const made = await c.callTool({ name: "create-session", arguments: {} });
      const h = made.structuredContent.session;
      const r1 = await evaluate(c, "(boundp '*where*)", { session: h });
      check("stdio: a new session is empty", text(r1).includes("=> NIL"), text(r1));
      await evaluate(c, "(defvar *where* :handle)", { session: h });
      const r2 = await evaluate(c, "*where*"), r3 = await evaluate(c, "*where*", { session: h });
      check("stdio: the default session and the handle's are apart", text(r2).includes("=> :DEFAULT") && text(r3).includes("=> :HANDLE"), text(r2) + " / " + text(r3));
      const ctl = new AbortController();
      const looping = evaluate(c, "(loop)", { session: h }, { signal: ctl.signal }).then(() => "done", () => "rejected");
      await new Promise((r) => setTimeout(r, 300));
      ctl.abort("stop");
      await looping;
      const t0 = performance.now();
      const r4 = await evaluate(c, "*where*", { session: h });
      check("stdio: cancelling a call in a handle's session stops it", text(r4).includes("=> :HANDLE") && performance.now() - t0 < 3000, text(r4));
    } finally {
      await c.close();
    }
  });
} catch (e) {
  check("e2e-http ran", false, String((e && e.stack) || e));
} finally {
  for (const p of servers) p.kill("SIGTERM");
}
console.log(`e2e-http: ${passed} passed, ${failed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
