/**
 * What the page and the agent worker say about tool servers (MCP). The page keeps the definitions
 * (name, URL) in its settings store and a token as a secret; it posts them to the worker, which
 * connects and answers with each server's status. A token crosses only page → worker, never back.
 */

import type { ImageAttachment } from "./messages";

export interface ToolServerConfig {
  /** Lower-case letters, digits, '-': it prefixes the server's tools (`name__tool`). */
  name: string;
  /** The Streamable HTTP endpoint, e.g. http://127.0.0.1:3001/mcp. */
  url: string;
  /** A bearer token sent only to the URL's origin; absent: none. */
  token?: string;
}

/** The most tools the app takes from one server (the worker's connection refuses more; the doctor says so). */
export const MAX_TOOLS = 500;

export type ToolServerState = "connecting" | "connected" | "auth-required" | "error";

export interface ToolServerStatus {
  name: string;
  url: string;
  state: ToolServerState;
  /** The names the model sees (prefixed), as the runtime accepted them. */
  tools: string[];
  /** What is wrong and what to do (empty when connected and nothing was refused). */
  message: string;
  /** The server's resources and templates (mcp/resources.ts); absent: none listed (yet). */
  resources?: ToolServerResource[];
  /** The server's prompts (`/server:prompt` commands in the composer); absent or empty: none. */
  prompts?: McpPromptInfo[];
  /** When connected: the MCP revision in use, "2026-07-28" (stateless, listen stream) or a 2025 one. */
  protocol?: string;
  /** The skills it publishes (the MCP skills extension); absent or empty: none. */
  skills?: ServerSkill[];
}

/** One resource as a server lists it (`resources/list`), or a template (`resources/templates/list`: `template`
 * set, `uri` its URI template; shown, not attached). */
export interface ToolServerResource {
  uri: string;
  name: string;
  title?: string;
  mimeType?: string;
  /** Bytes, as the server says (not checked until read). */
  size?: number;
  template?: boolean;
}

/** One resource read for a message (`resources/read`, in the worker): its text, or a blob's base64. */
export interface ReadResource {
  server: string;
  uri: string;
  name: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  /** Bytes of the text (UTF-8) or of the blob. */
  size: number;
}

/** One prompt a server lists, as the page shows it (mcp/prompts.ts bounds each field). */
export interface McpPromptInfo {
  name: string;
  title?: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

/** A prompt's `prompts/get` answer as the user turn it becomes: its text, and its images as attachments. */
export interface McpPromptTurn {
  text: string;
  images: ImageAttachment[];
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
