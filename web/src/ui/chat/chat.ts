/**
 * The conversation: what a turn does as the runtime's events arrive, and the person's actions on it
 * (send, stop, edit, regenerate, continue). What is drawn is the transcript's (transcript.ts), the
 * reply streaming now is reply-stream.ts's, the message box and its buttons are composer.ts's, a tool server's
 * prompt sent as a turn is prompt-turn.ts's, a search's hit shown is found-message.ts's, a tool call's events
 * are tool-events.ts's.
 */

import type {
  ApprovalDecision,
  AttachedResource,
  ImageAttachment,
  McpPromptOrigin,
  UiEvent,
} from "../../protocol/messages";
import type { RequestResult } from "../../protocol/main-worker-messages";
import { slashCommands, watchSlashCommands, type SlashCommand } from "../../mcp/prompt-list";
import type { ChatMedia } from "../images/chat-media";
import type { SentImage } from "../images/composer-attachments";
import { showAttached } from "../resources/attached-resources";
import { CONTINUE_PROMPT } from "./endings";
import { markStored, switchBranch } from "./branches";
import { editLast, setSource, type MessageActionHost } from "./message-actions";
import { Composer } from "./composer";
import { drawBelow, drawHistory, type HistoryHost } from "./history";
import { FoundMessage, type LoadLater } from "./found-message";
import { PROMPT_BUSY, promptTurn, SentPrompts } from "./prompt-turn";
import type { LoadEarlier } from "./earlier-messages";
import { SwitchHold } from "./switch-hold";
import { ReplyStream } from "./reply-stream";
import type { SessionView } from "../../protocol/requests";
import { newTurnId } from "./streaming-reply";
import { Transcript } from "./transcript";
import { showTask, type ReadSession } from "./agent-tasks";
import { showToolEvent } from "./tool-events";

/** What a turn carries beside its text and images. */
export interface TurnExtras {
  /** Tool servers' resources the person attached. */
  resources?: AttachedResource[];
  /** The text is this tool server's prompt (`/server:prompt`). */
  prompt?: McpPromptOrigin;
}

interface SentExtras extends TurnExtras {
  /** Images that came with the attached resources. */
  resourceImages?: ImageAttachment[];
}

export interface ChatActions {
  /** Start turn `turnId` with `text` (and `images`); `replaces`: the turn it replaces with every later one (edit,
   * regenerate); `extras`: the tool servers' resources attached, or the tool server's prompt the text is. */
  send(text: string, turnId: string, replaces?: string, images?: ImageAttachment[], extras?: TurnExtras): void;
  /** `prompts/get` on a tool server: an McpPromptTurn, or why not. */
  prompt(server: string, name: string, args: Record<string, string>): Promise<RequestResult>;
  stop(): void;
  decide(callId: string, decision: ApprovalDecision): void;
  /** `waiting`: the turn waits for the person (a stored turn resumed at its approval), not for the runtime. */
  turnChanged(running: boolean, waiting: boolean): void;
  /** The `count` messages of the open session before seq `before` (a long session opens with its last ones). */
  earlier: LoadEarlier;
  /** The `count` messages of the open session after seq `after` (below a search's hit, found-message.ts). */
  later: LoadLater;
  /** The open session's view as stored now, its last `shown` messages (null: it could not be read). */
  storedView(shown: number): Promise<SessionView | null>;
  /** Bring version `seq` of a message into view: the session's view then (null: refused, said why). */
  showBranch(seq: number): Promise<SessionView | null>;
  /** A new chat from message `seq` (the runtime opens it: `session_opened`). */
  fork(seq: number): void;
  /** A delegated agent's session as text, to read (it is not opened). */
  readSession: ReadSession;
}

const LOCAL_STOP_GRACE_MS = 5000;

export class ChatView {
  private readonly host: MessageActionHost = {
    busy: () => this.running || !this.canSend || this.found.shown,
    resend: (node, text, replaces) => this.resend(node, text, replaces),
    showBranch: (seq, node, testid) =>
      switchBranch(this.transcript.list, node, testid, async () => {
        const view = await this.actions.showBranch(seq);
        if (!view || this.running) return false;
        this.showHistory(view);
        return true;
      }),
    fork: (seq) => this.actions.fork(seq),
  };
  private readonly transcript = new Transcript(this.host, (id, decision) => this.actions.decide(id, decision));
  private readonly stream: ReplyStream;
  /** What a stored conversation is drawn with (history.ts). */
  private readonly history: HistoryHost;
  private readonly composer: Composer;
  private running = false;
  private canSend = false;
  private available = false;
  /** No message goes out while another chat is being opened (switch-hold.ts). */
  readonly switchHold = new SwitchHold(
    () => this.setAvailable(this.available),
    () => this.submit(), // Enter pressed while the chat opened: it goes to the chat now in view
  );
  private stopTimer: ReturnType<typeof setTimeout> | null = null;
  /** Stops drawing the shown session's earlier messages (history-slices.ts). */
  private stopHistory: (() => void) | null = null;
  /** A chat search's hit shown in place of the latest messages (found-message.ts). */
  readonly found: FoundMessage = new FoundMessage({
    transcript: this.transcript,
    running: () => this.running,
    load: (before, count) => this.actions.earlier(before, count),
    later: (after, count) => this.actions.later(after, count),
    latest: (shown) => this.actions.storedView(shown),
    show: (view) => this.showHistory(view),
    drawLater: (page, bar) => drawBelow(page, bar, this.history),
  });
  /** The user messages that are a tool server's prompt (sent from the / menu). */
  private readonly prompts = new SentPrompts();

