/**
 * The main thread's handle on the agent worker: create it, restart it (terminate + recreate),
 * post typed messages, route what it posts back to one listener, and ask for the model list.
 * A runtime `request` is typed by its method (protocol/requests.gen.ts); its reply's result is
 * checked here, once, against the method's result shape.
 */

import {
  checkAnswer,
  type ModelRecord,
  type RequestAnswer,
  type RequestMethod,
  type RequestParams,
} from "./protocol/requests";
import {
  TAKE_OVER_NAME,
  type Attachment,
  type MainToWorker,
  type RequestResult,
  type WorkerToMain,
} from "./protocol/main-worker-messages";
import type { WorkspaceRequest } from "./protocol/workspace";

const REQUEST_TIMEOUT_MS = 45_000;
/** Over the worker's own deadline for reading a skill's files (mcp/skills.ts). */
const SKILL_FETCH_TIMEOUT_MS = 100_000;

export type ModelsResult = { ok: true; models: ModelRecord[] } | { ok: false; message: string };

export type WorkerListener = (message: WorkerToMain) => void;

export class RuntimeClient {
  private worker: Worker | null = null;
  private generation = 0;
  private nextRequest = 1;
  private readonly waiters = new Map<string, (result: RequestResult) => void>();

  constructor(private readonly listener: WorkerListener) {}

  /** (Re)create the worker. The caller sends `configure` again (the key is not kept here). */
  start(takeOver = false): void {
    this.stop();
    const generation = ++this.generation;
    const worker = new Worker(new URL("./worker/agent.worker.ts", import.meta.url), {
      type: "module",
      name: takeOver ? TAKE_OVER_NAME : "tidepool-agent",
    });
    worker.addEventListener("message", (event: MessageEvent<WorkerToMain>) => {
      if (generation === this.generation) this.route(event.data);
    });
    worker.addEventListener("error", (event: ErrorEvent) => {
      if (generation !== this.generation) return;
      event.preventDefault();
      this.listener({
        type: "boot_failed",
        step: "load-pyodide",
        message: event.message || "the agent worker crashed",
      });
    });
    this.worker = worker;
  }

  stop(): void {
    this.worker?.terminate();
    this.worker = null;
    for (const resolve of this.waiters.values())
      resolve({ ok: false, code: "restarted", message: "the runtime was restarted" });
    this.waiters.clear();
  }

  post(message: MainToWorker): void {
    this.worker?.postMessage(message);
  }

  /**
   * A runtime `request`; resolves with its reply (or a failure after a timeout or a restart). `file`
   * reaches the runtime as a file in its file system (never in a frame); its path is added to `params`.
   */
  request<M extends RequestMethod>(
    method: M,
    params: RequestParams<M>,
    timeoutMs = REQUEST_TIMEOUT_MS,
    file?: Attachment,
  ): Promise<RequestAnswer<M>> {
    const requestId = `q${this.nextRequest++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        resolve({ ok: false, code: "timeout", message: `the runtime did not answer ${method}` });
      }, timeoutMs);
      this.waiters.set(requestId, (result) => {
        clearTimeout(timer);
        resolve(checkAnswer(method, result));
      });
      this.post({ type: "request", requestId, method, params, ...(file ? { file } : {}) });
    });
  }

  /** A files-panel request that the worker answers itself (list, read, upload, delete, export). */
  /** The open session's model traffic as a recording (JSON text). */
  exportRecording(): Promise<RequestResult> {
    return this.ask((requestId) => ({ type: "recording_export", requestId }));
  }

  /** Load a recording to answer model requests from (provider `replay`). */
  loadReplay(text: string): Promise<RequestResult> {
    return this.ask((requestId) => ({ type: "replay_load", requestId, text }));
  }

  /** Read a tool server's resource to attach to a message (the worker reads it: mcp/resources.ts). */
  readResource(server: string, uri: string): Promise<RequestResult> {
    return this.ask((requestId) => ({ type: "mcp_read", requestId, server, uri }));
  }

  /** `prompts/get` on a tool server (the worker answers: the user turn it becomes, or why not). */
  mcpPrompt(server: string, name: string, args: Record<string, string>): Promise<RequestResult> {
    return this.ask((requestId) => ({ type: "mcp_prompt", requestId, server, name, arguments: args }));
  }

  /** Fetch and check a skill a tool server lists (the worker answers: mcp/skills.ts's `FetchedSkill`). */
  fetchServerSkill(server: string, uri: string): Promise<RequestResult> {
    return this.ask((requestId) => ({ type: "mcp_skill_fetch", requestId, server, uri }), SKILL_FETCH_TIMEOUT_MS);
  }

  private ask(make: (requestId: string) => MainToWorker, timeoutMs = REQUEST_TIMEOUT_MS): Promise<RequestResult> {
    const requestId = `r${this.nextRequest++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        resolve({ ok: false, code: "timeout", message: "the worker did not answer" });
      }, timeoutMs);
      this.waiters.set(requestId, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      this.post(make(requestId));
    });
  }

  workspace(request: WorkspaceRequest, timeoutMs = REQUEST_TIMEOUT_MS): Promise<RequestResult> {
    const requestId = `w${this.nextRequest++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        resolve({ ok: false, code: "timeout", message: `the worker did not answer workspace ${request.op}` });
      }, timeoutMs);
      this.waiters.set(requestId, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      this.post({ type: "workspace", requestId, request });
    });
  }

  async listModels(): Promise<ModelsResult> {
    const result = await this.request("list_models", {});
    return result.ok ? { ok: true, models: result.value.models } : { ok: false, message: result.message };
  }

  private route(message: WorkerToMain): void {
    if (message.type === "reply") {
      const resolve = this.waiters.get(message.requestId);
      this.waiters.delete(message.requestId);
      resolve?.(message.result);
      return;
    }
    this.listener(message);
  }
}
