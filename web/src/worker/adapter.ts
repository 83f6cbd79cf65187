/**
 * The adapter: the host side of the frame protocol inside the agent worker. It decodes the
 * runtime's frames, performs what they ask (HTTP through the egress rule, events to the UI), and
 * encodes host messages for the runtime. It holds the provider key in memory only; the key is never
 * put in a frame, a log line or a message to the main thread.
 */

import { DEFAULT_MAX_FRAME, encodeFrame, FrameDecoder, FrameTooLargeError, type DecodedItem } from "../protocol/codec";
import { PROTOCOL_VERSION, parseRuntimeMessage, type HostMessage, type RuntimeMessage } from "../protocol/messages";
import type { AgentSettings, LogSource, MainToWorker, WorkerToMain } from "./main-worker-messages";
import { HttpExecutor } from "./http";
import { LiveOutput } from "./live-output";
import { parseRecording, Recorder, ReplaySource, type RecordingSink } from "./recording";
import type { FlushOutcome } from "./persistence";
import type { Attachment, Incoming } from "./incoming";
import { fitExecOutcome } from "./exec-fit";
import { UiRequests } from "./ui-requests";
import { answerFetch, type WorkspaceLister } from "./workspace-lazy";
import { FirstTokenHold } from "./first-token";
import { McpHost } from "../mcp/host";

export const HOST_CAPABILITIES = ["http", "events", "approvals"];
/**
 * A save asked for while a model request waits for its first token is held back (at most this
 * long): copying the database to OPFS on this thread would delay the response (time to first token).
 */
const FLUSH_HOLD_MAX_MS = 250;

export interface AdapterIO {
  /** Push encoded frames into the runtime's stdin. */
  toRuntime(bytes: Uint8Array): void;
  /** Post a typed message to the main thread. */
  toMain(message: WorkerToMain): void;
  /** The app's own origin (for /api/proxy). */
  appOrigin: string;
  /** Runs `exec_request` code in the sandbox; absent: code execution is reported as unavailable. */
  exec?: (request: ExecRequestMessage, onOutput?: (stream: "stdout" | "stderr", text: string) => void) => Promise<ExecOutcome>;
  /** Stops the sandbox run of this `exec_request` id, if one is in flight. */
  cancelExec?: (id: string) => void;
  /** Stores a request's attached file in the runtime's file system; absent: attachments are refused. */
  incoming?: Incoming;
}

export type ExecRequestMessage = Extract<RuntimeMessage, { type: "exec_request" }>;
export type FlushRequestMessage = Extract<RuntimeMessage, { type: "flush_request" }>;
export type Flusher = (request: FlushRequestMessage) => Promise<FlushOutcome>;
export type ExecOutcome = Omit<Extract<HostMessage, { type: "exec_result" }>, "type" | "id">;

type HandshakeState = "waiting" | "hello" | "ready" | "failed";

export class Adapter {
  private readonly decoder = new FrameDecoder(DEFAULT_MAX_FRAME);
  private readonly http: HttpExecutor;
  private readonly recorder = new Recorder();
  private replay: ReplaySource | null = null;
  private settings: AgentSettings | null = null;
  private key: string | null = null;
  private state: HandshakeState = "waiting";
  private nextId = 1;
  private readonly uiRequests: UiRequests;
  private readonly deletions = new Map<string, string>(); // frame id of a session_delete -> the session
  private flusher: Flusher | null = null;
  private workspace: WorkspaceLister | null = null; // answers workspace_fetch (workspace-lazy.ts)
  private readyWaiters: ((outcome: Error | null) => void)[] = [];
  private readonly firstToken = new FirstTokenHold();
  private readonly mcp: McpHost; // tool servers (web/src/mcp/): their tokens stay in there


  constructor(private readonly io: AdapterIO) {
    this.uiRequests = new UiRequests(io.toMain, io.incoming);
    this.mcp = new McpHost({ send: (m) => this.send(m), status: (status) => io.toMain({ type: "mcp_status", status }), appOrigin: io.appOrigin });
    this.http = new HttpExecutor({
      send: (m) => {
        this.send(m);
        if (m.type === "http_end" || m.type === "http_error") this.firstToken.arrived(m.id);
      },
      credentials: () => ({
        policy: {
          providerBaseUrl: this.settings?.provider === "replay" ? (this.replay?.recording.base_url ?? null) : (this.settings?.baseUrl ?? null),
          appOrigin: io.appOrigin,
        },
        key: this.key,
      }),
      failure: (f) => this.io.toMain({ type: "http_failure", ...f }),
      recorder: this.recorder,
      replay: () => (this.settings?.provider === "replay" ? this.replay : null),
    });
  }

