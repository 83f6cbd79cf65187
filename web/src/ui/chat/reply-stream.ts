/**
 * The reply streaming now: its text (the first piece painted at once for time to first token, the
 * rest rendered at most once per animation frame, streaming-reply.ts) and the reasoning before it
 * (open while the model thinks, folded when the answer or a tool call starts). When the turn ends
 * its replies are rendered once as a whole.
 */

import { onHighlighterReady } from "../markdown/highlight-loader";
import { highlightRepliesCode } from "../markdown/markdown";
import { setSource } from "./message-actions";
import { ReasoningBlock } from "./reasoning";
import { renderSegment, renderWhole, segmentText, startSegment, type Segment } from "./streaming-reply";
import type { Transcript } from "./transcript";

export class ReplyStream {
  private segment: Segment | null = null;
  private thinking: ReasoningBlock | null = null;
  private readonly dirty = new Set<Segment>();
  private streamed: Segment[] = []; // this turn's streamed replies, rendered in pieces
  private frame = 0;
  /** This turn's latest assistant message. */
  lastReply: HTMLElement | null = null;

  constructor(private readonly transcript: Transcript) {
    // The highlighter arrived (loaded on the first code block): the finished replies' plain code is highlighted.
    onHighlighterReady(() => highlightRepliesCode(transcript.list, new Set(this.streamed.map((seg) => seg.node))));
  }

  text(text: string): void {
    this.fold();
    if (!this.segment) {
      // The first piece is painted at once (time to first token); the rest is batched per frame.
      const node = this.transcript.addMessage("assistant", "");
      const segment = startSegment(node, text);
      setSource(node, () => segmentText(segment));
      this.segment = segment;
      this.lastReply = node;
      renderSegment(segment);
      this.streamed.push(segment);
      return;
    }
    this.segment.pending += text;
    this.dirty.add(this.segment);
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.flush());
  }

  reasoning(text: string): void {
    if (!this.thinking) {
      this.flush();
      this.segment = null; // the reply that follows goes below its reasoning
      this.thinking = new ReasoningBlock();
      this.transcript.scroll.push(this.thinking.root);
    }
    const thinking = this.thinking;
    this.transcript.scroll.following(() => thinking.append(text));
  }

  /** The answer (or a tool call) started: the reasoning folds. */
  fold(): void {
    this.thinking?.fold();
    this.thinking = null;
  }

  /** Render what arrived since the last frame now. */
  flush(): void {
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.transcript.scroll.following(() => {
      for (const seg of this.dirty) renderSegment(seg);
      this.dirty.clear();
    });
  }

  /** Something else came between (a tool card, an error, a new turn): more text starts a new message. */
  interrupt(): void {
    this.segment = null;
  }

  /** The turn ended: its (not too long) replies are rendered once as a whole, as markdown means them. */
  finishTurn(): void {
    this.fold();
    this.flush();
    for (const seg of this.streamed) renderWhole(seg);
    this.streamed = [];
    this.segment = null;
  }

  /** The view is redrawn or a turn starts again: nothing streams into what was shown. */
  forget(): void {
    this.flush();
    this.segment = null;
    this.thinking = null;
    this.streamed = [];
  }
}
