/**
 * What the chat reads of the open session and its versions, asked of the runtime: earlier and later pages of a
 * long session (`session_current` with `before` / `after`), the session as stored now, another version of a
 * message (`session_branch`), a fork (`session_fork`, which opens with `session_opened`) and a delegated
 * agent's session as text. A failure the person should see is said in the chat; the others answer null.
 */

import type { Requester, RequestAnswer, RequestMethod, RequestValue } from "../../protocol/requests";
import type { ChatActions } from "./chat";

type SessionReads = Pick<ChatActions, "earlier" | "later" | "storedView" | "showBranch" | "fork" | "readSession">;

export function sessionReads(
  request: Requester,
  say: (text: string) => void,
  /** A request that opens another chat, held by the composer until it is answered (main.ts). */
  switching: <T>(method: string, answer: Promise<T>) => Promise<T>,
): SessionReads {
  /** The answer's value, or null once `failed` and why are said in the chat. */
  const orSaid = async <M extends RequestMethod>(
    answer: Promise<RequestAnswer<M>>,
    failed: string,
  ): Promise<RequestValue<M> | null> => {
    const done = await answer;
    if (done.ok) return done.value;
    say(`${failed}: ${done.message}`);
    return null;
  };
  return {
    earlier: (before, count) =>
      orSaid(request("session_current", { shown: count, before }), "Could not show the earlier messages"),
    later: (after, count) =>
      orSaid(request("session_current", { shown: count, after }), "Could not show the later messages"),
    storedView: async (count) => {
      const answer = await request("session_current", { shown: count });
      return answer.ok ? answer.value : null;
    },
    showBranch: (seq) => orSaid(request("session_branch", { seq }), "Could not show that version"),
    fork: (seq) => void orSaid(switching("session_fork", request("session_fork", { seq })), "Could not fork the chat"),
    readSession: async (sessionId) => {
      const answer = await request("session_export", { session_id: sessionId, format: "markdown" });
      return answer.ok ? { text: answer.value.text } : { error: answer.message };
    },
  };
}
