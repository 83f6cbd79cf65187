import { describe, expect, it } from "vitest";
import type { AgentImportOutcome } from "../src/protocol/requests";
import {
  ACCEPT,
  archiveNameFromUrl,
  describeCompatibility,
  reportHeadline,
  sizeProblem,
  sniffSuffix,
  MAX_IMPORT_BYTES,
  type SkillImportReport,
  type SkillOutcome,
  type SkillScan,
} from "../src/ui/panels/skills-model";

const ZIP = new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]);
const GZIP = new Uint8Array([0x1f, 0x8b, 8, 0]);
const TAR = (() => {
  const bytes = new Uint8Array(512);
  bytes.set(
    [..."ustar"].map((c) => c.charCodeAt(0)),
    257,
  );
  return bytes;
})();
const TEXT = new TextEncoder().encode("<html>not an archive</html>");

function outcome(extra: Partial<SkillOutcome>): SkillOutcome {
  return {
    folder: "a",
    name: "a",
    status: "installed",
    reason: "",
    message: "",
    warnings: [],
    scan: null,
    location: ".agents/skills/a",
    ...extra,
  };
}

function agent(name: string): AgentImportOutcome {
  return { path: `agents/${name}.md`, name, status: "installed", message: "", location: "", warnings: [] };
}

function report(extra: Partial<SkillImportReport>): SkillImportReport {
  return { state: "ok", reason: "", message: "", needs_confirmation: false, skills: [], agents: [], ...extra };
}

describe("reportHeadline", () => {
  const cases: [string, SkillImportReport, string][] = [
    ["ok report", report({ skills: [outcome({})] }), "Installed 1 skill: a."],
    [
      "partial report",
      report({
        state: "partial",
        skills: [outcome({}), outcome({ name: "b", status: "skipped", reason: "invalid", message: "bad" })],
      }),
      "Installed 1 skill (a); 1 not installed.",
    ],
    [
      "rejected archive",
      report({ state: "rejected", reason: "parent-reference", message: "Entry ../evil leaves the archive." }),
      "Rejected: Entry ../evil leaves the archive. (parent-reference)",
    ],
    [
      "rejected because exists",
      report({
        state: "rejected",
        reason: "exists",
        skills: [outcome({ status: "exists", message: "exists; confirm" })],
      }),
      "Rejected: exists; confirm (exists)",
    ],
    ["agent profiles only", report({ agents: [agent("planner")] }), "Installed 1 agent profile (planner)."],
    [
      "skills and agent profiles",
      report({ skills: [outcome({})], agents: [agent("planner"), agent("reviewer")] }),
      "Installed 1 skill: a and 2 agent profiles (planner, reviewer).",
    ],
  ];
  it.each(cases)("%s", (_name, value, headline) => {
    expect(reportHeadline(value)).toBe(headline);
  });
});

describe("archive names", () => {
  it.each([
    ["zip magic", ZIP, ".zip"],
    ["gzip magic", GZIP, ".tar.gz"],
    ["ustar magic", TAR, ".tar"],
    ["html", TEXT, null],
  ])("sniff %s", (_name, bytes, expected) => {
    expect(sniffSuffix(bytes)).toBe(expected);
  });

  it.each([
    ["named archive", "https://example.com/dl/brand-guidelines.zip", TEXT, "brand-guidelines.zip"],
    ["tgz name", "https://example.com/x/skills.tgz?raw=1", GZIP, "skills.tgz"],
    [".skill name", "https://example.com/x/meeting-notes.skill", ZIP, "meeting-notes.skill"],
    ["no suffix, zip bytes", "https://codeload.example.com/o/r/zip/refs/heads/main", ZIP, "main.zip"],
    ["root path, gzip bytes", "https://example.com/", GZIP, "skill.tar.gz"],
    ["odd characters are replaced", "https://example.com/a%20b%2F..", ZIP, "a_b_...zip"],
    ["neither name nor bytes", "https://example.com/page", TEXT, null],
  ])("%s", (_name, url, bytes, expected) => {
    expect(archiveNameFromUrl(url, bytes)).toBe(expected);
  });
});

it("the file picker accepts .skill files (zip archives) beside the archive types", () => {
  expect(ACCEPT.split(",")).toEqual([".zip", ".tar", ".tar.gz", ".tgz", ".skill"]);
});

describe("describeCompatibility", () => {
  const scan = (extra: Partial<SkillScan>): SkillScan => ({
    verdict: "instructions-only",
    needs: [],
    findings: [],
    scripts: [],
    ...extra,
  });
  it.each([
    ["not scanned", null, /Not checked/],
    ["no scripts", scan({}), /no scripts/],
    ["runnable", scan({ verdict: "runnable", scripts: ["run.py"] }), /can run in the browser \(run\.py\)/],
    ["needs packages", scan({ verdict: "needs", needs: ["pyyaml"], scripts: ["a.py"] }), /pyyaml/],
    [
      "blocked",
      scan({
        scripts: ["x.sh"],
        findings: [{ path: "x.sh", kind: "shell-script", detail: "sh scripts cannot run", line: 0 }],
      }),
      /cannot run in the browser \(x\.sh: sh scripts cannot run\)/,
    ],
  ])("%s", (_name, value, pattern) => {
    expect(describeCompatibility(value)).toMatch(pattern);
  });
});

describe("sizeProblem", () => {
  it.each([
    ["empty file", 0, /empty/],
    ["small archive", 5_000, null],
    ["at the limit", MAX_IMPORT_BYTES, null],
    ["over the limit", MAX_IMPORT_BYTES + 1, /up to 50\.0 MB/],
  ])("%s", (_name, size, expected) => {
    const problem = sizeProblem(size);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });

  it("leaves room for the frame around the base64", () => {
    expect(Math.ceil(MAX_IMPORT_BYTES / 3) * 4).toBeLessThan(72 * 1024 * 1024 - 32 * 1024);
  });
});