  /** Answer `workspace_fetch` (the workspace on demand; said in hello, so the runtime asks first). */
  enableWorkspaceFetch(workspace: WorkspaceLister): void {
    this.workspace = workspace;
  }

  /** Answer `flush_request`s (and say so in hello, so the runtime waits for each save). */
  enableFlush(flusher: Flusher): void {
    this.flusher = flusher;
  }

  /** Keep each session's recording between page loads (this tab holds the workspace). */
  keepRecordings(sink: RecordingSink): void {
    this.recorder.attach(sink);
  }

  /** Send our hello; the runtime's `hello` and `ready` event complete the handshake. */
  start(): void {
    const capabilities = [...HOST_CAPABILITIES, ...(this.flusher ? ["flush"] : []), ...(this.io.incoming ? ["files"] : []), ...(this.workspace ? ["workspace_fetch"] : [])];
    this.send({ type: "hello", protocol: PROTOCOL_VERSION, capabilities });
  }

  /** Resolves when the runtime reported `ready`; rejects on a mismatch or after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<void> {
    if (this.state === "ready") return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(new Error(`the runtime did not become ready within ${timeoutMs / 1000} s`)), timeoutMs);
      const settle = (outcome: Error | null): void => {
        clearTimeout(timer);
        this.readyWaiters = this.readyWaiters.filter((w) => w !== settle);
        if (outcome) reject(outcome);
        else resolve();
      };
      this.readyWaiters.push(settle);
    });
  }

  /** Bytes the runtime wrote on its stdout. */
  onRuntimeBytes(bytes: Uint8Array): void {
    for (const item of this.decoder.feed(bytes)) this.onItem(item);
  }

  /** A message from the main thread. */
  onMain(message: MainToWorker): void {
    switch (message.type) {
      case "configure":
        this.settings = message.settings;
        this.key = message.key && message.key.length > 0 ? message.key : null;
        if (this.state === "hello" || this.state === "ready") this.sendConfig();
        return;
      case "user_message": {
        const error = this.send({
          type: "user_message",
          text: message.text,
          turn_id: message.turnId,
          ...(message.replacesTurn ? { replaces_turn: message.replacesTurn } : {}),
          ...(message.images?.length ? { images: message.images } : {}),
        });
        if (error) {
          const text = `This message was not sent: it is too long for one frame (${error}). Put the text or the images in files in the files panel and refer to them.`;
          this.io.toMain({ type: "runtime_error", code: "message_too_large", message: text, fatal: false });
        }
        return;
      }
      case "recording_export": {
        const s = this.settings;
        void this.recorder.export(s?.provider ?? "", s?.baseUrl ?? "", s?.model ?? null).then((recording) =>
          this.io.toMain({ type: "reply", requestId: message.requestId, result: { ok: true, value: JSON.stringify(recording, null, 1) } }),
        );
        return;
      }
      case "replay_load":
        try {
          this.replay = new ReplaySource(parseRecording(message.text));
          this.io.toMain({ type: "reply", requestId: message.requestId, result: { ok: true, value: this.replay.recording.provider } });
          if (this.state === "hello" || this.state === "ready") this.sendConfig();
        } catch (err) {
          this.io.toMain({ type: "reply", requestId: message.requestId, result: { ok: false, code: "bad_recording", message: String(err instanceof Error ? err.message : err) } });
        }
        return;
      case "abort_turn":
        this.send({ type: "abort_turn" });
        return;
      case "approval":
        this.send({ type: "approval", call_id: message.callId, decision: message.decision });
        return;
      case "request":
        return this.request(message.requestId, message.method, message.params, message.file);
      case "mcp_servers":
        return this.mcp.setServers(message.servers);
    }
  }

