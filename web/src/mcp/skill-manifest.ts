/**
 * A skill entry of the MCP skills extension (SEP-2640, `io.modelcontextprotocol/skills`) as this app
 * takes it, without the network: the entry's shape (`skills/list`, `skills/get`), what makes a skill
 * unfit to import before a byte of it is read (no digests, over the limits, a file outside the skill,
 * a name that is not its path's), and the check of each file read against its manifest line (size,
 * then sha256). The entry comes from the server, so everything in it is untrusted.
 */

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** The extension's per-skill limits (every conforming host accepts up to these). */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** One file's most: its `resources/read` answer (base64 for bytes) must fit the 8 MB egress cap. */
export const MAX_SKILL_FILE_BYTES = 5 * 1024 * 1024;
/** Skills taken from one server's listing (the panel shows each). */
export const MAX_LISTED_SKILLS = 200;

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SKILL_FILE = "SKILL.md";

export interface ManifestFile {
  uri: string;
  /** Its path inside the skill's folder (`references/a.md`). */
  path: string;
  digest: string;
  size: number;
}

/** A listed skill as the panel shows it; `problem`: why it cannot be imported (checked from the entry). */
export interface SkillEntry {
  uri: string;
  name: string;
  description: string;
  files: ManifestFile[];
  problem: string;
}

/** The entries of a `skills/list` result; an entry that is not one is kept with its problem, never dropped. */
export function readListing(result: unknown): SkillEntry[] {
  const skills = isObject(result) ? result.skills : undefined;
  if (!Array.isArray(skills)) throw new Error("the server's skills/list answer has no 'skills' list");
  return skills.slice(0, MAX_LISTED_SKILLS).map(readEntry);
}

/** One `Skill` entry, checked against the extension's rules; `problem` says why it may not be imported. */
export function readEntry(raw: unknown): SkillEntry {
  const entry = isObject(raw) ? raw : {};
  const uri = typeof entry.uri === "string" ? entry.uri : "";
  const front = isObject(entry.frontmatter) ? entry.frontmatter : {};
  const name = typeof front.name === "string" ? front.name : "";
  const description = typeof front.description === "string" ? front.description : "";
  const base = { uri, name: name || lastSegment(uri) || "(unnamed)", description, files: [] };
  const root = skillRoot(uri);
  if (root === null) return { ...base, problem: `its URI ${shown(uri)} does not end in /SKILL.md` };
  if (!name || !description) return { ...base, problem: "its frontmatter lacks a name or a description" };
  if (!NAME.test(name) || name.length > 64)
    return { ...base, problem: `its name ${shown(name)} is not 1-64 lower-case letters, digits and single hyphens` };
  if (lastSegment(root) !== name)
    return { ...base, problem: `its name ${shown(name)} is not the last segment of its URI ${shown(uri)}` };
  const files = readManifest(entry.resources, uri, root);
  if (typeof files === "string") return { ...base, problem: files };
  return { ...base, files, problem: "" };
}

/** Why `bytes` are not the file the manifest line describes, or null when they are. */
export async function fileProblem(file: ManifestFile, bytes: Uint8Array): Promise<string | null> {
  if (bytes.byteLength !== file.size)
    return `${file.path} is ${bytes.byteLength} bytes, but the server's manifest says ${file.size}`;
  const digest = `sha256:${hex(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))}`;
  if (digest !== file.digest)
    return `${file.path} does not match its digest in the server's manifest (it has ${digest.slice(0, 19)}…, the manifest ${file.digest.slice(0, 19)}…): it changed or was tampered with`;
  return null;
}

function readManifest(resources: unknown, uri: string, root: string): ManifestFile[] | string {
  if (resources === "dynamic")
    return "it is generated on the fly (resources: dynamic), so it publishes no digests to check its files against";
  if (!Array.isArray(resources)) return "its entry has no manifest of files (resources)";
  if (resources.length > MAX_SKILL_FILES)
    return `it has ${resources.length} files, over the ${MAX_SKILL_FILES} a skill may have`;
  const files: ManifestFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const raw of resources) {
    const file = readFile(raw, root);
    if (typeof file === "string") return file;
    if (seen.has(file.path)) return `its manifest lists ${shown(file.path)} twice`;
    seen.add(file.path);
    total += file.size;
    if (file.size > MAX_SKILL_FILE_BYTES)
      return `${file.path} is ${file.size} bytes, over the ${MAX_SKILL_FILE_BYTES} one file may be`;
    files.push(file);
  }
  if (total > MAX_SKILL_BYTES) return `its files come to ${total} bytes, over the ${MAX_SKILL_BYTES} a skill may be`;
  if (!files.some((f) => f.uri === uri)) return `its manifest does not list its ${SKILL_FILE}`;
  return files;
}

function readFile(raw: unknown, root: string): ManifestFile | string {
  const line = isObject(raw) ? raw : {};
  const { uri, digest, size } = line;
  if (typeof uri !== "string" || !uri.startsWith(`${root}/`))
    return `its manifest names a file outside the skill (${shown(String(uri))})`;
  const path = uri.slice(root.length + 1);
  const problem = pathProblem(path);
  if (problem) return `its manifest names the file ${shown(path)}, which ${problem}`;
  if (typeof digest !== "string" || !DIGEST.test(digest))
    return `the digest of ${path} is not sha256: and 64 lower-case hex digits`;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0)
    return `the size of ${path} is not a whole number of bytes`;
  return { uri, path, digest, size };
}

/** Why a file path inside a skill is not one to write, or null. */
function pathProblem(path: string): string | null {
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return "escapes its folder or has an empty part";
  if ([...path].some((c) => c.charCodeAt(0) < 0x20 || c === "\x7f") || /[\\%?#]/.test(path))
    return "holds a backslash, a control character, '%', '?' or '#'";
  if (segments.length > 16 || path.length > 240) return "is too deep or too long";
  return null;
}

/** The skill's root (its `SKILL.md` URI without `/SKILL.md`), or null when the URI does not end so. */
function skillRoot(uri: string): string | null {
  if (!uri.endsWith(`/${SKILL_FILE}`) || uri.length > 1000) return null;
  const root = uri.slice(0, -SKILL_FILE.length - 1);
  return /^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(root) ? root : null;
}

function lastSegment(uri: string): string {
  const trimmed = uri.endsWith(`/${SKILL_FILE}`) ? uri.slice(0, -SKILL_FILE.length - 1) : uri;
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

function shown(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
