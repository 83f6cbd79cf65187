// The bench's baseline for one MCP tool call: the official SDK's client, called directly from the app's
// page (bundled by scripts/benchlib/mcp.py with esbuild, evaluated in the page; never shipped in the app).
// The same client, transport and eval-free validator the agent worker uses (web/src/mcp/connection.ts).
// mcp.py evaluates it after setting zod's config to `jitless`: code evaluated through the DevTools protocol
// passes zod's `new Function` probe, which the page's CSP fails in the app, then trips on the CSP later.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";

let client = null;

export async function connect(url) {
  client = new Client(
    { name: "tidepool-bench", version: "0.1.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { fetch: (input, init) => fetch(input, init) }),
    { timeout: 15_000 },
  );
  return (await client.listTools()).tools.length;
}

/** Call `tool` `count` times, one after the other; the milliseconds of each call. */
export async function timeCalls(tool, args, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 15_000 });
    times.push(performance.now() - t0);
    if (result.isError) throw new Error(JSON.stringify(result).slice(0, 300));
  }
  return times;
}
