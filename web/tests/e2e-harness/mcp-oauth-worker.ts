// The e2e harness's MCP client: the official SDK's Client over Streamable HTTP, its token from the quiet
// McpOAuthProvider (the sealed record the page's sign-in wrote), in a worker as the app's core has it.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpOAuthProvider, needsSignIn } from "../../src/mcp/oauth-provider";

export type ToWorker = { type: "connect"; url: string; callback: string } | { type: "list" };
export interface FromWorker {
  state: "connected" | "auth-required" | "error";
  tools: number;
  message: string;
}

const scope = self as unknown as { postMessage(message: FromWorker): void; onmessage: ((e: MessageEvent<ToWorker>) => void) | null };
let client: Client | null = null;
let provider: McpOAuthProvider | null = null;

function report(err: unknown): void {
  const signIn = needsSignIn(err) || provider?.signInNeeded === true;
  const message = err instanceof Error ? err.message : String(err);
  scope.postMessage({ state: signIn ? "auth-required" : "error", tools: 0, message: signIn ? `Sign in to use this server. (${message})` : message });
}

async function list(): Promise<void> {
  if (!client) throw new Error("not connected");
  const { tools } = await client.listTools();
  scope.postMessage({ state: "connected", tools: tools.length, message: tools.map((t) => t.name).join(", ") });
}

async function connect(url: string, callback: string): Promise<void> {
  await client?.close();
  provider = new McpOAuthProvider(url, callback);
  client = new Client({ name: "tidepool-e2e", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  await list();
}

scope.onmessage = (event) => {
  const m = event.data;
  if (provider) provider.signInNeeded = false;
  void (m.type === "connect" ? connect(m.url, m.callback) : list()).catch(report);
};