  /** Forward a UI request (an attached file goes through the runtime's file system: ui-requests.ts). */
  private request(requestId: string, method: string, params: Record<string, unknown>, file: Attachment | undefined): void {
    const id = this.freshId();
    const sent = this.uiRequests.open(id, requestId, params, file);
    if (sent === null) return;
    if (method === "session_delete" && typeof params.session_id === "string") this.deletions.set(id, params.session_id);
    const error = this.send({ type: "request", id, method, params: sent });
    if (error) this.uiRequests.failById(id, "frame_too_large", `the request was not sent: ${error}`);
  }

  /** A `session_delete` was answered: a deleted session's recording goes too. */
  private sessionDeleted(id: string, ok: boolean): void {
    const doomed = this.deletions.get(id);
    this.deletions.delete(id);
    if (doomed !== undefined && ok) void this.recorder.forget(doomed);
  }

  /** Stop everything in flight (the worker is going away). */
  shutdown(): void {
    this.http.cancelAll();
  }

  private onItem(item: DecodedItem): void {
    switch (item.kind) {
      case "stray":
        this.log("stdout", "info", new TextDecoder().decode(item.data));
        return;
      case "malformed":
        this.log("adapter", "warning", `malformed frame from the runtime (${item.code}): ${item.detail}`);
        if (item.code === "too_large") {
          this.send({ type: "error", code: "frame_too_large", message: item.detail });
        }
        return;
      case "message": {
        const parsed = parseRuntimeMessage(item.message);
        if (parsed.ok) this.onMessage(parsed.message);
        else if (parsed.reason === "unknown_type") this.log("adapter", "debug", `skipped a runtime message of unknown type ${parsed.type}`);
        else this.onBadMessage(parsed.type, parsed.detail, parsed.id);
        return;
      }
    }
  }

  private onMessage(message: RuntimeMessage): void {
    switch (message.type) {
      case "hello":
        return this.onHello(message.protocol);
      case "http_request":
        if (message.auth === "provider") this.firstToken.requested(message.id);
        return this.http.start(message);
      case "cancel":
        this.io.cancelExec?.(message.id);
        return this.http.cancel(message.id);
      case "event":
        if (message.event.kind !== "turn_started" && message.event.kind !== "usage") this.firstToken.arrived(null);
        if (message.event.kind === "session_opened") this.recorder.setSession(message.event.session_id);
        if (message.event.kind === "ready") {
          this.state = "ready";
          this.io.toMain({ type: "ready", tools: message.event.tools });
          this.settleReady(null);
          this.mcp.runtimeReady();
        }
        this.io.toMain({ type: "event", event: message.event });
        return;
      case "reply":
        if (this.mcp.onReply(message)) return;
        this.sessionDeleted(message.id, message.ok);
        if (!this.uiRequests.answer(message.id, message)) this.log("adapter", "debug", `reply to an unknown request ${message.id}`);
        return;
      case "log":
        return this.log("runtime", message.level, `${message.logger ?? "runtime"}: ${message.message}`);
      case "error":
        return this.onRuntimeError(message.code, message.message, message.id);
      case "exec_request":
        return void this.runExec(message);
      case "flush_request":
        return void this.runFlush(message);
      case "mcp_call":
        return void this.mcp.call(message);
      case "workspace_fetch":
        return void answerFetch(this.workspace, message).then((reply) => this.send(reply));
    }
  }

  private async runExec(request: ExecRequestMessage): Promise<void> {
    let outcome: ExecOutcome;
    if (!this.io.exec) {
      outcome = execFailure("code execution is not available in this build");
    } else {
      const live = new LiveOutput((stream, text) => this.send({ type: "exec_output", id: request.id, stream, text }));
      try {
        outcome = await this.io.exec(request, (stream, text) => live.add(stream, text));
      } catch (err) {
        outcome = execFailure(`the sandbox failed: ${String(err)}`);
      }
      live.flush(); // what came last goes before the result
    }
    this.send({ type: "exec_result", id: request.id, ...fitExecOutcome(outcome) });
  }

  private async runFlush(request: FlushRequestMessage): Promise<void> {
    if (!this.flusher) {
      // Without the `flush` capability the runtime does not wait for an answer.
      this.log("adapter", "debug", `flush_request ${request.id} (${request.what}): no storage here`);
      this.workspaceChanged(request);
      return;
    }
    if (this.firstToken.holding) await this.firstToken.released(FLUSH_HOLD_MAX_MS); // (held saves keep their order)
    // Every flush_request gets its reply: the runtime waits for it (up to 30 s) before the next step.
    const outcome: FlushOutcome = await this.flusher(request).catch((err: unknown) => ({
      ok: false as const,
      code: "storage_failed",
      message: `saving failed: ${err instanceof Error ? err.message : String(err)}`,
    }));
    this.workspaceChanged(request);
    if (outcome.ok) this.send({ type: "reply", id: request.id, ok: true, result: {} });
    else this.send({ type: "reply", id: request.id, ok: false, error: { code: outcome.code, message: outcome.message } });
  }

