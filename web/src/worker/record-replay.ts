/**
 * Record and replay as the adapter uses them (the formats are recording.ts's): every provider
 * exchange is recorded for the open session (kept between page loads when this tab holds the
 * workspace); a deleted session's recording goes with it; `recording_export` hands the open session's
 * recording to the page, `replay_load` takes the one that answers model requests while the provider is
 * `replay`. Replaying, the runtime is configured as the recorded provider with the recorded model.
 */

import type { AgentSettings, RequestResult } from "../protocol/main-worker-messages";
import { parseRecording, Recorder, ReplaySource, type RecordingSink } from "./recording";

/** What the runtime's `config` says of the provider and model (replaying: the recording's). */
export interface ConfiguredProvider {
  provider: { kind: AgentSettings["provider"]["kind"]; base_url: string; has_key: boolean };
  model: string | null;
}

export class RecordReplay {
  readonly recorder = new Recorder();
  private replay: ReplaySource | null = null;
  private readonly deletions = new Map<string, string>(); // frame id of a session_delete -> the session

  /** Keep each session's recording between page loads (this tab holds the workspace). */
  keep(sink: RecordingSink): void {
    this.recorder.attach(sink);
  }

  /** The recording that answers provider requests now (only while the provider is `replay`). */
  source(settings: AgentSettings | null): ReplaySource | null {
    return settings?.provider.kind === "replay" ? this.replay : null;
  }

  /** The provider base URL the egress rule allows (replaying: the recorded one). */
  providerBaseUrl(settings: AgentSettings | null): string | null {
    return settings?.provider.kind === "replay"
      ? (this.replay?.recording.base_url ?? null)
      : (settings?.provider.base_url ?? null);
  }

  /** The open session's recording, as the JSON text the page downloads. */
  async export(settings: AgentSettings | null): Promise<RequestResult> {
    const recording = await this.recorder.export(
      settings?.provider.kind ?? "",
      settings?.provider.base_url ?? "",
      settings?.model ?? null,
    );
    return { ok: true, value: JSON.stringify(recording, null, 1) };
  }

  /** Take `text` as the recording to replay; the answer names its provider, or why it was refused. */
  load(text: string): RequestResult {
    try {
      this.replay = new ReplaySource(parseRecording(text));
      return { ok: true, value: this.replay.recording.provider };
    } catch (err) {
      return { ok: false, code: "bad_recording", message: String(err instanceof Error ? err.message : err) };
    }
  }

  /** What `config` says of the provider and model: replaying, the recording's (its calls were made with its model). */
  configured(settings: AgentSettings, hasKey: boolean): ConfiguredProvider {
    const recorded = settings.provider.kind === "replay" ? this.replay?.recording : undefined;
    if (!recorded) return { provider: { ...settings.provider, has_key: hasKey }, model: settings.model };
    return {
      provider: {
        kind: recorded.provider as AgentSettings["provider"]["kind"],
        base_url: recorded.base_url,
        has_key: false,
      },
      model: this.replay?.model ?? settings.model,
    };
  }

  sessionOpened(sessionId: string): void {
    this.recorder.setSession(sessionId);
  }

  /** A UI request went out as frame `id`: a `session_delete` is remembered until its reply. */
  requested(id: string, method: string, params: Record<string, unknown>): void {
    if (method === "session_delete" && typeof params.session_id === "string") this.deletions.set(id, params.session_id);
  }

  /** The runtime replied to frame `id`: a deleted session's recording goes too. */
  replied(id: string, ok: boolean): void {
    const doomed = this.deletions.get(id);
    this.deletions.delete(id);
    if (doomed !== undefined && ok) void this.recorder.forget(doomed);
  }
}
