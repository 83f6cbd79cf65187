/**
 * Mounts the sessions sidebar and the memory panel, and keeps them in step with the worker: they
 * ask the runtime only while it is ready, and follow its events (a session opened, a memory saved).
 */

import type { WorkerToMain } from "../../protocol/main-worker-messages";
import { MemoryPanel } from "./memory";
import { SessionsPanel } from "./sessions";
import type { Requester } from "../../protocol/requests";
import "./panels.css";

export type WorkerFollower = (message: WorkerToMain) => void;

/** Follows the worker; `sessionsChanged`: sessions came from elsewhere (an import), the list should show them. */
export type ConversationPanels = WorkerFollower & { sessionsChanged(): void };

export function mountConversationPanels(
  request: Requester,
  showError: (text: string) => void,
  showFound: (sessionId: string, seq: number) => void,
): ConversationPanels {
  const sessions = new SessionsPanel(request, { error: showError, showFound });
  const memory = new MemoryPanel(request);
  const setAvailable = (available: boolean): void => {
    sessions.setAvailable(available);
    memory.setAvailable(available);
  };
  const follow: WorkerFollower = (message) => {
    switch (message.type) {
      case "boot_progress":
      case "boot_failed":
        return setAvailable(false);
      case "runtime_error":
        if (message.fatal) setAvailable(false);
        return;
      case "event":
        if (message.event.kind === "ready") setAvailable(true);
        sessions.onEvent(message.event);
        memory.onEvent(message.event);
        return;
      default:
        return;
    }
  };
  return Object.assign(follow, { sessionsChanged: () => sessions.scheduleRefresh() });
}
