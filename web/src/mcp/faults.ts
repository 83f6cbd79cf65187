/**
 * What a tool server's failure is called in its entry and in a tool's error: one clear sentence for
 * each kind of bad input (malformed JSON-RPC, an answer too large, one that never comes, a redirect,
 * another origin), the SDK's own message otherwise. Never longer than 500 characters.
 */

import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { McpTooLargeError } from "./egress";

export function describe(error: unknown): string {
  return (fault(error) ?? plain(error)).slice(0, 500) || "the server failed without a message";
}

function plain(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function fault(error: unknown): string | null {
  if (error instanceof McpTooLargeError) return error.message;
  if (error instanceof Error && error.cause instanceof McpTooLargeError) return error.cause.message;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const ms = (error.data as { timeout?: unknown } | undefined)?.timeout;
    const within = typeof ms === "number" ? ` within ${ms / 1000} s` : " in time";
    return `the server did not answer${within} (it held the answer back, or its event stream never sent it); the request was cut off`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    return `the server's answer is not valid MCP (${plain(error)}); tell the server's owner`;
  }
  if (
    error instanceof SyntaxError ||
    (error instanceof Error && error.cause instanceof SyntaxError) ||
    /JSON-RPC|JSON\.parse|JSON input|in JSON/i.test(plain(error))
  ) {
    return `the server sent malformed JSON-RPC (${plain(error).slice(0, 200)}); it is not a valid MCP answer: tell the server's owner`;
  }
  return null;
}
