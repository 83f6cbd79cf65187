/**
 * The frame codec, byte-for-byte the same wire format as runtime/host/codec.py (docs/protocol.md):
 *
 *     \x1eTP1:<length>:<payload>\n
 *
 * `<length>` is the payload's byte count in ASCII decimal (no sign, no leading zero, at most 10
 * digits); `<payload>` is a UTF-8 JSON object with a string `type`, nested at most `MAX_DEPTH`
 * containers deep (deeper is `bad_message`). Bytes outside frames are stray output: reported, never
 * parsed. Checked against tests/vectors/frames.json.
 */

import { MAX_FRAME_BYTES } from "./constants.gen";

export const MAGIC = new Uint8Array([0x1e, 0x54, 0x50, 0x31, 0x3a]); // "\x1eTP1:"
/** runtime/host/constants.py MAX_FRAME_BYTES (16 MiB; uploads travel as files, not in frames). */
export const DEFAULT_MAX_FRAME = MAX_FRAME_BYTES;
const MAX_DIGITS = 10;
/** Objects and arrays a message may nest, the message itself counting as 1 (as in codec.py). */
export const MAX_DEPTH = 100;
const COLON = 0x3a;
const NEWLINE = 0x0a;

export type JsonObject = { [key: string]: unknown };
export type WireMessage = JsonObject & { type: string };

export type MalformedCode = "bad_header" | "too_large" | "bad_json" | "bad_message" | "bad_terminator";

export type DecodedItem =
  | { kind: "message"; message: WireMessage }
  | { kind: "stray"; data: Uint8Array }
  | { kind: "malformed"; code: MalformedCode; detail: string };

export class FrameTooLargeError extends Error {
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`frame of ${size} bytes is over the limit of ${limit}`);
    this.name = "FrameTooLargeError";
  }
}

const encoder = new TextEncoder();

/** Encode one message as a frame. JSON.stringify escapes control characters, as json.dumps does. */
export function encodeFrame(message: WireMessage, maxFrame: number = DEFAULT_MAX_FRAME): Uint8Array {
  if (typeof message.type !== "string") throw new TypeError("a message needs a string 'type'");
  const payload = encoder.encode(JSON.stringify(message));
  if (payload.length > maxFrame) throw new FrameTooLargeError(payload.length, maxFrame);
  const head = encoder.encode(`\x1eTP1:${payload.length}:`);
  const out = new Uint8Array(head.length + payload.length + 1);
  out.set(head, 0);
  out.set(payload, head.length);
  out[out.length - 1] = NEWLINE;
  return out;
}

/** Incremental decoder: feed bytes in any split, get items out in order. */
export class FrameDecoder {
  private buf = new Uint8Array(4096);
  private start = 0;
  private end = 0;
  private skip = 0; // bytes of an oversized payload (and its terminator) still to discard

  constructor(readonly maxFrame: number = DEFAULT_MAX_FRAME) {}

  feed(data: Uint8Array): DecodedItem[] {
    this.append(data);
    const items: DecodedItem[] = [];
    for (;;) {
      const item = this.next();
      if (item === null) break;
      items.push(item);
    }
    this.compact();
    return items;
  }

  private get length(): number {
    return this.end - this.start;
  }

  private append(data: Uint8Array): void {
    if (this.skip > 0) {
      const n = Math.min(this.skip, data.length);
      this.skip -= n;
      data = data.subarray(n);
    }
    if (data.length === 0) return;
    if (this.end + data.length > this.buf.length) {
      const needed = this.length + data.length;
      const size = Math.max(needed, this.buf.length * 2);
      const grown = needed > this.buf.length ? new Uint8Array(size) : this.buf;
      grown.set(this.buf.subarray(this.start, this.end), 0);
      this.buf = grown;
      this.end = this.length;
      this.start = 0;
    }
    this.buf.set(data, this.end);
    this.end += data.length;
  }

