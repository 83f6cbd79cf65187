/**
 * A tool call's events drawn in the conversation: its card started, asking for approval (named by the
 * delegated agent that asks), its live output, its end. A call that starts or asks ends the reply streaming
 * before it (it is folded and the next text starts a new message).
 */

import type { UiEvent } from "../../protocol/messages";
import type { ImageLoader } from "../images/message-images";
import { markAgent } from "./agent-tasks";
import type { ReplyStream } from "./reply-stream";
import type { Transcript } from "./transcript";

export type ToolEvent = Extract<
  UiEvent,
  { kind: "tool_started" | "approval_needed" | "tool_output" | "tool_finished" }
>;

export function showToolEvent(
  event: ToolEvent,
  transcript: Transcript,
  stream: ReplyStream,
  loader: ImageLoader | undefined,
): void {
  switch (event.kind) {
    case "tool_started":
      stream.fold();
      transcript.card(event.call_id, event.name, event.arguments).started();
      return stream.interrupt();
    case "approval_needed":
      stream.fold();
      transcript.card(event.call_id, event.name, event.arguments).askApproval(event.preview, event.always_asks);
      if (event.agent) markAgent(transcript.card(event.call_id, event.name, undefined).root, event.agent);
      return stream.interrupt();
    case "tool_output":
      return transcript.output(event.call_id, event.stream, event.text);
    case "tool_finished":
      transcript
        .card(event.call_id, event.name, event.arguments)
        .finished(event.status ?? (event.ok ? "ok" : "error"), event.result, event.images, loader);
      return;
  }
}
