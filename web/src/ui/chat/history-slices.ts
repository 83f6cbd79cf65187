/**
 * The earlier part of a session's view, drawn after its last turns (or a page of earlier messages, drawn
 * when it comes): a slice of whole turns at a time while the page is idle, each put above what is shown.
 * A person at the end of the conversation stays there, and one reading above (at the top too) sees the
 * same messages where they were.
 */

import { dropContinueButtons, markEnding } from "./endings";
import type { SessionView } from "../../protocol/requests";
import type { Transcript } from "./transcript";

type ShownMessage = SessionView["messages"][number];
type MarkEnding = (node: HTMLElement, reason: string) => void;
/** Draw whole turns at the transcript's end, marking how replies ended with `mark`. */
type Draw = (messages: readonly ShownMessage[], mark: MarkEnding) => void;

/** Messages (whole turns) drawn per idle slice. */
const SLICE = 40;
const CONTINUE = '[data-testid="message-continue"]';

/**
 * Where a slice of about `count` messages ending before `end` starts: at a user message (a turn is
 * never split, so a turn's notes stay right), or 0.
 */
export function sliceStart(messages: readonly ShownMessage[], end: number, count: number): number {
  for (let i = Math.max(0, end - count); i > 0; i--) if (messages[i]?.role === "user") return i;
  return 0;
}

/** Draw `messages` above `anchor` (the first node shown), slice by slice; returns what stops it. */
export function drawEarlierSlices(
  messages: readonly ShownMessage[],
  anchor: HTMLElement | null,
  transcript: Transcript,
  mark: MarkEnding,
  draw: Draw,
): () => void {
  let end = messages.length;
  let handle = 0;
  const step = (): void => {
    const start = sliceStart(messages, end, SLICE);
    const staging = document.createElement("div");
    const turnId = transcript.turnId; // the live turn's, not the slice's
    const older = (node: HTMLElement, reason: string): void => markOlder(node, reason, staging, transcript, mark);
    transcript.scroll.into(staging, () => draw(messages.slice(start, end), older));
    transcript.turnId = turnId;
    const first = staging.firstElementChild;
    insertAbove(transcript, staging, anchor);
    if (first instanceof HTMLElement) anchor = first;
    end = start;
    handle = end > 0 ? requestIdleCallback(step, { timeout: 100 }) : 0;
  };
  if (end > 0) handle = requestIdleCallback(step, { timeout: 100 });
  return () => {
    if (handle) cancelIdleCallback(handle);
    handle = 0;
    end = 0;
  };
}

/** Only the newest cut-off reply has a Continue button: an older one gets its note without one. */
function markOlder(
  node: HTMLElement,
  reason: string,
  staging: HTMLElement,
  transcript: Transcript,
  mark: MarkEnding,
): void {
  if (transcript.list.querySelector(CONTINUE)) {
    markEnding(node, reason, () => undefined);
    dropContinueButtons(node);
    return;
  }
  dropContinueButtons(staging);
  mark(node, reason);
}

/**
 * Move `staging`'s nodes above `anchor`, keeping what the person looks at in place: at the end, the view
 * stays at the end; anywhere else (the top included) the message read stays where it was, so scrolling
 * up goes on into what just came.
 */
function insertAbove(transcript: Transcript, staging: HTMLElement, anchor: HTMLElement | null): void {
  const { list, scroll } = transcript;
  const atEnd = scroll.nearBottom();
  const ref = anchor?.isConnected ? anchor : list.querySelector<HTMLElement>(".kept");
  const before = ref?.getBoundingClientRect().top ?? 0;
  const nodes = [...staging.children];
  if (ref) ref.before(...nodes);
  else list.append(...nodes);
  if (atEnd) scroll.toEnd();
  else if (ref) scroll.scroller().scrollTop += ref.getBoundingClientRect().top - before;
}