  constructor(
    private readonly actions: ChatActions,
    private readonly media: ChatMedia | null = null,
  ) {
    this.composer = new Composer({
      submit: () => this.submit(),
      stop: () => this.stop(),
      running: () => this.running,
      commands: slashCommands,
      watchCommands: watchSlashCommands,
      runPrompt: (command, args) => this.runPrompt(command, args),
    });
    this.composer.sync(this.canSend, this.running);
    this.stream = new ReplyStream(this.transcript);
    this.history = {
      transcript: this.transcript,
      media,
      markEnding: (node, reason) => this.markEnding(node, reason),
      earlier: (before, count) => actions.earlier(before, count),
      branches: this.host,
      readSession: actions.readSession,
    };
  }

  /** Whether the runtime can take a message now (ready, not booting). */
  setAvailable(available: boolean): void {
    this.available = available;
    this.canSend = available && !this.switchHold.held;
    this.composer.sync(this.canSend, this.running);
  }

  get isRunning(): boolean {
    return this.running;
  }

  onEvent(event: UiEvent): void {
    const { transcript, stream } = this;
    switch (event.kind) {
      case "turn_started":
        transcript.turnId = event.turn_id;
        return this.setRunning(true);
      case "text_delta":
        transcript.clearRetrying();
        return stream.text(event.text);
      case "reasoning_delta":
        transcript.clearRetrying();
        return stream.reasoning(event.text);
      case "reply_finished":
        stream.flush();
        if (stream.lastReply) this.markEnding(stream.lastReply, event.finish_reason);
        return;
      case "tool_started":
      case "approval_needed":
      case "tool_output":
      case "tool_finished":
        return showToolEvent(event, this.transcript, this.stream, this.media?.loader);
      case "turn_finished":
        transcript.clearRetrying();
        stream.finishTurn();
        if (event.reason === "aborted") transcript.note("Stopped.");
        else if (event.reason === "max_rounds")
          transcript.note("Stopped: the turn reached its maximum number of rounds.");
        this.nameStored();
        return this.setRunning(false);
      case "error":
        return this.onError(event.message, event.turn_id);
      case "session_opened":
        // A turn that waits for an approval resumes; its approval_needed follows.
        if (event.resumed_turn) this.setRunning(true, true);
        return;
      case "notice":
        return transcript.notice(event.code, event.text);
      case "agent_task":
        showTask(transcript.card(event.call_id, "delegate", undefined).root, event, this.actions.readSession);
        return;
      case "ready":
      case "usage":
        return;
    }
  }

  /** Show a session's stored conversation (after boot or a reload), replacing what is shown. */
  showHistory(view: SessionView): void {
    this.found.forget();
    this.stream.forget();
    this.stopHistory?.();
    const kept = this.transcript.clear(); // boot notices outlive the redraw
    this.stopHistory = drawHistory(view, this.history);
    if (view.running_turn) this.setRunning(true, true); // a turn this page did not start: resumed at its approval
    this.transcript.redrawn(kept);
  }

  /** ↑ in the empty box: edit the last message sent. */
  editLast(): boolean {
    return editLast(this.transcript.list, this.host);
  }

  focusInput(): void {
    this.composer.focus();
  }

  /** An error that did not come from a turn (boot, connection, restart). */
  showError(text: string): void {
    this.transcript.addMessage("error", text);
  }

  /** The runtime went away (restart, crash): no turn is running any more. */
  reset(): void {
    this.stream.flush();
    this.stream.interrupt();
    this.setRunning(false);
  }

  private onError(message: string, turnId: string | null | undefined): void {
    this.stream.fold();
    this.stream.flush();
    // An error outside a turn (a failed save) stays shown when the session is redrawn, and a
    // reply streaming meanwhile goes on in the same message.
    if (!turnId) {
      this.transcript.addMessage("error", message).classList.add("kept");
      return;
    }
    this.stream.interrupt();
    this.transcript.addMessage("error", message);
  }