  private compact(): void {
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
    }
  }

  private view(from = 0, to = this.length): Uint8Array {
    return this.buf.subarray(this.start + from, this.start + Math.min(to, this.length));
  }

  private take(n: number): Uint8Array {
    const out = this.view(0, n).slice();
    this.start += n;
    return out;
  }

  private next(): DecodedItem | null {
    if (this.length === 0) return null;
    const at = indexOf(this.view(), MAGIC, 0);
    if (at === -1) {
      const keep = partialMagicSuffix(this.view());
      if (keep === this.length) return null;
      return { kind: "stray", data: this.take(this.length - keep) };
    }
    if (at > 0) return { kind: "stray", data: this.take(at) };
    return this.frameAtStart();
  }

  private frameAtStart(): DecodedItem | null {
    const head = MAGIC.length;
    const view = this.view();
    const colon = indexOfByte(view, COLON, head, head + MAX_DIGITS + 1);
    if (colon === -1) {
      const digits = view.subarray(head, head + MAX_DIGITS + 1);
      if (digits.length === 0 || (view.length - head <= MAX_DIGITS && isDigits(digits))) return null;
      return this.badHeader(digits);
    }
    const digits = view.subarray(head, colon);
    if (!isDigits(digits) || (digits.length > 1 && digits[0] === 0x30)) return this.badHeader(digits);
    const length = Number(ascii(digits));
    const body = colon + 1;
    if (length > this.maxFrame) {
      this.start += body;
      const pending = length + 1; // payload and terminator
      const n = Math.min(pending, this.length);
      this.start += n;
      this.skip = pending - n;
      return {
        kind: "malformed",
        code: "too_large",
        detail: `frame of ${length} bytes is over the limit of ${this.maxFrame}`,
      };
    }
    const end = body + length;
    if (view.length < end + 1) return null;
    const payload = view.slice(body, end);
    const terminator = view[end];
    this.start += end + 1;
    if (terminator !== NEWLINE) {
      return { kind: "malformed", code: "bad_terminator", detail: "frame not followed by a newline" };
    }
    return parsePayload(payload);
  }

  private badHeader(digits: Uint8Array): DecodedItem {
    // Drop only the magic's first byte so a real frame right after is still found.
    const shown = ascii(digits.subarray(0, 12));
    this.start += 1;
    return { kind: "malformed", code: "bad_header", detail: `bad length ${JSON.stringify(shown)}` };
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function parsePayload(payload: Uint8Array): DecodedItem {
  let value: unknown;
  const tooDeep: DecodedItem = {
    kind: "malformed",
    code: "bad_message",
    detail: `a message may nest at most ${MAX_DEPTH} levels deep`,
  };
  try {
    value = JSON.parse(strictUtf8.decode(payload));
  } catch (err) {
    if (err instanceof RangeError) return tooDeep; // the engine's own stack ran out
    return { kind: "malformed", code: "bad_json", detail: String(err).slice(0, 200) };
  }
  if (nestsDeeperThan(value, MAX_DEPTH)) return tooDeep;
  if (!isWireMessage(value)) {
    return {
      kind: "malformed",
      code: "bad_message",
      detail: "a message must be a JSON object with a string 'type'",
    };
  }
  return { kind: "message", message: value };
}

/** Whether `value` nests more than `limit` objects/arrays deep (walked without recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [item, level] = top;
    if (typeof item !== "object" || item === null) continue;
    if (level > limit) return true;
    for (const child of Object.values(item)) stack.push([child, level + 1]);
  }
  return false;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isWireMessage(value: unknown): value is WireMessage {
  return isJsonObject(value) && typeof value.type === "string";
}

function isDigits(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (const b of bytes) if (b < 0x30 || b > 0x39) return false;
  return true;
}

function ascii(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

function indexOfByte(hay: Uint8Array, byte: number, from: number, to: number): number {
  const stop = Math.min(to, hay.length);
  for (let i = from; i < stop; i++) if (hay[i] === byte) return i;
  return -1;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = hay.indexOf(first as number, from); i !== -1; i = hay.indexOf(first as number, i + 1)) {
    if (i + needle.length > hay.length) return -1;
    let ok = true;
    for (let j = 1; j < needle.length; j++) {
      if (hay[i + j] !== needle[j]) {
        ok = false;
        break;
      }
    }
    if (ok) return i;
  }
  return -1;
}

function partialMagicSuffix(buf: Uint8Array): number {
  for (let n = Math.min(MAGIC.length - 1, buf.length); n > 0; n--) {
    let ok = true;
    for (let j = 0; j < n; j++) {
      if (buf[buf.length - n + j] !== MAGIC[j]) {
        ok = false;
        break;
      }
    }
    if (ok) return n;
  }
  return 0;
}
