/**
 * A tool server's resources, in the agent worker: listed (`resources/list` and `resources/templates/list`,
 * page by page, bounded in pages, count and time) for the panel, and read (`resources/read`, with a deadline;
 * the body is bounded by the egress, 8 MB) when the person attaches one to a message. The page gets names,
 * URIs, types and sizes, and a read resource's contents: never a token.
 */

import type { Client, Resource, ResourceTemplateType } from "@modelcontextprotocol/client";
import { MAX_RESPONSE_BYTES } from "./egress";
import type { ReadResource, ToolServerResource } from "../protocol/tool-servers";

const LIST_TIMEOUT_MS = 15_000;
export const READ_TIMEOUT_MS = 30_000;
const MAX_PAGES = 20;
export const MAX_RESOURCES = 1_000;
/** The most one attached resource may weigh (the egress's limit on one answer). */
export const MAX_RESOURCE_BYTES = MAX_RESPONSE_BYTES;

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The server's resources, then its templates; [] when it offers none. */
export async function listResources(client: Client): Promise<ToolServerResource[]> {
  if (!client.getServerCapabilities()?.resources) return [];
  const listed: ToolServerResource[] = [];
  await walk(async (cursor) => {
    const page = await client.listResources(cursor ? { cursor } : {}, { timeout: LIST_TIMEOUT_MS });
    listed.push(...page.resources.map(describeResource));
    return page.nextCursor;
  }, listed);
  // Templates are optional to a server: one that does not know the method still lists its resources.
  await walk(async (cursor) => {
    const page = await client.listResourceTemplates(cursor ? { cursor } : {}, { timeout: LIST_TIMEOUT_MS });
    listed.push(...page.resourceTemplates.map(describeTemplate));
    return page.nextCursor;
  }, listed).catch(() => undefined);
  return listed.slice(0, MAX_RESOURCES);
}

/** Follow `nextCursor` until the end, `MAX_PAGES` or `MAX_RESOURCES` items in `listed`. */
async function walk(
  page: (cursor: string | undefined) => Promise<string | undefined>,
  listed: unknown[],
): Promise<void> {
  let cursor: string | undefined;
  for (let n = 0; n < MAX_PAGES && listed.length < MAX_RESOURCES; n++) {
    const next = await page(cursor);
    if (!next || next === cursor) return;
    cursor = next;
  }
}

function describeResource(r: Resource): ToolServerResource {
  return {
    uri: r.uri,
    name: r.name,
    ...(r.title ? { title: r.title } : {}),
    ...(r.mimeType ? { mimeType: r.mimeType } : {}),
    ...(typeof r.size === "number" ? { size: r.size } : {}),
  };
}

function describeTemplate(t: ResourceTemplateType): ToolServerResource {
  return {
    uri: t.uriTemplate,
    name: t.name,
    template: true,
    ...(t.title ? { title: t.title } : {}),
    ...(t.mimeType ? { mimeType: t.mimeType } : {}),
  };
}

/** Why a listed resource may not be attached (its size says it is over the limit), or null. */
export function tooLarge(size: number | undefined): string | null {
  return size !== undefined && size > MAX_RESOURCE_BYTES
    ? `the resource is ${mb(size)}, over the ${mb(MAX_RESOURCE_BYTES)} a resource attached to a message may be`
    : null;
}

/** Read `uri` for a message: its first contents (text or blob), bounded. */
export async function readResource(client: Client, server: string, uri: string, name: string): Promise<ReadResource> {
  const result = await client.readResource({ uri }, { timeout: READ_TIMEOUT_MS });
  const first = result.contents[0];
  if (!first) throw new Error(`the server answered ${uri} with no contents`);
  const base = { server, uri, name, ...(first.mimeType ? { mimeType: first.mimeType } : {}) };
  const text = "text" in first && typeof first.text === "string" ? first.text : undefined;
  const blob = "blob" in first && typeof first.blob === "string" ? first.blob : "";
  const read: ReadResource =
    text !== undefined
      ? { ...base, text, size: new TextEncoder().encode(text).length }
      : { ...base, blob, size: Math.floor((blob.replace(/=+$/, "").length * 3) / 4) };
  const refused = tooLarge(read.size);
  if (refused) throw new Error(refused);
  return read;
}