  /** Tell the main thread which workspace paths a tool changed (the files panel refreshes). */
  private workspaceChanged(request: FlushRequestMessage): void {
    if (request.what !== "workspace") return;
    this.io.toMain({ type: "workspace_changed", paths: request.paths });
  }

  private onHello(protocol: number): void {
    if (protocol !== PROTOCOL_VERSION) {
      const text = `the runtime speaks protocol ${protocol}, this app speaks ${PROTOCOL_VERSION}: reload the page to get matching versions`;
      this.send({ type: "error", code: "protocol_mismatch", message: text });
      this.fail(text);
      return;
    }
    this.state = "hello";
    if (this.settings) this.sendConfig();
  }

  /** A known type with missing or mistyped fields: answered with `bad_message` (docs/protocol.md rule 5). */
  private onBadMessage(type: string, detail: string, id: string | null): void {
    const text = `bad '${type}' message: ${detail}`;
    this.log("adapter", "warning", `from the runtime: ${text}`);
    this.send({ type: "error", code: "bad_message", message: text, ...(id === null ? {} : { id }) });
    if (type === "reply" && id !== null) this.uiRequests.failById(id, "bad_message", text); // rather than leave it waiting
  }

  private onRuntimeError(code: string, message: string, id: string | null | undefined): void {
    if (typeof id === "string" && this.uiRequests.failById(id, code, message)) return; // a UI request it could not answer
    const fatal = code === "protocol_mismatch";
    this.io.toMain({ type: "runtime_error", code, message, fatal });
    if (fatal) this.fail(message);
  }

  private sendConfig(): void {
    const s = this.settings;
    if (!s) return;
    // Replaying: the runtime talks to the recorded provider (its real client code); answers come from the file.
    const recorded = s.provider === "replay" ? this.replay?.recording : undefined;
    this.send({
      type: "config",
      provider: recorded
        ? { kind: recorded.provider as AgentSettings["provider"], base_url: recorded.base_url, has_key: false }
        : { kind: s.provider, base_url: s.baseUrl, has_key: this.key !== null },
      // The recording's calls were made with its model: replaying, that one, whatever the picker holds.
      model: recorded ? (this.replay?.model ?? s.model) : s.model,
      permission_mode: s.permissionMode,
      page_origin: this.io.appOrigin,
      replay: s.provider === "replay", // then every call that would reach the network asks (docs/recording.md)
      ...(s.reasoning ? { reasoning: s.reasoning } : {}),
      ...(s.contextLength !== undefined ? { context_length: s.contextLength } : {}),
      ...(s.maxOutput !== undefined ? { max_output: s.maxOutput } : {}),
      ...(s.packageIndexUrls?.length ? { package_index_urls: s.packageIndexUrls } : {}),
    });
  }

  /** Encode and send; returns why it could not be sent (a frame over the limit), or null. */
  private send(message: HostMessage): string | null {
    let bytes: Uint8Array;
    try {
      bytes = encodeFrame(message);
    } catch (err) {
      const detail = err instanceof FrameTooLargeError ? err.message : String(err);
      this.log("adapter", "error", `could not send ${message.type}: ${detail}`);
      return detail;
    }
    this.io.toRuntime(bytes);
    return null;
  }

  private fail(message: string): void {
    this.state = "failed";
    this.settleReady(new Error(message));
  }

  private settleReady(outcome: Error | null): void {
    for (const waiter of [...this.readyWaiters]) waiter(outcome);
  }

  private freshId(): string {
    return `h${this.nextId++}`;
  }

  private log(source: LogSource, level: string, message: string): void {
    this.io.toMain({ type: "log", source, level, message });
  }
}

function execFailure(message: string): ExecOutcome {
  return { ok: false, stdout: "", stderr: "", files: {}, error: { kind: "sandbox", message } };
}
