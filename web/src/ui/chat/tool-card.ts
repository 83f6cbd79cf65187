/** A `tool-call` card: name, status, expandable arguments and result, approval buttons. */

import type { ApprovalDecision } from "../../protocol/messages";
import { codeArgument, renderPreview } from "./diff-view";
import { el } from "../common/dom";
import { toolImages, type ImageLoader } from "../images/message-images";
import { networkNotice } from "./run-network";
import "./tool-card.css";
import type { ViewCall } from "../../protocol/requests";
import { toolServer } from "../../mcp/owners";

export type ToolStatus = "pending-approval" | "running" | "ok" | "error" | "denied";

const STATUS_TEXT: Record<ToolStatus, string> = {
  "pending-approval": "needs approval",
  running: "running",
  ok: "done",
  error: "failed",
  denied: "denied",
};

export class ToolCard {
  readonly root: HTMLElement;
  private readonly statusLabel: HTMLElement;
  private readonly args: HTMLElement;
  private readonly result: HTMLElement;
  private readonly resultSection: HTMLElement;
  private approval: HTMLElement | null = null;
  private readonly name: string;
  private argsValue: unknown;
  private live: HTMLElement | null = null;

  constructor(
    readonly callId: string,
    name: string,
    args: unknown,
    private readonly onDecision: (callId: string, decision: ApprovalDecision) => void,
  ) {
    this.statusLabel = el("span", { class: "tool-status" });
    this.args = el("pre", { class: "tool-args" }, pretty(args));
    this.result = el("pre", { class: "tool-result" });
    this.resultSection = el("div", { class: "tool-section" }, el("h4", {}, "Result"), this.result);
    this.resultSection.hidden = true;
    const summary = el(
      "summary",
      {},
      el("span", { class: "tool-icon", "aria-hidden": "true" }, "⚙"),
      el("span", { class: "tool-name" }, name),
      el("span", { class: "tool-brief" }, brief(args)),
      this.statusLabel,
    );
    const code = codeArgument(args); // run_python: the code as it will run, not as a JSON string
    const codeSection =
      code === null
        ? null
        : el("div", { class: "tool-section" }, el("h4", {}, "Code"), el("pre", { class: "tool-code" }, code));
    const details = el(
      "details",
      {},
      summary,
      el("div", { class: "tool-section" }, el("h4", {}, "Arguments"), this.args),
      codeSection,
      this.resultSection,
    );
    this.root = el(
      "article",
      { class: "tool-call", "data-testid": "tool-call", "data-tool": name, "data-call-id": callId },
      details,
    );
    const server = toolServer(name); // a tool server's tool: the card (and its approval) names the server
    if (server !== null) {
      this.root.dataset.server = server;
      summary.insertBefore(el("span", { class: "tool-server" }, `from tool server ${server}`), this.statusLabel);
    }
    this.name = name;
    this.argsValue = args;
    this.setStatus("running");
  }

  get status(): ToolStatus {
    return (this.root.dataset.status as ToolStatus | undefined) ?? "running";
  }

  setArguments(args: unknown): void {
    this.argsValue = args;
    this.args.textContent = pretty(args);
  }

  /** `alwaysAsks`: why this call asks in every mode (instructions, a recording's network call), shown first. */
  askApproval(preview?: string, alwaysAsks?: string): void {
    this.setStatus("pending-approval");
    if (this.approval) return;
    const details = this.root.querySelector("details");
    if (preview)
      this.resultSection.before(el("div", { class: "tool-section" }, el("h4", {}, "Preview"), renderPreview(preview)));
    if (details) details.open = true; // the person sees exactly what will happen before deciding
    const button = (testid: string, label: string, decision: ApprovalDecision, cls: string): HTMLButtonElement => {
      const b = el("button", { type: "button", class: `btn ${cls}`, "data-testid": testid }, label);
      b.addEventListener("click", () => this.decide(decision));
      return b;
    };
    this.approval = el(
      "div",
      { class: "approval", role: "group", "aria-label": "Approve this tool call" },
      alwaysAsks ? el("p", { class: "approval-always-asks", "data-testid": "approval-always-asks" }, alwaysAsks) : null,
      networkNotice(this.name, this.argsValue),
      el("span", { class: "approval-text" }, "Allow this call?"),
      button("approval-allow", "Allow once", "allow", "btn-primary"),
      button("approval-allow-session", "Allow for this session", "allow_session", ""),
      button("approval-deny", "Deny", "deny", "btn-danger"),
    );
    this.root.append(this.approval);
  }

