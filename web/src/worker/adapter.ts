/**
 * The adapter: the host side of the frame protocol inside the agent worker. It decodes the
 * runtime's frames, performs what they ask (HTTP through the egress rule, events to the UI), and
 * encodes host messages for the runtime. It holds the provider key in memory only; the key is never
 * put in a frame, a log line or a message to the main thread.
 */

import { DEFAULT_MAX_FRAME, encodeFrame, FrameDecoder, FrameTooLargeError, type DecodedItem } from "../protocol/codec";
import { PROTOCOL_VERSION, parseRuntimeMessage, type HostMessage, type RuntimeMessage } from "../protocol/messages";
import type {
  AgentSettings,
  Attachment,
  LogSource,
  MainToWorker,
  WorkerToMain,
} from "../protocol/main-worker-messages";
import { HttpExecutor } from "./http";
import type { RecordingSink } from "./recording";
import type { FlushOutcome } from "./persistence";
import type { Incoming } from "./incoming";
import { runExec, type Exec } from "./exec-run";
import { Handshake } from "./handshake";
import { RecordReplay } from "./record-replay";
import { UiRequests } from "./ui-requests";
import { answerFetch, type WorkspaceLister } from "./workspace-lazy";
import { FirstTokenHold } from "./first-token";
import { Presend } from "./presend";
import { LazyMcpHost } from "../mcp/lazy-host";

export const HOST_CAPABILITIES = ["http", "events", "approvals", "presend"];
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
  exec?: Exec;
  /** Stops the sandbox run of this `exec_request` id, if one is in flight. */
  cancelExec?: (id: string) => void;
  /** Stores a request's attached file in the runtime's file system; absent: attachments are refused. */
  incoming?: Incoming;
}

export type { ExecRequestMessage } from "./exec-run";
export type { ExecOutcome } from "../protocol/sandbox-messages";
export type FlushRequestMessage = Extract<RuntimeMessage, { type: "flush_request" }>;
export type Flusher = (request: FlushRequestMessage) => Promise<FlushOutcome>;

export class Adapter {
  private readonly decoder = new FrameDecoder(DEFAULT_MAX_FRAME);
  private readonly http: HttpExecutor;
  private readonly recordings = new RecordReplay();
  private settings: AgentSettings | null = null;
  private key: string | null = null;
  private readonly handshake = new Handshake();
  private nextId = 1;
  private readonly uiRequests: UiRequests;
  private flusher: Flusher | null = null;
  private workspace: WorkspaceLister | null = null; // answers workspace_fetch (workspace-lazy.ts)
  private readonly firstToken = new FirstTokenHold();
  private said = 0; // frames sent to the runtime (an offer names how many it had read: presend.ts)
  /** The runtime's offered request, sent at Send (presend.ts); the files panel's writes drop it. */
  readonly presend = new Presend();
  private readonly mcp: LazyMcpHost; // tool servers (web/src/mcp/): their tokens stay in there

