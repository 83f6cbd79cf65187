/**
 * A tool server's result as the runtime takes it (`mcp_result.content`): text, images, embedded
 * resources and resource links; structured content without text becomes its JSON. Anything else is
 * named, not passed on.
 */

import type { CallToolResult } from "@modelcontextprotocol/client";
import type { HostMessage } from "../protocol/messages";

export type McpContent = Extract<HostMessage, { type: "mcp_result" }>["content"][number];

/** The most a result may weigh as JSON (base64 images included); far under the frame limit. */
export const MAX_RESULT_CHARS = 4_000_000;

export function toContent(result: CallToolResult): McpContent[] {
  const blocks: McpContent[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        blocks.push({ type: "text", text: block.text });
        break;
      case "image":
      case "audio":
        blocks.push({ type: block.type, data: block.data, media_type: block.mimeType });
        break;
      case "resource": {
        const r = block.resource;
        blocks.push(
          "text" in r
            ? { type: "resource", uri: r.uri, text: r.text, ...(r.mimeType ? { media_type: r.mimeType } : {}) }
            : { type: "resource", uri: r.uri, ...(r.mimeType ? { media_type: r.mimeType } : {}) },
        );
        break;
      }
      case "resource_link":
        blocks.push({
          type: "resource_link",
          uri: block.uri,
          name: block.name,
          ...(block.mimeType ? { media_type: block.mimeType } : {}),
        });
        break;
      default:
        blocks.push({ type: "text", text: `[a ${String((block as { type: unknown }).type)} block left out]` });
    }
  }
  if (blocks.length === 0 && result.structuredContent !== undefined)
    blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  return blocks;
}
