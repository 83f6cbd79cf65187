/**
 * Non-secret settings and the encrypted secrets (provider keys, tool servers' tokens), in IndexedDB.
 *
 * A key is stored as AES-GCM ciphertext next to a non-extractable CryptoKey (IndexedDB can hold
 * CryptoKey objects without exposing their bytes). Session-only keys live in this module's memory
 * and are never written. Nothing here touches localStorage or OPFS.
 */

import type { ProviderKind } from "../protocol/messages";
import { sanitizeSettings, type AppSettings, type KeyStorage } from "./model";

const DB_NAME = "tidepool";
const STORE = "kv";
const SETTINGS_KEY = "settings";
const WRAP_KEY = "key-wrapping-key";

interface EncryptedKey {
  iv: Uint8Array;
  data: ArrayBuffer;
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error("IndexedDB could not be opened"));
  });
}

async function withStore<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = run(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error ?? new Error("IndexedDB transaction failed"));
      tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
    });
  } finally {
    db.close();
  }
}

export const get = (key: string): Promise<unknown> => withStore("readonly", (s) => s.get(key));
export const put = (key: string, value: unknown): Promise<IDBValidKey> =>
  withStore("readwrite", (s) => s.put(value, key));
export const del = (key: string): Promise<undefined> => withStore("readwrite", (s) => s.delete(key));

export async function loadSettings(): Promise<AppSettings> {
  try {
    return sanitizeSettings(await get(SETTINGS_KEY));
  } catch {
    return sanitizeSettings(null);
  }
}

export async function saveSettings(settings: AppSettings): Promise<void> {
  await put(SETTINGS_KEY, { ...settings });
}

async function wrappingKey(): Promise<CryptoKey> {
  const existing = await get(WRAP_KEY);
  if (existing instanceof CryptoKey) return existing;
  const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
  try {
    await withStore("readwrite", (s) => s.add(key, WRAP_KEY)); // add, not put: the page and a worker may race here
    return key;
  } catch {
    const winner = await get(WRAP_KEY);
    if (winner instanceof CryptoKey) return winner;
    throw new Error("the key-wrapping key could not be stored");
  }
}

const secretName = (provider: ProviderKind): string => `secret:${provider}`;

/** Store `secret` under `name` as AES-GCM ciphertext under the non-extractable wrapping key (the provider keys, tool servers' tokens and sign-ins). */
export async function sealSecret(name: string, secret: string): Promise<void> {
  const key = await wrappingKey();
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(secret));
  const record: EncryptedKey = { iv, data };
  await put(name, record);
}

/** The secret stored under `name`, or null (none, or it cannot be decrypted any more). */
export async function openSecret(name: string): Promise<string | null> {
  const record = await get(name).catch(() => undefined);
  if (!isEncrypted(record)) return null;
  try {
    const key = await wrappingKey();
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: new Uint8Array(record.iv) }, key, record.data);
    return new TextDecoder().decode(plain);
  } catch {
    return null; // the wrapping key was lost or the record is damaged: ask for the secret again
  }
}

/** Forget the secret stored under `name`. */
export async function dropSecret(name: string): Promise<void> {
  await del(name);
}

/** Where each provider's key is: session memory or encrypted IndexedDB. */
export class KeyRing {
  private readonly session = new Map<ProviderKind, string>();

  async get(provider: ProviderKind, storage: KeyStorage): Promise<string | null> {
    if (storage === "session") return this.session.get(provider) ?? null;
    return openSecret(secretName(provider));
  }

  async set(provider: ProviderKind, storage: KeyStorage, secret: string): Promise<void> {
    if (storage === "session") {
      this.session.set(provider, secret);
      await dropSecret(secretName(provider));
      return;
    }
    this.session.delete(provider);
    await sealSecret(secretName(provider), secret);
  }

  /** Move a provider's key to another storage mode (e.g. the person switched to session-only). */
  async move(provider: ProviderKind, from: KeyStorage, to: KeyStorage): Promise<void> {
    if (from === to) return;
    const secret = await this.get(provider, from);
    if (secret) await this.set(provider, to, secret);
  }

  async forget(provider: ProviderKind): Promise<void> {
    this.session.delete(provider);
    await dropSecret(secretName(provider));
  }
}

function isEncrypted(value: unknown): value is EncryptedKey {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return r.iv instanceof Uint8Array && r.data instanceof ArrayBuffer;
}
