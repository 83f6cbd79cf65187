/** messages.ts names every message type and UI event of docs/protocol.md, and nothing else. */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EVENT_FIELDS, HOST_MESSAGE_TYPES, RUNTIME_FIELDS } from "../src/protocol/messages";

const doc = readFileSync(fileURLToPath(new URL("../../docs/protocol.md", import.meta.url)), "utf8");

function section(title: string): string {
  const start = doc.indexOf(`## ${title}`);
  expect(start, `docs/protocol.md has a "## ${title}" section`).toBeGreaterThan(-1);
  const end = doc.indexOf("\n## ", start + 3);
  return doc.slice(start, end === -1 ? undefined : end);
}

function tableTypes(text: string): string[] {
  return [...text.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1] as string).sort();
}

function eventKinds(text: string): string[] {
  const start = text.indexOf("UI events (`event.kind`):");
  const paragraph = text.slice(start, text.indexOf("\n\n", start));
  // An event is a `name` followed by its field list in parentheses.
  return [...paragraph.matchAll(/`([a-z_]+)` \(/g)].map((m) => m[1] as string).sort();
}

describe("docs/protocol.md and messages.ts agree", () => {
  it("runtime → host types", () => {
    expect(Object.keys(RUNTIME_FIELDS).sort()).toEqual(tableTypes(section("Runtime → host")));
  });

  it("host → runtime types", () => {
    expect([...HOST_MESSAGE_TYPES].sort()).toEqual(tableTypes(section("Host → runtime")));
  });

  it("UI event kinds", () => {
    expect(Object.keys(EVENT_FIELDS).sort()).toEqual(eventKinds(section("Runtime → host")));
  });
});
