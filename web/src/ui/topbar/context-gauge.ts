/**
 * `context-gauge`: how full the model's context is (`data-used` / `data-limit`, tokens), from the
 * runtime's `context_usage` (the same estimate and window its compaction uses), and when older turns
 * will be summarized (`data-compact-at`). It asks again after each turn, session switch and settings
 * change. For a small window the runtime sends a compact system prompt and fewer tools
 * (`data-prompt="compact"`); the title says so.
 */

import type { WorkerToMain } from "../../protocol/main-worker-messages";
import { el } from "../common/dom";
import type { Requester } from "../../protocol/requests";
import "./context-gauge.css";

const REFRESH_DELAY_MS = 120;
/** The first measure of a session waits a little: it renders the system prompt, which loads the skills
 * code the first time (seconds in a slow tab), and what the person does right after boot goes first. */
const FIRST_DELAY_MS = 2500;

export class ContextGauge {
  readonly root: HTMLElement;
  private readonly fill: HTMLElement;
  private readonly label: HTMLElement;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private available = false;
  private measured = false;

  /** Called with each measure (the chat withholds Continue when the window is full). */
  onMeasure: (used: number, limit: number) => void = () => undefined;

  constructor(private readonly request: Requester) {
    this.fill = el("span", { class: "context-gauge-fill" });
    this.label = el("span", { class: "context-gauge-label" }, "context");
    this.root = el(
      "div",
      {
        class: "context-gauge",
        "data-testid": "context-gauge",
        "data-used": "0",
        "data-limit": "0",
        role: "meter",
        "aria-label": "Context used",
      },
      el("span", { class: "context-gauge-bar", "aria-hidden": "true" }, this.fill),
      this.label,
    );
    const usage = document.querySelector('[data-testid="usage"]');
    usage?.parentElement?.insertBefore(this.root, usage);
  }

  /** Follow the worker: refresh when what the model would see may have changed. */
  follow(message: WorkerToMain): void {
    if (message.type === "event" && message.event.kind === "ready") {
      this.available = true; // the session_opened that follows asks
    } else if (message.type === "boot_progress" || message.type === "boot_failed") {
      this.available = false;
    } else if (message.type === "event") {
      const kind = message.event.kind;
      if (kind === "session_opened" || kind === "turn_finished" || kind === "notice") this.refresh();
    }
  }

  /** Ask again soon (several reasons in a row make one request). */
  refresh(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.load();
      },
      this.measured ? REFRESH_DELAY_MS : FIRST_DELAY_MS,
    );
  }

  private async load(): Promise<void> {
    if (!this.available) return;
    const reply = await this.request("context_usage", {});
    if (!reply.ok) return;
    this.measured = true;
    const { used, limit, compact_at: compactAt, prompt } = reply.value;
    if (limit <= 0) return;
    this.show(used, limit, compactAt, prompt === "compact");
    this.onMeasure(used, limit);
  }

  private show(used: number, limit: number, compactAt: number, compactPrompt: boolean): void {
    const share = Math.min(1, used / limit);
    this.root.dataset.used = String(used);
    this.root.dataset.limit = String(limit);
    this.root.dataset.compactAt = String(compactAt);
    this.root.dataset.prompt = compactPrompt ? "compact" : "full";
    this.root.dataset.level = used >= compactAt ? "full" : used >= compactAt * 0.75 ? "high" : "ok";
    this.root.setAttribute("aria-valuenow", String(used));
    this.root.setAttribute("aria-valuemax", String(limit));
    this.fill.style.width = `${(share * 100).toFixed(1)}%`;
    this.label.textContent = `${Math.round(share * 100)}% of ${tokens(limit)}`;
    const left = Math.max(0, compactAt - used);
    this.root.title =
      `About ${used.toLocaleString("en-US")} of ${limit.toLocaleString("en-US")} tokens of the model's context are in use (estimated from the text; a server that reports no usage is measured the same way). ` +
      (left > 0
        ? `Older turns are summarized when a request would pass ${compactAt.toLocaleString("en-US")} tokens (about ${left.toLocaleString("en-US")} more).`
        : "The next request summarizes older turns to make room.") +
      (compactPrompt ? " The window is small, so a compact system prompt and fewer tools are in use." : "");
  }
}

function tokens(n: number): string {
  return n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}
