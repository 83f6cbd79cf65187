/**
 * The typed postMessage contract between the main thread and the agent worker: one discriminated
 * union per direction. The provider key crosses only in `configure` (main → worker) and is kept in
 * the worker's memory; nothing the worker posts back contains it.
 */

import type { JsonObject } from "./codec";
import type {
  ApprovalDecision,
  AttachedResource,
  Config,
  ImageAttachment,
  McpPromptOrigin,
  ProviderKind,
  ProviderSettings,
  UiEvent,
} from "./messages";
import type { WorkspaceRequest } from "./workspace";
import type { ToolServerConfig, ToolServerStatus } from "./tool-servers";

/** A file the main thread attaches to a runtime `request`. */
export interface Attachment {
  name: string;
  data: Uint8Array;
}

/**
 * What the page's settings tell the runtime: the runtime's `config` (runtime/host/messages.py, generated)
 * without what only the worker knows (whether it holds a key, the page's origin, whether it replays).
 */
export type AgentSettings = Omit<Config, "type" | "provider" | "model" | "permission_mode" | "page_origin" | "replay"> &
  Required<Pick<Config, "model" | "permission_mode">> & {
    provider: Omit<ProviderSettings, "has_key"> & { kind: ProviderKind };
  };

export type BootStep =
  "load-pyodide" | "fetch-manifest" | "install-wheels" | "restore-storage" | "start-runtime" | "handshake";

export const BOOT_STEPS: readonly { step: BootStep; label: string }[] = [
  { step: "load-pyodide", label: "Loading Python (Pyodide)" },
  { step: "fetch-manifest", label: "Reading the wheel manifest" },
  { step: "install-wheels", label: "Installing the runtime" },
  { step: "restore-storage", label: "Opening your saved work" },
  { step: "start-runtime", label: "Starting the agent runtime" },
  { step: "handshake", label: "Handshake with the runtime" },
];

export type MainToWorker =
  /**
   * `packageIndexUrls`: run_python's micropip indexes (from a test server's config, never the URL); absent: PyPI.
   * The worker hands them to its sandbox runner; the runtime never sees them.
   */
  | { type: "configure"; settings: AgentSettings; key: string | null; packageIndexUrls?: string[] }
  /** `replacesTurn`: an edit or a regenerate; that turn and every later one become an earlier branch. */
  | {
      type: "user_message";
      text: string;
      turnId: string;
      replacesTurn?: string;
      images?: ImageAttachment[];
      resources?: AttachedResource[];
      /** The text is this tool server's prompt (`/server:prompt`): the runtime wraps it as outside text. */
      prompt?: McpPromptOrigin;
    }
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
  /** The tool servers the page keeps (all of them, each time), tokens included: the worker connects.
   * `callbackUrl`: the app page's address, where an MCP sign-in's answer comes back. */
  | { type: "mcp_servers"; servers: ToolServerConfig[]; callbackUrl: string }
  /** Read a tool server's resource to attach to a message (answered by `reply`: a `ReadResource`). */
  | { type: "mcp_read"; requestId: string; server: string; uri: string }
  /** `prompts/get` on a connected server (answered by `reply`: an McpPromptTurn, or why not). */
  | { type: "mcp_prompt"; requestId: string; server: string; name: string; arguments: Record<string, string> }
  /** Fetch and check one skill a tool server lists (answered by `reply`: a `FetchedSkill`, mcp/skills.ts). */
  | { type: "mcp_skill_fetch"; requestId: string; server: string; uri: string };

/** The worker's `name` when it should take the workspace over from another tab. */
export const TAKE_OVER_NAME = "tidepool-agent:take-over";

export type LogSource = "runtime" | "stdout" | "stderr" | "adapter";

export type WorkerToMain =
  | { type: "boot_progress"; step: BootStep; index: number; total: number; label: string }
  | { type: "boot_failed"; step: BootStep; message: string }
  /** How Python was loaded; `snapshotWanted`: no usable snapshot was stored, the page may make one when idle. */
  | { type: "python_boot"; fromSnapshot: boolean; snapshotWanted: boolean }
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
