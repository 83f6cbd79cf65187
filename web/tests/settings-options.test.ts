import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PERMISSION_MODES as MODES, PROVIDER_KINDS, REASONING_EFFORTS } from "../src/protocol/messages";
import { PERMISSION_MODES, PROVIDERS, REASONING_LABELS } from "../src/settings/model";

describe("the settings' enumerations are the runtime's (runtime/host/constants.py), listed once", () => {
  it("offers every provider kind, permission mode and reasoning effort, in the runtime's order", () => {
    expect(PROVIDERS.map((p) => p.kind)).toEqual([...PROVIDER_KINDS]);
    expect(PERMISSION_MODES.map((m) => m.mode)).toEqual([...MODES]);
    expect(Object.keys(REASONING_LABELS)).toEqual([...REASONING_EFFORTS]);
    for (const { label } of [...PROVIDERS, ...PERMISSION_MODES]) expect(label).not.toBe("");
  });

  it.each(["provider-select", "permission-mode", "reasoning-effort"])(
    "index.html writes no option of %s itself",
    (testid) => {
      const html = readFileSync(new URL("../index.html", import.meta.url), "utf8");
      expect(html).toMatch(new RegExp(`<select data-testid="${testid}"[^>]*></select>`));
    },
  );
});