  private submit(): void {
    if (this.switchHold.held && this.available) return this.switchHold.sendLater();
    if (this.found.shown) {
      // a message goes after the chat's last: those come back first, then it is sent
      void this.found.back().then((back) => back && this.submit());
      return;
    }
    const text = this.composer.text;
    const attachments = this.media?.attachments;
    const held = this.media?.resources;
    if (attachments?.busy || held?.busy || !this.canSend || this.running) return;
    const images = attachments?.take() ?? [];
    const taken = held?.take() ?? { resources: [], images: [] };
    if (!text && images.length === 0 && taken.resources.length === 0) return;
    this.composer.clear();
    this.sendText(text, images, { resources: taken.resources, resourceImages: taken.images });
  }

  /** A tool server's prompt as the person's turn (prompt-turn.ts); resolves with why not, or null once it went. */
  private async runPrompt(command: SlashCommand, args: Record<string, string>): Promise<string | null> {
    if (!this.canSend || this.running) return PROMPT_BUSY;
    const turn = await promptTurn(command, args, (server, name, a) => this.actions.prompt(server, name, a));
    if (typeof turn === "string") return turn;
    if (!this.canSend || this.running) return PROMPT_BUSY;
    this.sendText(turn.text, turn.images, { prompt: turn.origin });
    return null;
  }

  private sendText(
    text: string,
    images: SentImage[] = [],
    { resources = [], resourceImages = [], prompt }: SentExtras = {},
  ): void {
    const turnId = newTurnId();
    this.transcript.turnId = turnId;
    const all = [...images.map((i) => i.attachment), ...resourceImages];
    // Out first, drawn after (time to first token): the worker starts while the page renders the message.
    const extras = { ...(resources.length ? { resources } : {}), ...(prompt ? { prompt } : {}) };
    this.actions.send(text, turnId, undefined, all.length ? all : undefined, extras);
    this.transcript.dropContinue();
    this.stream.lastReply = null;
    const node = this.transcript.addMessage("user", text);
    if (prompt) this.prompts.remember(node, prompt, text);
    this.media?.showSent(node, images);
    showAttached(node, resources);
    this.stream.interrupt();
    this.setRunning(true);
  }

  /** Regenerate or an edit: the turns from `userNode` on leave the view, `text` goes out as a new turn. */
  private resend(userNode: HTMLElement, text: string, replaces: string): void {
    if (this.running || !this.canSend) return;
    void (this.media?.imagesOf(userNode) ?? Promise.resolve([])).then((images) =>
      this.resendWith(userNode, text, replaces, images),
    );
  }

  private resendWith(userNode: HTMLElement, text: string, replaces: string, images: ImageAttachment[]): void {
    if (this.running || !this.canSend) return;
    this.stream.forget();
    this.transcript.removeFrom(userNode);
    this.transcript.showText(userNode, text);
    setSource(userNode, () => text);
    delete userNode.dataset.seq; // a new message now: its seq and versions come when its turn is stored
    delete userNode.dataset.branch;
    userNode.querySelector(".message-branch")?.remove();
    const turnId = newTurnId();
    this.transcript.turnId = turnId;
    userNode.dataset.turnId = turnId;
    this.setRunning(true);
    const prompt = this.prompts.again(userNode, text); // a server's prompt sent again unchanged stays outside text
    this.actions.send(text, turnId, replaces, images.length ? images : undefined, prompt ? { prompt } : undefined);
  }

  /** The turn's messages are stored: they get their seqs (to fork from) and their versions' arrows. */
  private nameStored(): void {
    const turn = this.transcript.turnId;
    if (!turn) return;
    // The turn that ended is the last one (an edit or a regenerate replaces every later turn): its
    // messages and cards bound what it stored, with room for a summary made on the way.
    const drawn = this.transcript.list.querySelectorAll(`[data-turn-id="${CSS.escape(turn)}"]`).length;
    void this.actions.storedView(drawn + 2).then((view) => {
      if (view && !this.running) markStored(this.transcript.list, view, this.host);
    });
  }

  private stop(): void {
    if (!this.running) return;
    this.actions.stop();
    // If the runtime never confirms (it is stuck or gone), stop waiting for it here.
    if (this.stopTimer === null) this.stopTimer = setTimeout(() => this.setRunning(false), LOCAL_STOP_GRACE_MS);
  }

  private setRunning(running: boolean, waiting = false): void {
    if (this.stopTimer !== null && !running) {
      clearTimeout(this.stopTimer);
      this.stopTimer = null;
    }
    if (this.running === running) return;
    this.running = running;
    this.composer.sync(this.canSend, this.running);
    this.transcript.placeActions();
    this.actions.turnChanged(running, waiting);
  }

  private markEnding(node: HTMLElement, reason: string): void {
    this.transcript.markEnding(node, reason, () => {
      if (this.canSend && !this.running) this.sendText(CONTINUE_PROMPT);
    });
  }
}
