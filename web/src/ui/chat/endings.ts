/**
 * How a reply ended, when it matters: cut off at the length limit (`data-finish="length"`, with a
 * Continue button, `message-continue`) or stopped by the provider's content filter. Also the
 * "rate limited, retrying in N s" notice, which goes away once the turn moves on.
 */

import { el } from "../common/dom";

export const CONTINUE_PROMPT = "Continue exactly where you stopped.";

const NOTES: Record<string, string> = {
  length: "Cut off: the reply reached the model's length limit.",
  content_filter: "Stopped by the provider's content filter.",
};

/** Mark `node` (an assistant message) as ended for `reason`; `onContinue` asks the model to go on. */
export function markEnding(node: HTMLElement, reason: string, onContinue: () => void): void {
  node.dataset.finish = reason;
  node.querySelector(".message-ending")?.remove();
  const note = el("div", { class: "message-ending" }, el("span", {}, NOTES[reason] ?? `The reply ended: ${reason}.`));
  if (reason === "length") {
    const button = el(
      "button",
      { type: "button", class: "btn btn-small", "data-testid": "message-continue" },
      "Continue",
    );
    button.addEventListener("click", () => {
      button.remove();
      onContinue();
    });
    note.append(button);
  }
  node.append(note);
}

/** Tokens a continuation needs at least: with fewer left in the window, Continue cannot help. */
export const CONTINUE_ROOM = 256;

/** Whether a continuation still fits a window of `limit` tokens with `used` of them taken. */
export function continueFits(used: number, limit: number): boolean {
  return limit - used >= CONTINUE_ROOM;
}

/** The window is full (`used` of `limit` tokens): a Continue would be refused, so none is offered; the
 * cut-off reply says why instead. */
export function withholdContinue(root: ParentNode, used: number, limit: number): void {
  if (continueFits(used, limit)) return;
  for (const button of root.querySelectorAll('[data-testid="message-continue"]')) {
    button.replaceWith(
      el(
        "span",
        { class: "hint", "data-testid": "continue-withheld" },
        " The context window is full, so it cannot go on: start a new chat, or give the model a larger window (llama-server -c, Advanced → Context window).",
      ),
    );
  }
}

/** Only the newest cut-off reply can be continued. */
export function dropContinueButtons(root: ParentNode): void {
  for (const button of root.querySelectorAll('[data-testid="message-continue"]')) button.remove();
}

/** Retry notices describe a wait that is over once anything else happens in the turn. */
export function clearRetryNotices(root: ParentNode): void {
  for (const notice of root.querySelectorAll('[data-testid="notice"][data-code="retrying"]')) notice.remove();
}

/** A notice from the runtime (a restored save, a retry, …), dismissable. */
export function noticeNode(code: string, text: string): HTMLElement {
  const close = el("button", { type: "button", class: "btn btn-ghost btn-small", "aria-label": "Dismiss" }, "✕");
  const node = el(
    "div",
    { class: "notice kept", role: "status", "data-testid": "notice", "data-code": code },
    el("span", {}, text),
    close,
  );
  close.addEventListener("click", () => node.remove());
  return node;
}
