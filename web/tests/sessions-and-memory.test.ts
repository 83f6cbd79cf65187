import { describe, expect, it } from "vitest";
import type { SessionExport } from "../src/protocol/requests";
import { exportFile, parseTags, relativeTime, safeFilename, sessionLabel } from "../src/ui/panels/records";

describe("session labels", () => {
  it.each([
    ["Trip", "Trip"],
    ["  ", "New conversation"],
    ["", "New conversation"],
  ])("title %j is labelled %j", (title, label) => {
    expect(sessionLabel({ title })).toBe(label);
  });
});

describe("memory tags", () => {
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
    [
      { format: "markdown", filename: "Trip.md", mime: "text/markdown", text: "# Trip" },
      { filename: "Trip.md", mime: "text/markdown", text: "# Trip" },
    ],
    [
      { format: "json", filename: "", text: "{}" },
      { filename: "session.json", mime: "application/json", text: "{}" },
    ],
    [
      { format: "markdown", filename: "../../etc/x.md", text: "" },
      { filename: "x.md", mime: "text/markdown", text: "" },
    ],
    // The runtime's name and type are not kept when they would make the file something a browser renders.
    [
      { format: "markdown", filename: "plot.html", mime: "text/html", text: "<script>" },
      { filename: "plot.html.md", mime: "text/markdown", text: "<script>" },
    ],
    [
      { format: "json", filename: "x.svg", mime: "image/svg+xml", text: "{}" },
      { filename: "x.svg.json", mime: "application/json", text: "{}" },
    ],
    [
      { format: "json", filename: "Trip.JSON", text: "{}" },
      { filename: "Trip.JSON", mime: "application/json", text: "{}" },
    ],
  ] as [SessionExport, unknown][])("%j downloads as %j", (value, file) => {
    expect(exportFile(value)).toEqual(file);
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
