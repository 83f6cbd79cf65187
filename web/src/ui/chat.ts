/**
 * The conversation: user / assistant / error `message`s and `tool-call` cards, the composer
 * (Enter sends, Shift+Enter newline) and the stop control (also Esc). Streaming text is rendered as
 * markdown at most once per animation frame, so the main thread stays light.
 */

import { ScrollingList } from "./scrolling-list";
import { earlierButton } from "./earlier-messages";
import type { ApprovalDecision, ImageAttachment, UiEvent } from "../protocol/messages";
import type { ChatMedia } from "./chat-media";
import type { SentImage } from "./composer-attachments";
import { byTestId, el } from "./dom";
import type { SessionView } from "../protocol/requests";
import { onHighlighterReady } from "./highlight-loader";
import { renderInto, rerenderCode } from "./markdown";
import { attachActions, editLast, placeRegenerate, removeAfter, setSource, sourceOf, type MessageActionHost } from "./message-actions";
import { CONTINUE_PROMPT, clearRetryNotices, dropContinueButtons, markEnding, noticeNode } from "./endings";
import { ReasoningBlock } from "./reasoning";
import { newTurnId, renderSegment, renderWhole, startSegment, type Segment } from "./streaming-reply";
import { ToolCard } from "./tool-card";

export interface ChatActions {
  /** Start turn `turnId` with `text` (and `images`); `replaces`: the turn it replaces with every later one (edit, regenerate). */
  send(text: string, turnId: string, replaces?: string, images?: ImageAttachment[]): void;
  stop(): void;
  decide(callId: string, decision: ApprovalDecision): void;
  turnChanged(running: boolean): void;
  /** Show `count` more of the session's earlier messages (a long session opens with its last ones). */
  showEarlier(count: number): void;
}

type Role = "user" | "assistant" | "error";

const LOCAL_STOP_GRACE_MS = 5000;

export class ChatView {
  private readonly list = document.querySelector<HTMLElement>(".messages") as HTMLElement;
  private readonly empty = document.querySelector<HTMLElement>(".empty-state") as HTMLElement;
  private readonly scroll = new ScrollingList(this.list, this.empty);
  private readonly input = byTestId<HTMLTextAreaElement>("chat-input");
  private readonly sendButton = byTestId<HTMLButtonElement>("chat-send");
  private readonly stopButton = byTestId<HTMLButtonElement>("chat-stop");
  private readonly cards = new Map<string, ToolCard>();
  private segment: Segment | null = null;
  private thinking: ReasoningBlock | null = null; // the reasoning streaming now, folded when the answer starts
  private lastReply: HTMLElement | null = null; // this turn's latest assistant message
  private dirty = new Set<Segment>();
  private streamed: Segment[] = []; // this turn's streamed replies, rendered in pieces
  private frame = 0;
  private running = false;
  private canSend = false;
  private stopTimer: ReturnType<typeof setTimeout> | null = null;
  private turnId: string | null = null; // the turn whose messages arrive now
  private readonly messageHost: MessageActionHost = {
    busy: () => this.running || !this.canSend,
    resend: (node, text, replaces) => this.resend(node, text, replaces),
  };

