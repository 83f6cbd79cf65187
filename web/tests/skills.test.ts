import { describe, expect, it } from "vitest";
import {
  ACCEPT,
  archiveNameFromUrl,
  describeCompatibility,
  parseImportReport,
  parseSkillDetail,
  parseSkillList,
  parseSkippedList,
  reportHeadline,
  sizeProblem,
  sniffSuffix,
  MAX_IMPORT_BYTES,
  type SkillScan,
} from "../src/ui/panels/skills-model";

const ZIP = new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]);
const GZIP = new Uint8Array([0x1f, 0x8b, 8, 0]);
const TAR = (() => {
  const bytes = new Uint8Array(512);
  bytes.set([...("ustar")].map((c) => c.charCodeAt(0)), 257);
  return bytes;
})();
const TEXT = new TextEncoder().encode("<html>not an archive</html>");

function outcome(extra: Record<string, unknown>): Record<string, unknown> {
  return { folder: "a", name: "a", status: "installed", reason: "", message: "", warnings: [], scan: null, location: ".agents/skills/a", ...extra };
}

describe("parseImportReport", () => {
  const cases: [string, unknown, string | null][] = [
    ["ok report", { state: "ok", reason: "", message: "", needs_confirmation: false, skills: [outcome({})] }, "Installed 1 skill: a."],
    [
      "partial report",
      { state: "partial", skills: [outcome({}), outcome({ name: "b", status: "skipped", reason: "invalid", message: "bad" })] },
      "Installed 1 skill (a); 1 not installed.",
    ],
    ["rejected archive", { state: "rejected", reason: "parent-reference", message: "Entry ../evil leaves the archive.", skills: [] },
      "Rejected: Entry ../evil leaves the archive. (parent-reference)"],
    ["rejected because exists", { state: "rejected", reason: "exists", message: "", skills: [outcome({ status: "exists", message: "exists; confirm" })] },
      "Rejected: exists; confirm (exists)"],
    ["unknown state", { state: "maybe", skills: [] }, null],
    ["unknown outcome status", { state: "ok", skills: [outcome({ status: "gone" })] }, null],
    ["not an object", ["ok"], null],
  ];
  it.each(cases)("%s", (_name, value, headline) => {
    const report = parseImportReport(value);
    expect(report === null ? null : reportHeadline(report)).toBe(headline);
  });

  it("keeps warnings, scan and the confirmation flag", () => {
    const report = parseImportReport({
      state: "rejected",
      needs_confirmation: true,
      skills: [outcome({ status: "exists", warnings: [{ code: "name-mismatch", message: "renamed" }],
        scan: { verdict: "needs", needs: ["pyyaml"], findings: [], scripts: ["s.py"] } })],
    });
    expect(report?.needsConfirmation).toBe(true);
    expect(report?.skills[0]?.warnings).toEqual([{ code: "name-mismatch", message: "renamed" }]);
    expect(report?.skills[0]?.scan?.needs).toEqual(["pyyaml"]);
  });
});

describe("skill list and detail", () => {
  it.each([
    ["two skills", { skills: [{ name: "a", description: "A", location: "x", enabled: true }, { name: "b", enabled: false }] }, ["a:true", "b:false"]],
    ["empty", { skills: [] }, []],
    ["nameless skill", { skills: [{ description: "?" }] }, null],
    ["no list", {}, null],
  ])("%s", (_name, value, expected) => {
    const skills = parseSkillList(value);
    expect(skills === null ? null : skills.map((s) => `${s.name}:${s.enabled}`)).toEqual(expected);
  });

  it("keeps allowed tools, unknown tools and warnings of a listed skill", () => {
    const [skill] = parseSkillList({ skills: [{ name: "pdf-tools", allowed_tools: ["Read", "run_python", 3], unknown_tools: ["Read"],
      warnings: [{ code: "invalid-name", message: "known as pdf-tools" }, "junk"] }] }) ?? [];
    expect(skill?.allowedTools).toEqual(["Read", "run_python"]);
    expect(skill?.unknownTools).toEqual(["Read"]);
    expect(skill?.warnings).toEqual([{ code: "invalid-name", message: "known as pdf-tools" }]);
    const [bare] = parseSkillList({ skills: [{ name: "a" }] }) ?? [];
    expect([bare?.allowedTools, bare?.unknownTools, bare?.warnings]).toEqual([[], [], []]);
  });

  it("reads the skipped folders of a skills_list reply, leaving out what is not one", () => {
    const value = { skills: [], skipped: [{ folder: "huge", message: "SKILL.md frontmatter: over 64 KiB" }, { message: "no folder" }, "junk"] };
    expect(parseSkippedList(value)).toEqual([{ folder: "huge", message: "SKILL.md frontmatter: over 64 KiB" }]);
    expect(parseSkippedList({ skills: [] })).toEqual([]);
    expect(parseSkippedList(null)).toEqual([]);
  });

  it("reads a skill_show reply", () => {
    const detail = parseSkillDetail({ name: "a", description: "A", location: "l", enabled: true, body: "# Hi", license: "MIT",
      compatibility: "", files: [{ path: "x/y.md", size: 12 }, { path: "z" }] });
    expect(detail?.body).toBe("# Hi");
    expect(detail?.files).toEqual([{ path: "x/y.md", size: 12 }, { path: "z", size: 0 }]);
    expect(parseSkillDetail({ body: "no name" })).toBeNull();
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
  const scan = (extra: Partial<SkillScan>): SkillScan => ({ verdict: "instructions-only", needs: [], findings: [], scripts: [], ...extra });
  it.each([
    ["not scanned", null, /Not checked/],
    ["no scripts", scan({}), /no scripts/],
    ["runnable", scan({ verdict: "runnable", scripts: ["run.py"] }), /can run in the browser \(run\.py\)/],
    ["needs packages", scan({ verdict: "needs", needs: ["pyyaml"], scripts: ["a.py"] }), /pyyaml/],
    ["blocked", scan({ scripts: ["x.sh"], findings: [{ path: "x.sh", kind: "shell-script", detail: "sh scripts cannot run" }] }),
      /cannot run in the browser \(x\.sh: sh scripts cannot run\)/],
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
