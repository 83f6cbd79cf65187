/** The provider base URL a person typed in the settings form, as the app stores and uses it. */

/** Normalize a base URL as typed by a person: trim, drop trailing slashes. Null when unusable. */
export function normalizeBaseUrl(raw: string): string | null {
  const trimmed = raw.trim();
  try {
    const url = new URL(trimmed);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return null;
    return url.href.replace(/\/+$/, "");
  } catch {
    return null;
  }
}
