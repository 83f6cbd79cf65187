/**
 * A session's stored conversation drawn into the transcript (after boot, a reload or a session
 * switch): its messages with their reasoning, images and tool cards, "interrupted" notes after a turn
 * the page left, the button for earlier messages, and the calls still waiting for an approval. The
 * last turns are drawn at once; the view's earlier ones follow above them while the page is idle
 * (history-slices.ts), so opening a long session costs what its last screen costs. Earlier pages of a
 * long session are drawn above in the same way when they come (earlier-messages.ts).
 */

import type { ChatMedia } from "../images/chat-media";
import { markMessage, type BranchHost } from "./branches";
import { earlierButton, type LoadEarlier } from "./earlier-messages";
import { drawEarlierSlices, sliceStart } from "./history-slices";
import { ReasoningBlock } from "./reasoning";
import type { SessionView } from "../../protocol/requests";
import type { Transcript } from "./transcript";
import { showTask, type ReadSession } from "./agent-tasks";

type ShownMessage = SessionView["messages"][number];

/** About this many messages (whole turns) are drawn at once when a session opens: more than a screen holds. */
export const FIRST_DRAWN = 40;

export interface HistoryHost {
  transcript: Transcript;
  media: ChatMedia | null;
  /** Mark how a stored reply ended (with Continue when it was cut off). */
  markEnding(node: HTMLElement, reason: string): void;
  /** The messages before the first one shown, a page at a time. */
  earlier: LoadEarlier;
  branches: BranchHost;
  readSession: ReadSession;
  /** The session's delegated tasks: each is shown on its delegate call's card when that card is drawn. */
  agentTasks?: SessionView["agent_tasks"];
}

/** Draw `view`'s messages into the (just cleared) transcript; returns what stops drawing its earlier ones. */
export function drawHistory(view: SessionView, host: HistoryHost): () => void {
  const { transcript } = host;
  const start = sliceStart(view.messages, view.messages.length, FIRST_DRAWN);
  host = { ...host, agentTasks: view.agent_tasks };
  drawMessages(view.messages.slice(start), host);
  for (const call of view.pending_approvals)
    transcript.card(call.call_id, call.name, call.arguments, true).askApproval();
  const first = transcript.list.firstElementChild;
  const stops = [drawAbove(view.messages.slice(0, start), first, host)];
  if (view.earlier > 0) {
    const show = (page: SessionView): void => {
      const top = button.nextElementSibling; // the first shown, or about to be shown (a slice above it)
      stops.push(drawAbove(page.messages, top, { ...host, agentTasks: page.agent_tasks }));
    };
    const button = earlierButton(view, transcript.scroll.scroller(), host.earlier, show);
    transcript.list.prepend(button);
  }
  return () => stops.forEach((stop) => stop());
}

/** Draw `messages` (whole turns) above `first`, a slice at a time while the page is idle; returns what stops it. */
function drawAbove(messages: readonly ShownMessage[], first: Element | null, host: HistoryHost): () => void {
  return drawEarlierSlices(
    messages,
    first instanceof HTMLElement ? first : null,
    host.transcript,
    (node, reason) => host.markEnding(node, reason),
    (older, mark) => drawMessages(older, { ...host, markEnding: mark }),
  );
}

/**
 * Draw a page's messages (whole turns) just above `below` (a search hit's bar, found-message.ts), off the list
 * first, then put in: the view stays where the person reads, nothing above it having moved (the browser's scroll
 * anchoring could take `below` as its anchor and follow it down past what came).
 */
export function drawBelow(page: SessionView, below: HTMLElement, host: HistoryHost): void {
  const { scroll } = host.transcript;
  const drawn = document.createElement("div");
  scroll.into(drawn, () => drawMessages(page.messages, { ...host, agentTasks: page.agent_tasks }));
  const scroller = scroll.scroller();
  const top = scroller.scrollTop;
  below.before(...drawn.childNodes);
  scroller.scrollTop = top;
  scroll.hold();
}

/** Draw `messages` (whole turns: the first is a user message, or the session's first) at the transcript's end. */
export function drawMessages(messages: readonly ShownMessage[], host: HistoryHost): void {
  const { transcript, media } = host;
  let interrupted = false; // the note goes after what the cut-off turn completed
  const endTurn = (): void => {
    if (interrupted) transcript.note("Interrupted when the page went away.");
    interrupted = false;
  };
  for (const message of messages) {
    if (message.role === "summary") {
      transcript.note("Earlier messages were summarized for the model.");
      continue;
    }
    if (message.role !== "user" && message.role !== "assistant") continue; // system and tool rows are not shown
    if (message.role === "user") endTurn();
    transcript.turnId = message.turn_id;
    if (message.reasoning) transcript.scroll.push(new ReasoningBlock(message.reasoning, false).root);
    if (message.text || message.images.length) {
      const node = transcript.addMessage(message.role, message.text);
      markMessage(node, message, host.branches);
      if (message.role === "assistant" && message.finish_reason) host.markEnding(node, message.finish_reason);
      media?.showStored(node, message.images);
    }
    for (const call of message.tool_calls) {
      const card = transcript.card(call.call_id, call.name, call.arguments, true);
      card.restore(call.status, call.result, call.images, media?.loader);
      for (const task of host.agentTasks ?? [])
        if (task.call_id === call.call_id) showTask(card.root, task, host.readSession);
    }
    if (message.role === "user" && message.status === "interrupted") interrupted = true;
  }
  endTurn();
}
