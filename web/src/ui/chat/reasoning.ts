/**
 * The model's reasoning for a reply: a collapsible block (`reasoning`) above it. While the model
 * thinks the block is open and grows live; it folds itself when the answer (or a tool call) starts.
 * Reasoning is shown as plain text: it is the model's scratch work, not a formatted answer.
 */

import { el } from "../common/dom";

export class ReasoningBlock {
  readonly root: HTMLDetailsElement;
  private readonly label: HTMLElement;
  private readonly body: HTMLElement;

  constructor(text = "", live = true) {
    this.label = el("summary", {}, live ? "Thinking…" : "Reasoning");
    this.body = el("div", { class: "reasoning-body" }, text);
    this.root = el(
      "details",
      { class: "reasoning", "data-testid": "reasoning", "data-state": live ? "live" : "done" },
      this.label,
      this.body,
    );
    this.root.open = live;
  }

  /** More reasoning arrived (a text node per piece: no re-layout of what is there). */
  append(text: string): void {
    this.body.append(text);
  }

  get text(): string {
    return this.body.textContent ?? "";
  }

  /** The answer started (or the turn ended): fold, and say it is done. */
  fold(): void {
    this.root.open = false;
    this.root.dataset.state = "done";
    this.label.textContent = "Reasoning";
  }
}
