/**
 * A benchmark hook, switched on only by a test server's configuration (`streamProbe` in the
 * `tidepool-test-config` meta tag; the page's URL cannot): reply text is counted as it reaches the
 * page and not rendered. Each `text_delta` becomes a `tidepool:text` event on `document` whose
 * detail is `{ chars, total, at }` (this delta's length, the turn's running total, performance.now()),
 * so scripts/bench can time a stream through the runtime and its frames without the chat's
 * markdown rendering. Other events reach the chat as usual.
 */

import type { UiEvent } from "../../protocol/messages";

export const TEXT_EVENT = "tidepool:text";

export interface TextProbeDetail {
  chars: number;
  total: number;
  at: number;
}

/** Returns whether the event was taken (a text delta, counted instead of rendered). */
export type StreamProbe = (event: UiEvent) => boolean;

export function streamProbe(target: Pick<Document, "dispatchEvent"> = document): StreamProbe {
  let total = 0;
  return (event) => {
    if (event.kind === "turn_started") total = 0;
    if (event.kind !== "text_delta") return false;
    total += event.text.length;
    const detail: TextProbeDetail = { chars: event.text.length, total, at: performance.now() };
    target.dispatchEvent(new CustomEvent(TEXT_EVENT, { detail }));
    return true;
  };
}
