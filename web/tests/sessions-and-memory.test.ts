import { describe, expect, it } from "vitest";
import {
  parseExport,
  parseMemories,
  parseSessions,
  parseTags,
  relativeTime,
  safeFilename,
  sessionLabel,
} from "../src/ui/panels/records";

describe("sessions_list results", () => {
  it("reads sessions and marks the current one", () => {
    const value = {
      current: "s2",
      sessions: [
        { id: "s2", title: "Trip", created: "2026-11-29T10:00:00.000Z", updated: "2026-11-29T11:00:00.000Z", model: null },
        { id: "s1", title: "", created: "2026-11-28T10:00:00.000Z", updated: "2026-11-28T10:00:00.000Z", current: false, excerpt: "…a hit…" },
        { id: "", title: "no id" },
        { title: "missing id" },
        "junk",
      ],
    };
    expect(parseSessions(value)).toEqual([
      { id: "s2", title: "Trip", created: "2026-11-29T10:00:00.000Z", updated: "2026-11-29T11:00:00.000Z", current: true, excerpt: "" },
      { id: "s1", title: "", created: "2026-11-28T10:00:00.000Z", updated: "2026-11-28T10:00:00.000Z", current: false, excerpt: "…a hit…" },
    ]);
  });

  it.each([null, [], { sessions: "x" }, "text"])("%j is an empty list", (value) => {
    expect(parseSessions(value)).toEqual([]);
  });

  it.each([
    ["Trip", "Trip"],
    ["  ", "New conversation"],
    ["", "New conversation"],
  ])("title %j is labelled %j", (title, label) => {
    expect(sessionLabel({ title })).toBe(label);
  });
});

describe("memory results", () => {
  it("reads memories with integer ids, tags and pinned", () => {
    const value = {
      memories: [
        { id: 7, text: "Likes tea", tags: ["drinks", 3], pinned: true, created: "a", updated: "2026-11-29T11:00:00Z", rank: -1.5 },
        { id: "x9", text: "odd id", tags: null, pinned: "yes" },
        { text: "no id" },
      ],
      total: 3,
    };
    expect(parseMemories(value)).toEqual([
      { id: "7", text: "Likes tea", tags: ["drinks"], pinned: true, updated: "2026-11-29T11:00:00Z" },
      { id: "x9", text: "odd id", tags: [], pinned: false, updated: "" },
    ]);
  });

  it.each([
    ["a, b  c,,a", ["a", "b", "c"]],
    ["", []],
    [" , ", []],
  ])("tags %j are %j", (text, tags) => {
    expect(parseTags(text)).toEqual(tags);
  });
});

describe("session exports", () => {
  it.each([
    [{ format: "markdown", filename: "Trip.md", mime: "text/markdown", text: "# Trip" }, { filename: "Trip.md", mime: "text/markdown", text: "# Trip" }],
    [{ format: "json", filename: "", text: "{}" }, { filename: "session.json", mime: "application/json", text: "{}" }],
    [{ format: "markdown", filename: "../../etc/x.md", text: "" }, { filename: "x.md", mime: "text/markdown", text: "" }],
    // The runtime's name and type are not kept when they would make the file something a browser renders.
    [{ format: "markdown", filename: "plot.html", mime: "text/html", text: "<script>" }, { filename: "plot.html.md", mime: "text/markdown", text: "<script>" }],
    [{ format: "json", filename: "x.svg", mime: "image/svg+xml", text: "{}" }, { filename: "x.svg.json", mime: "application/json", text: "{}" }],
    [{ format: "json", filename: "Trip.JSON", text: "{}" }, { filename: "Trip.JSON", mime: "application/json", text: "{}" }],
  ])("%j downloads as %j", (value, file) => {
    expect(parseExport(value)).toEqual(file);
  });

  it.each([null, { text: 3 }, { filename: "a.md" }])("%j is not an export", (value) => {
    expect(parseExport(value)).toBeNull();
  });

  it.each([
    ["a/b\\c.md", "c.md"],
    ['we:ird<>"name?.json', "we_ird___name_.json"],
    ["...hidden.md", "hidden.md"],
  ])("filename %j is saved as %j", (name, safe) => {
    expect(safeFilename(name)).toBe(safe);
  });
});

describe("relative times", () => {
  const now = new Date("2026-11-29T12:00:00.000Z");
  it.each([
    ["2026-11-29T11:59:30.000Z", "just now"],
    ["2026-11-29T11:55:00.000Z", "5 min ago"],
    ["2026-11-29T09:00:00.000Z", "3 h ago"],
    ["2026-11-28T10:00:00.000Z", "yesterday"],
    ["2026-11-20T10:00:00.000Z", "2026-11-20"],
    ["not a date", ""],
  ])("%j is %j", (iso, text) => {
    expect(relativeTime(iso, now)).toBe(text);
  });
});
