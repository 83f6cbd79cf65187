/** `usage`: the session's tokens and cost, summed over the runtime's `usage` events. */

import type { UiEvent } from "../../protocol/messages";
import { byTestId } from "../common/dom";

type UsageEvent = Extract<UiEvent, { kind: "usage" }>;

export class UsageView {
  private readonly root = byTestId("usage");
  private prompt = 0;
  private completion = 0;
  private total = 0;
  private cost: number | null = null;

  constructor() {
    this.render();
  }

  add(event: UsageEvent): void {
    const prompt = event.prompt_tokens ?? 0;
    const completion = event.completion_tokens ?? 0;
    this.prompt += prompt;
    this.completion += completion;
    this.total += event.total_tokens ?? prompt + completion;
    if (typeof event.cost === "number") this.cost = (this.cost ?? 0) + event.cost;
    this.render();
  }

  reset(): void {
    this.prompt = this.completion = this.total = 0;
    this.cost = null;
    this.render();
  }

  private render(): void {
    const tokens = `${this.total.toLocaleString("en-US")} tokens`;
    const cost = this.cost === null ? "" : ` · $${this.cost < 0.01 ? this.cost.toFixed(4) : this.cost.toFixed(2)}`;
    this.root.textContent = tokens + cost;
    this.root.title = `Session: ${this.prompt} prompt + ${this.completion} completion tokens`;
    this.root.dataset.tokens = String(this.total);
    if (this.cost !== null) this.root.dataset.cost = String(this.cost);
  }
}
