/** The page's URL configures nothing; only a test server's meta tag does, and only with http(s) URLs. */

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TEST_CONFIG_META, parseTestConfig, readTestConfig } from "../src/settings/test-config";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

describe("the test configuration", () => {
  it("takes http(s) URLs from the server's meta tag", () => {
    const doc = {
      querySelector: (selector: string) =>
        selector === `meta[name="${TEST_CONFIG_META}"]`
          ? ({
              content: '{"authBase":"http://127.0.0.1:9","packageIndexUrls":["http://127.0.0.1:9/simple"]}',
            } as HTMLMetaElement)
          : null,
    } as Pick<Document, "querySelector">;
    expect(readTestConfig(doc)).toEqual({
      authBase: "http://127.0.0.1:9",
      packageIndexUrls: ["http://127.0.0.1:9/simple"],
    });
  });

  it("is empty without the tag, as on a production server", () => {
    expect(readTestConfig({ querySelector: () => null })).toEqual({});
  });

  it.each([
    ["not JSON", "{auth"],
    ["not an object", '["http://x"]'],
    ["a javascript: URL", '{"authBase":"javascript:alert(1)"}'],
    ["a URL with spaces", '{"authBase":"http://a b"}'],
  ])("ignores %s", (_what, content) => {
    expect(parseTestConfig(content).authBase).toBeUndefined();
  });

  it("drops index URLs that are not http(s)", () => {
    expect(parseTestConfig('{"packageIndexUrls":["file:///etc","http://ok.test/simple",3]}').packageIndexUrls).toEqual([
      "http://ok.test/simple",
    ]);
  });
});

describe("the page's URL", () => {
  it("is read by nothing but the OAuth returns (OpenRouter's one-time ?code=, an MCP sign-in's answer)", () => {
    const readers = sources(SRC).filter((file) =>
      /location\.search|searchParams|URLSearchParams\(location/.test(readFileSync(file, "utf8")),
    );
    expect(readers.map((f) => f.slice(SRC.length + 1)).sort()).toEqual(["mcp/oauth-answer.ts", "settings/oauth.ts"]);
    // The MCP answer configures nothing: it is taken only by the sign-in whose random state it carries.
    const mcp = readFileSync(join(SRC, "mcp/oauth-answer.ts"), "utf8"); // readAnswer, for oauth-return.ts
    expect([...mcp.matchAll(/searchParams\.(get|getAll|has)\("([^"]+)"\)/g)].map((m) => m[2])).toEqual([
      "state",
      "code",
      "error",
      "error_description",
      "iss",
    ]);
    const oauth = readFileSync(join(SRC, "settings/oauth.ts"), "utf8");
    expect([...oauth.matchAll(/searchParams\.(get|getAll|has)\("([^"]+)"\)/g)].map((m) => m[2])).toEqual(["code"]);
  });
});
