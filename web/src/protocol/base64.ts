/** Base64 for bytes that travel as JSON text (frame fields, recordings, images in messages). */

const SLICE = 0x8000; // String.fromCharCode's argument list stays well under engine limits

/** The native codec of current browsers (`Uint8Array.prototype.toBase64`, `Uint8Array.fromBase64`): one pass. */
interface NativeBase64 {
  toBase64?: () => string;
  fromBase64?: (data: string) => Uint8Array;
}

export function toBase64(bytes: Uint8Array): string {
  const native = (bytes as NativeBase64).toBase64;
  if (typeof native === "function") return native.call(bytes);
  let binary = "";
  for (let i = 0; i < bytes.length; i += SLICE) binary += String.fromCharCode(...bytes.subarray(i, i + SLICE));
  return btoa(binary);
}

export function fromBase64(data: string): Uint8Array {
  const native = (Uint8Array as NativeBase64).fromBase64;
  if (typeof native === "function") return native.call(Uint8Array, data);
  const binary = atob(data);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
