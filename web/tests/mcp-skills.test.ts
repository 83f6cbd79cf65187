/**
 * Skills from tool servers (the MCP skills extension): an entry's checks before a byte is read, each
 * file's size and sha256, the archive the importer gets, and the worker's MCP host against the real
 * Python test server that publishes three skills (scripts/mcp/skills_extension.py), one of them with a
 * wrong digest.
 */

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpHost } from "../src/mcp/host";
import { fileProblem, readEntry, MAX_SKILL_FILES } from "../src/mcp/skill-manifest";
import { tarArchive } from "../src/mcp/skill-archive";
import type { ToolServerStatus } from "../src/protocol/tool-servers";

const PYTHON = existsSync(".venv/bin/python") ? ".venv/bin/python" : "python3";

function sha(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

function file(uri: string, text = "x"): { uri: string; digest: string; size: number } {
  return { uri, digest: sha(text), size: Buffer.byteLength(text) };
}

function entry(resources: unknown, uri = "skill://acme/refunds/SKILL.md", name = "refunds"): unknown {
  return { uri, frontmatter: { name, description: "Refund requests." }, resources };
}

/** The members of a tar archive as Python's tarfile reads them: path -> text. */
function untar(bytes: Uint8Array): Record<string, string> {
  const script =
    "import io,json,sys,tarfile\n" +
    "t=tarfile.open(fileobj=io.BytesIO(sys.stdin.buffer.read()),mode='r:')\n" +
    "print(json.dumps({m.name:t.extractfile(m).read().decode() for m in t.getmembers() if m.isreg()}))";
  return JSON.parse(execFileSync(PYTHON, ["-c", script], { input: bytes }).toString()) as Record<string, string>;
}

describe("a skill entry", () => {
  it("is taken with its files when it follows the extension", () => {
    const skill = readEntry(
      entry([file("skill://acme/refunds/SKILL.md", "a"), file("skill://acme/refunds/examples/email.md", "b")]),
    );
    expect(skill.problem).toBe("");
    expect(skill.name).toBe("refunds");
    expect(skill.files.map((f) => f.path)).toEqual(["SKILL.md", "examples/email.md"]);
  });

  it.each([
    ["dynamic", "publishes no digests"],
    [undefined, "no manifest of files"],
    [[file("skill://acme/refunds/examples/a.md")], "does not list its SKILL.md"],
    [[file("skill://acme/refunds/SKILL.md"), file("skill://acme/refunds/../billing/x.md")], "escapes its folder"],
    [[file("skill://acme/refunds/SKILL.md"), file("skill://acme/other/x.md")], "outside the skill"],
    [[file("skill://acme/refunds/SKILL.md"), file("skill://acme/refunds/a\\b.md")], "backslash"],
    [[file("skill://acme/refunds/SKILL.md"), file("skill://acme/refunds/SKILL.md")], "twice"],
    [[{ ...file("skill://acme/refunds/SKILL.md"), digest: "md5:00" }], "is not sha256:"],
    [[{ ...file("skill://acme/refunds/SKILL.md"), size: -1 }], "not a whole number"],
    [[{ ...file("skill://acme/refunds/SKILL.md"), size: 17 * 1024 * 1024 }], "over the"],
    [
      Array.from({ length: MAX_SKILL_FILES + 1 }, (_, i) => file(`skill://acme/refunds/f${i}.md`)),
      `over the ${MAX_SKILL_FILES}`,
    ],
  ])("is refused from its entry alone: %#", (resources, why) => {
    expect(readEntry(entry(resources)).problem).toContain(why);
  });

  it("is refused when its name is not its path's last segment, or not a skill name", () => {
    const resources = [file("skill://acme/refunds/SKILL.md")];
    expect(readEntry(entry(resources, "skill://acme/refunds/SKILL.md", "chargebacks")).problem).toContain(
      "not the last segment",
    );
    expect(readEntry(entry(resources, "skill://acme/Refunds/SKILL.md", "Refunds")).problem).toContain("lower-case");
    expect(readEntry(entry(resources, "skill://acme/refunds/README.md")).problem).toContain(
      "does not end in /SKILL.md",
    );
  });

  it("checks a file's size, then its sha256", async () => {
    const line = { ...file("skill://s/SKILL.md", "hello"), path: "SKILL.md" };
    const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
    expect(await fileProblem(line, bytes("hello"))).toBeNull();
    expect(await fileProblem(line, bytes("hello!"))).toContain("is 6 bytes, but the server's manifest says 5");
    expect(await fileProblem(line, bytes("jello"))).toContain("does not match its digest");
  });
});

describe("the archive for the importer", () => {
  it("is a tar that Python's tarfile reads back, long paths included", () => {
    const long = `greeting/${"deep/".repeat(30)}file.md`;
    const archive = tarArchive([
      { path: "greeting/SKILL.md", data: new TextEncoder().encode("---\nname: greeting\n---\n") },
      { path: long, data: new TextEncoder().encode("é".repeat(600)) },
    ]);
    expect(untar(archive)).toEqual({ "greeting/SKILL.md": "---\nname: greeting\n---\n", [long]: "é".repeat(600) });
    expect(() => tarArchive([{ path: "x/".repeat(200), data: new Uint8Array(0) }])).toThrow("too long");
  });
});

describe("the worker's MCP host against a server that publishes skills", () => {
  let server: ChildProcess;
  let url = "";

  beforeAll(async () => {
    server = spawn(PYTHON, ["scripts/mcp/python_server.py", "--port", "0", "--skills"], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, PYTHONPATH: process.cwd() },
    });
    const lines = createInterface({ input: server.stdout! });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the Python tool server did not start")), 30_000);
      lines.once("line", (line) => {
        clearTimeout(timer);
        resolve(line.replace("tool server at ", "").trim());
      });
    });
    for (let tries = 0; ; tries++) {
      // it prints its URL just before it listens
      const up = await fetch(url).then(
        () => true,
        () => false,
      );
      if (up) break;
      if (tries > 200) throw new Error("the Python tool server does not answer");
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 40_000);

  afterAll(() => {
    server.kill();
  });

  async function connected(): Promise<{ host: McpHost; status: ToolServerStatus }> {
    const statuses: ToolServerStatus[] = [];
    const host: McpHost = new McpHost({
      appOrigin: "http://127.0.0.1:8000",
      status: (s) => statuses.push({ ...s }),
      send: (message) => {
        if (message.type === "mcp_tools")
          queueMicrotask(() =>
            host.onReply({ type: "reply", id: message.id, ok: true, result: { accepted: [], refused: [] } }),
          );
        return null;
      },
    });
    host.runtimeReady();
    host.setServers([{ name: "docs", url }], "http://127.0.0.1:9/");
    const deadline = Date.now() + 40_000;
    for (;;) {
      const last = statuses.at(-1);
      if (last?.state === "connected" && (last.skills?.length ?? 0) > 0) return { host, status: last };
      if (last?.state === "error" || Date.now() > deadline) throw new Error(`not connected: ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("lists the skills, imports a good one and refuses the one whose digest is wrong", async () => {
    const { host, status } = await connected();
    expect(status.skills?.map((s) => [s.name, s.uri, s.files, s.problem])).toEqual([
      ["greeting", "skill://greeting/SKILL.md", 3, ""],
      ["haiku", "skill://poems/haiku/SKILL.md", 1, ""],
      ["tampered", "skill://tampered/SKILL.md", 2, ""],
    ]);

    const good = await host.fetchSkill("docs", "skill://greeting/SKILL.md");
    if (!good.ok) throw new Error(good.message);
    expect(good.filename).toBe("greeting.tar");
    expect(good.origin).toEqual({ server: "docs", uri: "skill://greeting/SKILL.md" });
    const files = untar(good.bytes);
    expect(Object.keys(files).sort()).toEqual([
      "greeting/SKILL.md",
      "greeting/references/phrases.md",
      "greeting/scripts/hello.py",
    ]);
    expect(files["greeting/SKILL.md"]).toContain("name: greeting");

    const bad = await host.fetchSkill("docs", "skill://tampered/SKILL.md");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/tampered was refused: notes\.md does not match its digest/);

    const unknown = await host.fetchSkill("docs", "skill://nope/SKILL.md");
    expect(unknown).toEqual({
      ok: false,
      message: "The tool server 'docs' does not list the skill skill://nope/SKILL.md.",
    });
    host.setServers([], "http://127.0.0.1:9/");
  }, 60_000);
});