  constructor(
    private readonly actions: ChatActions,
    private readonly media: ChatMedia | null = null,
  ) {
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener("input", () => this.autosize());
    this.sendButton.addEventListener("click", () => this.submit());
    this.stopButton.addEventListener("click", () => this.stop());
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.running && !e.defaultPrevented) {
        e.preventDefault();
        this.stop();
      }
    });
    this.syncControls();
    // The highlighter arrived (loaded on the first code block): draw the finished replies' code again.
    onHighlighterReady(() => rerenderCode(this.list, new Set(this.streamed.map((seg) => seg.node)), sourceOf));
  }

  /** Whether the runtime can take a message now (ready, not booting). */
  setAvailable(available: boolean): void {
    this.canSend = available;
    this.syncControls();
  }

  get isRunning(): boolean {
    return this.running;
  }

  onEvent(event: UiEvent): void {
    switch (event.kind) {
      case "turn_started":
        this.turnId = event.turn_id;
        return this.setRunning(true);
      case "text_delta":
        clearRetryNotices(this.list);
        this.foldThinking();
        return this.appendText(event.text);
      case "reasoning_delta":
        clearRetryNotices(this.list);
        return this.appendReasoning(event.text);
      case "reply_finished":
        this.flush();
        if (this.lastReply) this.markEnding(this.lastReply, event.finish_reason);
        return;
      case "tool_started":
        this.foldThinking();
        this.card(event.call_id, event.name, event.arguments).started();
        this.segment = null;
        return;
      case "approval_needed":
        this.foldThinking();
        this.card(event.call_id, event.name, event.arguments).askApproval(event.preview, event.always_asks);
        this.segment = null;
        return;
      case "tool_output":
        this.cards.get(event.call_id)?.appendOutput(event.stream, event.text);
        return;
      case "tool_finished":
        this.card(event.call_id, event.name, event.arguments).finished(event.status ?? (event.ok ? "ok" : "error"), event.result, event.images, this.media?.loader);
        return;
      case "turn_finished":
        clearRetryNotices(this.list);
        this.foldThinking();
        this.flush();
        this.finishStreamed();
        this.segment = null;
        if (event.reason === "aborted") this.note("Stopped.");
        else if (event.reason === "max_rounds") this.note("Stopped: the turn reached its maximum number of rounds.");
        return this.setRunning(false);
      case "error":
        this.foldThinking();
        this.flush();
        // An error outside a turn (a failed save) stays shown when the session is redrawn, and a
        // reply streaming meanwhile goes on in the same message.
        if (!event.turn_id) {
          this.addMessage("error", event.message).classList.add("kept");
          return;
        }
        this.segment = null;
        this.addMessage("error", event.message);
        return;
      case "session_opened":
        // A turn that waits for an approval resumes; its approval_needed follows.
        if (event.resumed_turn) this.setRunning(true);
        return;
      case "notice":
        this.notice(event.code, event.text);
        return;
      case "ready":
      case "usage":
        return;
    }
  }

  /** Show a session's stored conversation (after boot or a reload), replacing what is shown. */
  showHistory(view: SessionView): void {
    this.flush();
    const notices = [...this.list.querySelectorAll<HTMLElement>(".kept")]; // boot notices outlive the redraw
    this.list.replaceChildren();
    this.cards.clear(); // call ids repeat across sessions (and providers)
    this.segment = null;
    this.thinking = null;
    this.streamed = [];
    let interrupted = false; // the note goes after what the cut-off turn completed
    const endTurn = (): void => {
      if (interrupted) this.note("Interrupted when the page went away.");
      interrupted = false;
    };
    for (const message of view.messages) {
      if (message.role === "summary") {
        this.note("Earlier messages were summarized for the model.");
        continue;
      }
      if (message.role !== "user" && message.role !== "assistant") continue; // system and tool rows are not shown
      if (message.role === "user") endTurn();
      this.turnId = message.turn_id;
      if (message.reasoning) this.scroll.push(new ReasoningBlock(message.reasoning, false).root);
      if (message.text || message.images.length) {
        const node = this.addMessage(message.role, message.text);
        if (message.role === "assistant" && message.finish_reason) this.markEnding(node, message.finish_reason);
        this.media?.showStored(node, message.images);
      }
      for (const call of message.tool_calls) this.card(call.call_id, call.name, call.arguments, true).restore(call.status, call.result, call.images, this.media?.loader);
      if (message.role === "user" && message.status === "interrupted") interrupted = true;
    }
    endTurn();
    if (view.earlier > 0) this.list.prepend(earlierButton(view.earlier, view.messages.length, (n) => this.actions.showEarlier(n)));
    for (const call of view.pending_approvals) this.card(call.call_id, call.name, call.arguments, true).askApproval();
    this.list.append(...notices);
    this.empty.hidden = this.list.childElementCount > 0;
    if (view.running_turn) this.setRunning(true);
    placeRegenerate(this.list, this.messageHost);
    this.scroll.toEnd();
  }

  /** ↑ in the empty box: edit the last message sent. */
  editLast(): boolean {
    return editLast(this.list, this.messageHost);
  }

  focusInput(): void {
    this.input.focus();
  }

  /** An error that did not come from a turn (boot, connection, restart). */
  showError(text: string): void {
    this.addMessage("error", text);
  }

  /** The runtime went away (restart, crash): no turn is running any more. */
  reset(): void {
    this.flush();
    this.segment = null;
    this.setRunning(false);
  }

  private submit(): void {
    const text = this.input.value.trim();
    const attachments = this.media?.attachments;
    if (attachments?.busy || !this.canSend || this.running) return;
    const images = attachments?.take() ?? [];
    if (!text && images.length === 0) return;
    this.input.value = "";
    this.autosize();
    this.sendText(text, images);
  }

  private sendText(text: string, images: SentImage[] = []): void {
    this.turnId = newTurnId();
    // Out first, drawn after (time to first token): the worker starts while the page renders the message.
    this.actions.send(text, this.turnId, undefined, images.length ? images.map((i) => i.attachment) : undefined);
    dropContinueButtons(this.list);
    this.lastReply = null;
    const node = this.addMessage("user", text);
    this.media?.showSent(node, images);
    this.segment = null;
    this.setRunning(true);
  }

  /** Regenerate or an edit: the turns from `userNode` on leave the view, `text` goes out as a new turn. */
  private resend(userNode: HTMLElement, text: string, replaces: string): void {
    if (this.running || !this.canSend) return;
    void (this.media?.imagesOf(userNode) ?? Promise.resolve([])).then((images) => this.resendWith(userNode, text, replaces, images));
  }

  private resendWith(userNode: HTMLElement, text: string, replaces: string, images: ImageAttachment[]): void {
    if (this.running || !this.canSend) return;
    this.flush();
    for (const gone of removeAfter(userNode)) if (gone.dataset.callId) this.cards.delete(gone.dataset.callId);
    const body = userNode.querySelector<HTMLElement>(".message-body");
    if (body) body.textContent = text;
    setSource(userNode, () => text);
    this.turnId = newTurnId();
    userNode.dataset.turnId = this.turnId;
    this.segment = null;
    this.streamed = [];
    this.setRunning(true);
    this.actions.send(text, this.turnId, replaces, images.length ? images : undefined);
  }

  private stop(): void {
    if (!this.running) return;
    this.actions.stop();
    // If the runtime never confirms (it is stuck or gone), stop waiting for it here.
    if (this.stopTimer === null) this.stopTimer = setTimeout(() => this.setRunning(false), LOCAL_STOP_GRACE_MS);
  }

  private setRunning(running: boolean): void {
    if (this.stopTimer !== null && !running) {
      clearTimeout(this.stopTimer);
      this.stopTimer = null;
    }
    if (this.running === running) return;
    this.running = running;
    this.syncControls();
    placeRegenerate(this.list, this.messageHost);
    this.actions.turnChanged(running);
  }

  private syncControls(): void {
    this.stopButton.hidden = !this.running;
    this.stopButton.disabled = !this.running;
    this.sendButton.disabled = !this.canSend || this.running;
  }

  /** The card of a call, made on first sight; `place` moves an existing one to the end (history). */
  private card(callId: string, name: string, args: unknown, place = false): ToolCard {
    let card = this.cards.get(callId);
    if (!card) {
      card = new ToolCard(callId, name, args, (id, decision) => this.actions.decide(id, decision));
      if (this.turnId) card.root.dataset.turnId = this.turnId;
      this.cards.set(callId, card);
      this.scroll.push(card.root);
    } else {
      if (args !== undefined) card.setArguments(args);
      if (place) this.scroll.push(card.root);
    }
    return card;
  }

  private appendReasoning(text: string): void {
    if (!this.thinking) {
      this.flush();
      this.segment = null; // the reply that follows goes below its reasoning
      this.thinking = new ReasoningBlock();
      this.scroll.push(this.thinking.root);
    }
    const thinking = this.thinking;
    this.scroll.following(() => thinking.append(text));
  }

  private markEnding(node: HTMLElement, reason: string): void {
    dropContinueButtons(this.list);
    markEnding(node, reason, () => {
      if (this.canSend && !this.running) this.sendText(CONTINUE_PROMPT);
    });
  }

  private foldThinking(): void {
    this.thinking?.fold();
    this.thinking = null;
  }

  private appendText(text: string): void {
    if (!this.segment) {
      // The first piece is painted at once (time to first token); the rest is batched per frame.
      const node = this.addMessage("assistant", "");
      const segment = startSegment(node, text);
      setSource(node, () => segment.text);
      this.segment = segment;
      this.lastReply = node;
      renderSegment(this.segment);
      this.streamed.push(this.segment);
      return;
    }
    this.segment.text += text;
    this.dirty.add(this.segment);
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.scroll.following(() => {
      for (const seg of this.dirty) renderSegment(seg);
      this.dirty.clear();
    });
  }

  /** A turn ended: render its (not too long) replies once as a whole, exactly as markdown means them. */
  private finishStreamed(): void {
    for (const seg of this.streamed) renderWhole(seg);
    this.streamed = [];
  }

  private addMessage(role: Role, text: string): HTMLElement {
    const body = el("div", { class: "message-body" });
    if (role === "assistant") renderInto(body, text);
    else body.textContent = text;
    const node = el("div", { class: `message message-${role}`, "data-testid": "message", "data-role": role }, body);
    if (this.turnId) node.dataset.turnId = this.turnId;
    attachActions(node, () => text, this.messageHost);
    this.scroll.push(node);
    return node;
  }

  private note(text: string): void {
    this.scroll.push(el("div", { class: "turn-note" }, text));
  }

  /** Something the runtime wants the person to know that is not a turn's error (a restored save, …). */
  private notice(code: string, text: string): void {
    if (code === "retrying") clearRetryNotices(this.list);
    this.scroll.push(noticeNode(code, text));
  }

  private autosize(): void {
    this.input.rows = Math.min(8, Math.max(1, this.input.value.split("\n").length));
  }
}
