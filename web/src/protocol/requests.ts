/**
 * The runtime's request methods for the page, typed end to end. Their one definition is the Python
 * method table (runtime/requests/); `requests.gen.ts` is generated from it (`npm run protocol:gen`).
 * This module adds the answer a caller gets and the one check of a reply's result against its
 * method's result shape: past `checkAnswer` the page trusts the value's type.
 */

import { isJsonObject } from "./codec";
import { REQUEST_RESULT_SHAPES, REQUEST_SHAPES } from "./request-shapes.gen";
import type { RequestMap } from "./requests.gen";
import type { Attachment } from "./main-worker-messages";
import { fieldProblem } from "./validate";

export * from "./request-shapes.gen";
export * from "./requests.gen";

export type RequestMethod = keyof RequestMap;
export type RequestParams<M extends RequestMethod> = RequestMap[M]["params"];
export type RequestValue<M extends RequestMethod> = RequestMap[M]["result"];

/** A request's outcome: its result, or why there is none (the runtime's error code, or the page's). */
export type Answer<T> = { ok: true; value: T } | { ok: false; code: string; message: string };
export type RequestAnswer<M extends RequestMethod> = Answer<RequestValue<M>>;

/** A runtime `request` as a caller sees it (RuntimeClient.request without the upload and timeout). */
export type Requester = <M extends RequestMethod>(method: M, params: RequestParams<M>) => Promise<RequestAnswer<M>>;

/** A requester that may send a file with the request (it reaches the runtime as a file: `Method(file=True)`). */
export type UploadRequester = <M extends RequestMethod>(
  method: M,
  params: RequestParams<M>,
  timeoutMs?: number,
  file?: Attachment,
) => Promise<RequestAnswer<M>>;

/** An answer as the worker posts it, whose value is not checked yet. */
export type UncheckedAnswer = Answer<unknown>;

/** The answer with its value checked against `method`'s result shape; a value that is not one fails as `bad_reply`. */
export function checkAnswer<M extends RequestMethod>(method: M, answer: UncheckedAnswer): RequestAnswer<M> {
  if (!answer.ok) return answer;
  const table = REQUEST_SHAPES[REQUEST_RESULT_SHAPES[method]];
  const value = answer.value;
  const detail = !isJsonObject(value)
    ? "it is not an object"
    : table
      ? fieldProblem(value, table, REQUEST_SHAPES)
      : "no definition";
  if (detail !== null)
    return { ok: false, code: "bad_reply", message: `the runtime's ${method} reply was not understood (${detail})` };
  return { ok: true, value: value as RequestValue<M> };
}
