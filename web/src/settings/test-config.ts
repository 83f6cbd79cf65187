/**
 * Settings a test server hands the page: `scripts/serve.py --test-config JSON` puts them in
 * `<meta name="tidepool-test-config">` in index.html. This is the only way anything but the person
 * configures the app: the page's URL never does (a crafted link could otherwise re-point sign-in or the
 * sandbox's package index). A production server has no such option set, so the tag is absent.
 */

export const TEST_CONFIG_META = "tidepool-test-config";

export interface TestConfig {
  /** Where "Connect with OpenRouter" signs in (a fake auth server in tests). */
  authBase?: string;
  /** Package indexes for run_python's micropip (a local index in tests). */
  packageIndexUrls?: string[];
  /**
   * Benchmarks only: reply text is counted as it reaches the page (`tidepool:text` events on
   * `document`) instead of being rendered, so the stream's own cost can be measured (ui/chat/stream-probe.ts).
   */
  streamProbe?: boolean;
}

const HTTP_URL = /^https?:\/\/[^\s]+$/;

/** Read and check the meta tag's JSON; anything malformed or not an http(s) URL is ignored. */
export function parseTestConfig(content: string | null | undefined): TestConfig {
  if (!content) return {};
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return {};
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const raw = value as Record<string, unknown>;
  const config: TestConfig = {};
  if (typeof raw.authBase === "string" && HTTP_URL.test(raw.authBase)) config.authBase = raw.authBase;
  if (Array.isArray(raw.packageIndexUrls)) {
    config.packageIndexUrls = raw.packageIndexUrls.filter(
      (u): u is string => typeof u === "string" && HTTP_URL.test(u),
    );
  }
  if (raw.streamProbe === true) config.streamProbe = true;
  return config;
}

export function readTestConfig(doc: Pick<Document, "querySelector"> = document): TestConfig {
  const meta = doc.querySelector<HTMLMetaElement>(`meta[name="${TEST_CONFIG_META}"]`);
  return parseTestConfig(meta?.content);
}