  constructor(private readonly io: AdapterIO) {
    this.uiRequests = new UiRequests((message) => io.toMain(message), io.incoming);
    this.mcp = new LazyMcpHost({
      send: (m) => this.send(m),
      status: (status) => io.toMain({ type: "mcp_status", status }),
      appOrigin: io.appOrigin,
    });
    this.http = new HttpExecutor({
      send: (m) => {
        this.send(m);
        if (m.type === "http_end" || m.type === "http_error") this.firstToken.arrived(m.id);
      },
      credentials: () => ({
        policy: {
          providerBaseUrl: this.recordings.providerBaseUrl(this.settings),
          appOrigin: io.appOrigin,
        },
        key: this.key,
      }),
      failure: (f) => this.io.toMain({ type: "http_failure", ...f }),
      recorder: this.recordings.recorder,
      replay: () => this.recordings.source(this.settings),
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
    this.recordings.keep(sink);
  }

  /** Send our hello; the runtime's `hello` and `ready` event complete the handshake. */
  start(): void {
    const capabilities = [
      ...HOST_CAPABILITIES,
      ...(this.flusher ? ["flush"] : []),
      ...(this.io.incoming ? ["files"] : []),
      ...(this.workspace ? ["workspace_fetch"] : []),
    ];
    this.send({ type: "hello", protocol: PROTOCOL_VERSION, capabilities });
  }

  /** Resolves when the runtime reported `ready`; rejects on a mismatch or after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<void> {
    return this.handshake.whenReady(timeoutMs);
  }

  /** Bytes the runtime wrote on its stdout. */
  onRuntimeBytes(bytes: Uint8Array): void {
    for (const item of this.decoder.feed(bytes)) this.onItem(item);
  }

  /** A message from the main thread (the files panel's `workspace` requests are answered by the worker itself). */
  onMain(message: Exclude<MainToWorker, { type: "workspace" }>): void {
    if (message.type !== "user_message") this.presend.drop();
    switch (message.type) {
      case "configure":
        this.settings = message.settings;
        this.key = message.key && message.key.length > 0 ? message.key : null;
        if (this.handshake.open) this.sendConfig();
        return;
      case "user_message": {
        const plain = !message.replacesTurn && !message.images?.length && !message.resources?.length && !message.prompt;
        const sent = this.presend.take(plain ? message.text : null);
        if (sent) {
          this.firstToken.requested(sent.request.id); // before the message: the request need not wait for Python
          this.http.start(sent.request);
        }
        const error = this.send({
          type: "user_message",
          text: message.text,
          turn_id: message.turnId,
          ...(message.replacesTurn ? { replaces_turn: message.replacesTurn } : {}),
          ...(message.images?.length ? { images: message.images } : {}),
          ...(message.resources?.length ? { resources: message.resources } : {}),
          ...(message.prompt ? { prompt: message.prompt } : {}),
          ...(sent ? { presend: sent.use } : {}),
        });
        if (error && sent) this.http.cancel(sent.request.id);
        if (error) {
          const text = `This message was not sent: it is too long for one frame (${error}). Put the text or the images in files in the files panel and refer to them.`;
          this.io.toMain({ type: "runtime_error", code: "message_too_large", message: text, fatal: false });
        }
        return;
      }
      case "recording_export":
        void this.recordings
          .export(this.settings)
          .then((result) => this.io.toMain({ type: "reply", requestId: message.requestId, result }));
        return;
      case "replay_load": {
        const result = this.recordings.load(message.text);
        this.io.toMain({ type: "reply", requestId: message.requestId, result });
        if (result.ok && this.handshake.open) this.sendConfig();
        return;
      }
      case "abort_turn":
        this.send({ type: "abort_turn" });
        return;
      case "approval":
        this.send({ type: "approval", call_id: message.callId, decision: message.decision });
        return;
      case "request":
        return this.request(message.requestId, message.method, message.params, message.file);
      case "mcp_servers":
        return this.mcp.setServers(message.servers, message.callbackUrl);
      case "mcp_read":
        void this.mcp
          .read(message.server, message.uri)
          .then((result) => this.io.toMain({ type: "reply", requestId: message.requestId, result }));
        return;
      case "mcp_prompt":
        return void this.mcp
          .prompt(message.server, message.name, message.arguments)
          .then((result) => this.io.toMain({ type: "reply", requestId: message.requestId, result }));
      case "mcp_skill_fetch":
        void this.mcp
          .fetchSkill(message.server, message.uri)
          .then((value) =>
            this.io.toMain({ type: "reply", requestId: message.requestId, result: { ok: true, value } }),
          );
        return;
    }
  }

  /** Forward a UI request (an attached file goes through the runtime's file system: ui-requests.ts). */
  private request(
    requestId: string,
    method: string,
    params: Record<string, unknown>,
    file: Attachment | undefined,
  ): void {
    const id = `h${this.nextId++}`;
    const sent = this.uiRequests.open(id, requestId, params, file);
    if (sent === null) return;
    this.recordings.requested(id, method, params);
    const error = this.send({ type: "request", id, method, params: sent });
    if (error) this.uiRequests.failById(id, "frame_too_large", `the request was not sent: ${error}`);
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
        else if (parsed.reason === "unknown_type")
          this.log("adapter", "debug", `skipped a runtime message of unknown type ${parsed.type}`);
        else this.onBadMessage(parsed.type, parsed.detail, parsed.id);
        return;
      }
    }
  }

  private onMessage(message: RuntimeMessage): void {
    this.presend.heard(message.type);
    switch (message.type) {
      case "hello":
        return this.onHello(message.protocol);
      case "http_request":
        if (message.auth === "provider") this.firstToken.requested(message.id);
        return this.http.start(message);
      case "http_offer":
        return this.presend.offered(message.offer, this.said);
      case "cancel":
        this.io.cancelExec?.(message.id);
        return this.http.cancel(message.id);
      case "event":
        if (message.event.kind !== "turn_started" && message.event.kind !== "usage") this.firstToken.arrived(null);
        if (message.event.kind === "session_opened") this.recordings.sessionOpened(message.event.session_id);
        this.io.toMain({ type: "event", event: message.event }); // the page learns of `ready` from this event alone
        if (message.event.kind === "ready") {
          this.handshake.ready();
          this.mcp.runtimeReady();
        }
        return;
      case "reply":
        if (this.mcp.onReply(message)) return;
        this.recordings.replied(message.id, message.ok);
        if (!this.uiRequests.answer(message.id, message))
          this.log("adapter", "debug", `reply to an unknown request ${message.id}`);
        return;
      case "log":
        return this.log("runtime", message.level, `${message.logger ?? "runtime"}: ${message.message}`);
      case "error":
        return this.onRuntimeError(message.code, message.message, message.id);
      case "exec_request":
        return void runExec(this.io.exec, message, (m) => void this.send(m));
      case "flush_request":
        return void this.runFlush(message);
      case "mcp_call":
        return void this.mcp.call(message);
      case "workspace_fetch":
        return void answerFetch(this.workspace, message).then((reply) => this.send(reply));
    }
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
    else
      this.send({ type: "reply", id: request.id, ok: false, error: { code: outcome.code, message: outcome.message } });
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
      this.handshake.fail(text);
      return;
    }
    this.handshake.helloReceived();
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
    if (fatal) this.handshake.fail(message);
  }

  private sendConfig(): void {
    const s = this.settings;
    if (!s) return;
    // Replaying: the runtime talks to the recorded provider (its real client code); answers come from the file.
    const { provider, model } = this.recordings.configured(s, this.key !== null);
    this.send({
      ...s, // the page's settings are already config's fields
      type: "config",
      provider,
      model,
      page_origin: this.io.appOrigin,
      replay: s.provider.kind === "replay", // then every call that would reach the network asks (docs/recording.md)
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
    this.said += 1;
    return null;
  }

  private log(source: LogSource, level: string, message: string): void {
    this.io.toMain({ type: "log", source, level, message });
  }
}
