/**
 * docs/protocol.md describes the one definition of the frames (runtime/host/messages.py, read here
 * through the generated messages.gen.ts): every message type and UI event kind, and nothing else,
 * with every field of each named in its row.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  HOST_MESSAGE_SHAPES,
  RUNTIME_MESSAGE_SHAPES,
  SHAPES,
  UI_EVENT_SHAPES,
} from "../src/protocol/message-shapes.gen";

const doc = readFileSync(fileURLToPath(new URL("../../docs/protocol.md", import.meta.url)), "utf8");

function section(title: string): string {
  const start = doc.indexOf(`## ${title}`);
  expect(start, `docs/protocol.md has a "## ${title}" section`).toBeGreaterThan(-1);
  const end = doc.indexOf("\n## ", start + 3);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** Each table row's type and the text of its fields column. */
function tableRows(text: string): Map<string, string> {
  return new Map(
    [...text.matchAll(/^\| `([a-z_]+)` \| ([^\n]*?) \|[^|\n]*\|$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]),
  );
}

/** Each UI event kind and the text that describes it (up to the next kind). */
function eventDescriptions(text: string): Map<string, string> {
  const start = text.indexOf("UI events (`event.kind`):");
  const paragraph = text.slice(start, text.indexOf("\n\n", start));
  // An event is a `name` followed by its field list in parentheses.
  const found = [...paragraph.matchAll(/`([a-z_]+)` \(/g)];
  return new Map(found.map((m, i) => [m[1] ?? "", paragraph.slice(m.index, found[i + 1]?.index)]));
}

function undocumentedFields(
  shapes: Readonly<Record<string, string>>,
  described: Map<string, string>,
  tag: string,
): string[] {
  const missing: string[] = [];
  for (const [name, shape] of Object.entries(shapes)) {
    for (const field of Object.keys(SHAPES[shape] ?? {})) {
      if (field !== tag && !described.get(name)?.includes(`\`${field}\``)) missing.push(`${name}.${field}`);
    }
  }
  return missing;
}

describe("docs/protocol.md and the frame definitions agree", () => {
  const runtimeRows = tableRows(section("Runtime → host"));
  const hostRows = tableRows(section("Host → runtime"));
  const events = eventDescriptions(section("Runtime → host"));

  it("names every runtime → host type and nothing else", () => {
    expect([...runtimeRows.keys()].sort()).toEqual(Object.keys(RUNTIME_MESSAGE_SHAPES).sort());
  });

  it("names every host → runtime type and nothing else", () => {
    expect([...hostRows.keys()].sort()).toEqual(Object.keys(HOST_MESSAGE_SHAPES).sort());
  });

  it("names every UI event kind and nothing else", () => {
    expect([...events.keys()].sort()).toEqual(Object.keys(UI_EVENT_SHAPES).sort());
  });

  it("names every field of every message and event", () => {
    expect(undocumentedFields(RUNTIME_MESSAGE_SHAPES, runtimeRows, "type")).toEqual([]);
    expect(undocumentedFields(HOST_MESSAGE_SHAPES, hostRows, "type")).toEqual([]);
    expect(undocumentedFields(UI_EVENT_SHAPES, events, "kind")).toEqual([]);
  });
});
