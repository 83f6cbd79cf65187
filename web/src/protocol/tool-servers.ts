/**
 * What the page and the agent worker say about tool servers (MCP). The page keeps the definitions
 * (name, URL) in its settings store and a token as a secret; it posts them to the worker, which
 * connects and answers with each server's status. A token crosses only page → worker, never back.
 */

export interface ToolServerConfig {
  /** Lower-case letters, digits, '-': it prefixes the server's tools (`name__tool`). */
  name: string;
  /** The Streamable HTTP endpoint, e.g. http://127.0.0.1:3001/mcp. */
  url: string;
  /** A bearer token sent only to the URL's origin; absent: none. */
  token?: string;
}

export type ToolServerState = "connecting" | "connected" | "auth-required" | "error";

export interface ToolServerStatus {
  name: string;
  url: string;
  state: ToolServerState;
  /** The names the model sees (prefixed), as the runtime accepted them. */
  tools: string[];
  /** What is wrong and what to do (empty when connected and nothing was refused). */
  message: string;
  /** The skills it publishes (the MCP skills extension); absent or empty: none. */
  skills?: ServerSkill[];
}

/** A skill a tool server lists (mcp/skill-manifest.ts); `problem`: why it cannot be imported. */
export interface ServerSkill {
  name: string;
  description: string;
  uri: string;
  files: number;
  problem: string;
}

/** A server's name as the runtime takes it (runtime/tools/mcp.py SERVER_NAME), or why not. */
export function serverNameProblem(name: string): string | null {
  return /^[a-z][a-z0-9-]{0,31}$/.test(name)
    ? null
    : "a name is 1-32 lower-case letters, digits or '-', starting with a letter";
}

/** The URL as a Streamable HTTP endpoint the worker may reach, or why not. */
export function serverUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return "not a URL (e.g. https://example.org/mcp)";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return "the URL must start with https:// (or http:// for a local server)";
  if (url.username !== "" || url.password !== "") return "put a token in the token field, not in the URL";
  return null;
}
