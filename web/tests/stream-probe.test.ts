import { describe, expect, it } from "vitest";
import { parseTestConfig } from "../src/settings/test-config";
import { streamProbe, TEXT_EVENT, type TextProbeDetail } from "../src/ui/chat/stream-probe";
import type { UiEvent } from "../src/protocol/messages";

describe("the stream probe (benchmarks)", () => {
  it("is switched on only by a literal true in the server's test configuration", () => {
    expect(parseTestConfig('{"streamProbe":true}').streamProbe).toBe(true);
    expect(parseTestConfig('{"streamProbe":"yes"}').streamProbe).toBeUndefined();
    expect(parseTestConfig("{}").streamProbe).toBeUndefined();
  });

  it("counts each turn's reply text instead of handing it on, and lets other events through", () => {
    const target = new EventTarget();
    const seen: TextProbeDetail[] = [];
    target.addEventListener(TEXT_EVENT, (e) => seen.push((e as CustomEvent<TextProbeDetail>).detail));
    const probe = streamProbe(target);
    const events = [
      { kind: "turn_started", turn_id: "t1" },
      { kind: "text_delta", text: "Hello" },
      { kind: "text_delta", text: ", world" },
      { kind: "turn_started", turn_id: "t2" },
      { kind: "text_delta", text: "ok" },
    ] as unknown as UiEvent[];
    expect(events.map(probe)).toEqual([false, true, true, false, true]);
    expect(seen.map((d) => [d.chars, d.total])).toEqual([
      [5, 5],
      [7, 12],
      [2, 2],
    ]);
  });
});
