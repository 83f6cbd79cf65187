/**
 * The fetch the sign-in runs on, which remembers every endpoint the browser could not read. A browser
 * reports a missing CORS header and an unreachable host alike (a bare TypeError); a second, `no-cors`
 * GET to the same URL tells them apart (an opaque answer: the host is up but does not allow this origin).
 * The SDK swallows some of these failures and moves on to the next well-known URL, so the list is what
 * lets the final message name the endpoint that lacks CORS instead of an unrelated 404.
 */

export interface Blocked {
  url: string;
  reason: "no-cors" | "unreachable";
}

async function diagnose(url: string): Promise<Blocked["reason"]> {
  try {
    await fetch(url, { mode: "no-cors", credentials: "omit", cache: "no-store" });
    return "no-cors";
  } catch {
    return "unreachable";
  }
}

function urlOf(input: string | URL | Request): string {
  if (typeof input === "string") return input;
  return input instanceof URL ? input.href : input.url;
}

export class EndpointReporter {
  readonly blocked: Blocked[] = [];

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    try {
      return await fetch(input, init);
    } catch (err) {
      if (err instanceof TypeError) {
        const url = urlOf(input).split("?")[0] ?? "";
        if (!this.blocked.some((b) => b.url === url)) this.blocked.push({ url, reason: await diagnose(url) });
      }
      throw err;
    }
  };

  /** What to tell the person: the endpoints the browser could not read, then what the SDK said. */
  explain(err: unknown): string {
    const said = err instanceof Error ? err.message : String(err);
    const noCors = this.blocked.filter((b) => b.reason === "no-cors").map((b) => b.url);
    const down = this.blocked.filter((b) => b.reason === "unreachable").map((b) => b.url);
    const parts: string[] = [];
    if (noCors.length > 0) {
      parts.push(
        `These sign-in endpoints answer but send no CORS headers, so a browser app cannot read them: ${noCors.join(", ")}. ` +
          `Ask the server's owner to send Access-Control-Allow-Origin for ${self.location.origin} on its OAuth metadata, ` +
          "registration and token endpoints (and to allow the Content-Type and Authorization headers).",
      );
    }
    if (down.length > 0)
      parts.push(`Could not reach ${down.join(", ")}: is the server running, and is the address right?`);
    parts.push(`(${said})`);
    return parts.join(" ");
  }
}
