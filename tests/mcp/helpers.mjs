// helpers.mjs: what the SDK scripts share: a counted check, the parts of a tool result, a client
// connected to `tinycl mcp`, and the closing "N passed, N failed" lines. (Not named e2e*: run-mcp.sh
// runs those.)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

export const counts = { passed: 0, failed: 0 };

export function check(name, cond, detail = "") {
  if (cond) counts.passed++;
  else { counts.failed++; console.log(`FAIL ${name}${detail ? ": " + String(detail).slice(0, 1500) : ""}`); }
}

export const text = (r) => (r.content && r.content[0] && r.content[0].text) || "";
export const sc = (r) => r.structuredContent || {};
export const ok = (r) => !r.isError;

// A client of BIN's MCP server with ENV added; it has listed the tools, so that it validates
// structuredContent against their output schemas.
export async function connect(bin, name, env = {}) {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], stderr: "pipe", env: { ...getDefaultEnvironment(), ...env } });
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

export function finish(script) {
  console.log(`${script}: ${counts.passed} passed, ${counts.failed} failed`);
  console.log(`${counts.passed} passed, ${counts.failed} failed`);
  process.exit(0);
}
