/**
 * The typed postMessage contract between the main thread and the agent worker: one discriminated
 * union per direction. The provider key crosses only in `configure` (main → worker) and is kept in
 * the worker's memory; nothing the worker posts back contains it.
 */

import type { JsonObject } from "../protocol/codec";
import type {
  ApprovalDecision,
  ImageAttachment,
  PermissionMode,
  ProviderKind,
  ToolInfo,
  UiEvent,
} from "../protocol/messages";
import type { Attachment } from "./incoming";
import type { WorkspaceRequest } from "./workspace-fs";
import type { ToolServerConfig, ToolServerStatus } from "../mcp/types";

export interface AgentSettings {
  provider: ProviderKind;
  baseUrl: string;
  model: string | null;
  permissionMode: PermissionMode;
  /** OpenRouter's reasoning effort (`auto`: medium for models that reason). */
  reasoning?: "auto" | "off" | "low" | "medium" | "high";
  /** The context window to ask for (Ollama's num_ctx) and budget against; null: the default. */
  contextLength?: number | null;
  maxOutput?: number | null;
  /** Package indexes for run_python's micropip (from a test server's config, never the URL); absent: PyPI. */
  packageIndexUrls?: string[];
}

export type BootStep =
  | "load-pyodide"
  | "fetch-manifest"
  | "install-wheels"
  | "restore-storage"
  | "start-runtime"
  | "handshake";

export const BOOT_STEPS: readonly { step: BootStep; label: string }[] = [
  { step: "load-pyodide", label: "Loading Python (Pyodide)" },
  { step: "fetch-manifest", label: "Reading the wheel manifest" },
  { step: "install-wheels", label: "Installing the runtime" },
  { step: "restore-storage", label: "Opening your saved work" },
  { step: "start-runtime", label: "Starting the agent runtime" },
  { step: "handshake", label: "Handshake with the runtime" },
];

export type MainToWorker =
  | { type: "configure"; settings: AgentSettings; key: string | null }
  /** `replacesTurn`: an edit or a regenerate; that turn and every later one become an earlier branch. */
  | { type: "user_message"; text: string; turnId: string; replacesTurn?: string; images?: ImageAttachment[] }
  | { type: "abort_turn" }
  | { type: "approval"; callId: string; decision: ApprovalDecision }
  /**
   * A runtime `request` (list_models, session_current, …); answered by `reply` with the same requestId.
   * `file` (an upload, e.g. a skill archive) reaches the runtime as a file: its path and size are added to `params`.
   */
  | { type: "request"; requestId: string; method: string; params: JsonObject; file?: Attachment }
  /** A files-panel request on the workspace (answered by the worker itself with `reply`). */
  | { type: "workspace"; requestId: string; request: WorkspaceRequest }
  /** The open session's model traffic as a recording (answered by `reply`: the recording's JSON text). */
  | { type: "recording_export"; requestId: string }
  /** A recording to answer model requests from while the provider is `replay` (answered by `reply`). */
  | { type: "replay_load"; requestId: string; text: string }
  /** The tool servers the page keeps (all of them, each time), tokens included: the worker connects. */
  | { type: "mcp_servers"; servers: ToolServerConfig[] };

/** The worker's `name` when it should take the workspace over from another tab. */
export const TAKE_OVER_NAME = "tidepool-agent:take-over";

export type LogSource = "runtime" | "stdout" | "stderr" | "adapter";

export type WorkerToMain =
  | { type: "boot_progress"; step: BootStep; index: number; total: number; label: string; fraction: number }
  | { type: "boot_failed"; step: BootStep; message: string }
  /** How Python was loaded; `snapshotWanted`: no usable snapshot was stored, the page may make one when idle. */
  | { type: "python_boot"; fromSnapshot: boolean; snapshotWanted: boolean }
  | { type: "ready"; tools: ToolInfo[] }
  | { type: "event"; event: UiEvent }
  | { type: "reply"; requestId: string; result: RequestResult }
  | { type: "http_failure"; url: string; kind: HttpFailureKind; status: number | null; message: string }
  | { type: "runtime_error"; code: string; message: string; fatal: boolean }
  /** Another tab holds the workspace: this one does not save (until it takes the workspace over). */
  | { type: "workspace_lock"; state: "held" | "elsewhere" | "lost" }
  | { type: "log"; source: LogSource; level: string; message: string }
  /** Workspace files changed (a tool's flush, an upload, a delete): open views refresh. */
  | { type: "workspace_changed"; paths: string[] }
  /** A tool server's state and the tool names the runtime took (never its token). */
  | { type: "mcp_status"; status: ToolServerStatus };

export type RequestResult = { ok: true; value: unknown } | { ok: false; code: string; message: string };

/** How a provider request failed, for connection-status: an HTTP status, or the host's `http_error` kind. */
export type HttpFailureKind = "network" | "timeout" | "status" | "dropped" | "unreachable" | "cors" | "replay";
