/**
 * Delegated tasks in the chat: one `agent-task` per task (`data-agent`, `data-status` = running, done,
 * failed, stopped), inside the card of the `delegate` call that started it; it follows the task's
 * `agent_task` events, and opens the child session read-only (its Markdown export, in a dialog).
 */

import { el } from "../common/dom";
import { renderInto } from "../markdown/markdown";
import "./agent-tasks.css";

/** What the chat knows of a task: from an `agent_task` event, or a stored view's `agent_tasks`. */
export interface TaskShown {
  task_id: string;
  call_id: string;
  agent: string;
  status: "running" | "done" | "failed" | "stopped";
  session_id: string;
  background: boolean;
  summary?: string;
}

/** The child session's text to show, or why it could not be read. */
export type ReadSession = (sessionId: string) => Promise<{ text: string } | { error: string }>;

const STATUS_TEXT: Record<TaskShown["status"], string> = {
  running: "running",
  done: "done",
  failed: "failed",
  stopped: "stopped",
};

/** Show `task` in `card` (the `delegate` call's card root), or update the one shown already. */
export function showTask(card: HTMLElement, task: TaskShown, read: ReadSession): HTMLElement {
  let node = card.querySelector<HTMLButtonElement>(`[data-task-id="${CSS.escape(task.task_id)}"]`);
  if (!node) {
    node = el("button", {
      type: "button",
      class: "agent-task",
      "data-testid": "agent-task",
      "data-task-id": task.task_id,
      title: "Open this agent's session (read-only)",
    });
    const shown = node;
    node.addEventListener("click", () => void openSession(shown, read));
    card.append(node);
  }
  node.dataset.agent = task.agent;
  node.dataset.status = task.status;
  node.dataset.sessionId = task.session_id;
  const mode = task.background ? "background task" : "task";
  const parts = [
    el("span", { class: "agent-task-name" }, `Agent ${task.agent}`),
    el("span", { class: "agent-task-status" }, `${mode} ${STATUS_TEXT[task.status]}`),
  ];
  if (task.summary) parts.push(el("span", { class: "agent-task-summary" }, task.summary));
  node.replaceChildren(...parts);
  return node;
}

async function openSession(node: HTMLElement, read: ReadSession): Promise<void> {
  const sessionId = node.dataset.sessionId ?? "";
  const body = el("div", { class: "agent-session-body" }, "Loading…");
  const close = el("button", { type: "button", class: "agent-session-close" }, "Close");
  const dialog = el(
    "dialog",
    { class: "agent-session", "aria-label": `Agent ${node.dataset.agent ?? ""}'s session` },
    el("header", {}, el("h3", {}, `Agent ${node.dataset.agent ?? ""} (read-only)`), close),
    body,
  );
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  const answer = await read(sessionId);
  if ("text" in answer) renderInto(body, answer.text);
  else body.textContent = `This session could not be read: ${answer.error}`;
}

/** An approval card of a call a delegated agent asks for: it says which agent. */
export function markAgent(card: HTMLElement, agent: string): void {
  if (card.dataset.agent === agent) return;
  card.dataset.agent = agent;
  const summary = card.querySelector("summary");
  summary?.insertBefore(el("span", { class: "agent-asks" }, `asked by agent ${agent}`), summary.lastChild);
}
