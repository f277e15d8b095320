// mcp-latency.mjs: start-up to the initialize reply, and the (+ 1 2) evaluate-lisp round trip,
// measured with the official MCP TypeScript SDK client (from tests/mcp/node_modules).
// Usage: node bench/mcp-latency.mjs TINYCL [STARTS=50] [CALLS=2000]
import { createRequire } from "node:module";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../tests/mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const bin = path.resolve(process.argv[2] || "build/tinycl");
const starts = Number(process.argv[3] || 50);
const calls = Number(process.argv[4] || 2000);

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { n: s.length, median: at(0.5), p99: at(0.99), min: s[0], max: s[s.length - 1] };
};
const fmt = (st) => `median ${st.median.toFixed(3)} ms, p99 ${st.p99.toFixed(3)} ms (min ${st.min.toFixed(3)}, max ${st.max.toFixed(3)}, n=${st.n})`;

// Raw start-up: spawn to the initialize reply line, without the SDK's own start-up costs.
async function rawStartup() {
  const t0 = process.hrtime.bigint();
  const child = spawn(bin, ["mcp"], { stdio: ["pipe", "pipe", "ignore"] });
  const init = { jsonrpc: "2.0", id: 1, method: "initialize",
                 params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } };
  child.stdin.write(JSON.stringify(init) + "\n");
  const ms = await new Promise((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      if (buf.includes("\n")) resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
    child.on("error", reject);
  });
  // then time to the first evaluation (the interpreter has to have booted)
  const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "evaluate-lisp", arguments: { code: "(+ 1 2)" } } };
  child.stdin.write(JSON.stringify(call) + "\n");
  const first = await new Promise((resolve) => {
    let buf = "";
    child.stdout.removeAllListeners("data");
    child.stdout.on("data", (d) => {
      buf += d;
      if (buf.includes('"id":2')) resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
  });
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
  return [ms, first];
}

async function sdkStartup() {
  const t0 = process.hrtime.bigint();
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], stderr: "ignore" });
  const client = new Client({ name: "tinycl-bench", version: "1.0.0" });
  await client.connect(transport); // initialize request, reply, initialized notification
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return [client, ms];
}

const init = [], first = [], sdk = [];
for (let i = 0; i < starts; i++) {
  const [a, b] = await rawStartup();
  init.push(a); first.push(b);
  const [client, ms] = await sdkStartup();
  sdk.push(ms);
  await client.close();
}
console.log(`start-up to the initialize reply (raw pipe):     ${fmt(stats(init))}`);
console.log(`start-up to the first (+ 1 2) result (raw pipe): ${fmt(stats(first))}`);
console.log(`SDK client.connect() (spawn + initialize):       ${fmt(stats(sdk))}`);

const [client] = await sdkStartup();
const rt = [];
for (let i = 0; i < calls + 50; i++) {
  const t0 = process.hrtime.bigint();
  const r = await client.callTool({ name: "evaluate-lisp", arguments: { code: "(+ 1 2)" } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.isError || r.structuredContent.values[0] !== "3") throw new Error("unexpected result " + JSON.stringify(r));
  if (i >= 50) rt.push(ms); // the first 50 warm up the client and the JIT
}
console.log(`evaluate-lisp (+ 1 2) round trip (SDK callTool): ${fmt(stats(rt))}`);
await client.close();