  started(): void {
    if (this.status !== "denied") this.setStatus("running");
  }

  /** Output of the running call as it comes (run_python's stdout/stderr); the last LIVE_CHARS stay shown. */
  appendOutput(stream: "stdout" | "stderr", text: string): void {
    if (!this.live) {
      this.live = el("pre", {
        class: "tool-live",
        "data-testid": "tool-output",
        "aria-live": "polite",
        "aria-label": "Output so far",
      });
      this.root.append(this.live);
    }
    const piece = el("span", { class: `tool-live-${stream}` }, text);
    this.live.append(piece);
    trimFront(this.live, LIVE_CHARS);
    this.live.scrollTop = this.live.scrollHeight;
  }

  /** The call ended; `images`: image files it wrote (run_python's plots), read with `loader`. */
  finished(
    status: "ok" | "error" | "denied",
    result: unknown,
    images: readonly string[] = [],
    loader?: ImageLoader,
  ): void {
    if (loader) this.showImages(images, loader);
    this.clearApproval();
    this.result.textContent = pretty(result);
    this.resultSection.hidden = false;
    if (this.status !== "denied") this.setStatus(status);
  }

  /** Image files the call wrote (run_python's plots), shown under its summary, open or folded. */
  private showImages(paths: readonly string[], loader: ImageLoader): void {
    this.root.querySelector(".tool-images")?.remove();
    if (paths.length > 0) this.root.append(toolImages(paths, loader));
  }

  /** A call shown from history: its recorded status and result. */
  restore(
    status: ViewCall["status"],
    result: string | null,
    images: readonly string[] = [],
    loader?: ImageLoader,
  ): void {
    if (status === "pending-approval") return this.askApproval();
    if (status === "running") return this.started();
    if (status === "interrupted")
      return this.finished("error", result ?? "interrupted: the page went away before it finished");
    this.finished(status, result ?? "", images, loader);
  }

  private decide(decision: ApprovalDecision): void {
    this.clearApproval();
    this.setStatus(decision === "deny" ? "denied" : "running");
    this.onDecision(this.callId, decision);
  }

  private clearApproval(): void {
    this.approval?.remove();
    this.approval = null;
  }

  private setStatus(status: ToolStatus): void {
    this.root.dataset.status = status;
    this.statusLabel.textContent = STATUS_TEXT[status];
  }
}

const LIVE_CHARS = 20_000;

/** Drop the oldest pieces (and the start of the oldest kept one) beyond `max` characters. */
function trimFront(box: HTMLElement, max: number): void {
  let total = box.textContent?.length ?? 0;
  while (total > max && box.firstChild) {
    const first = box.firstChild;
    const length = first.textContent?.length ?? 0;
    if (total - length >= max) {
      first.remove();
      total -= length;
    } else {
      first.textContent = `…${(first.textContent ?? "").slice(total - max + 1)}`;
      total = max;
    }
  }
}

function pretty(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  if (value === undefined) return "";
  return JSON.stringify(value, null, 2);
}

function brief(args: unknown): string {
  let value: unknown = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      return args.slice(0, 80);
    }
  }
  if (typeof value !== "object" || value === null) return "";
  const first = Object.entries(value as Record<string, unknown>)[0];
  if (!first) return "";
  const shown = typeof first[1] === "string" ? first[1] : JSON.stringify(first[1]);
  return `${first[0]}: ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}`;
}
