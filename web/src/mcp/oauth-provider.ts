/**
 * The SDK's `OAuthClientProvider` for one MCP server, over its sealed record (oauth-store.ts).
 *
 * Two modes. Interactive (the page, during a sign-in the person started): it registers the app with the
 * authorization server, keeps the PKCE verifier and opens the authorization URL. Quiet (the agent worker's
 * transport): it hands the stored token to the SDK, lets the SDK refresh it, and when a person is needed
 * (no sign-in set up yet, no registration, refresh refused with `invalid_grant`, a revoked token) it only
 * notes that sign-in is required; the transport then fails with `UnauthorizedError` and the server's entry asks to sign in.
 */

import {
  OAuthError,
  OAuthErrorCode,
  SdkError,
  SdkErrorCode,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ServerAuthStore } from "./oauth-store";

/** A person has to sign in to this server (from the entry's `tool-server-signin` button). */
export class SignInRequired extends Error {
  constructor(
    readonly serverUrl: string,
    reason: string,
  ) {
    super(`${serverUrl} needs you to sign in: ${reason}`);
    this.name = "SignInRequired";
  }
}

export interface Interactive {
  /** The `state` sent with the authorization request, checked when the answer comes back. */
  state: string;
  /** Take the person to the authorization page (the popup, or this tab when no popup could open). */
  open(url: URL): void;
}

/**
 * True for every error that means "ask the person to sign in again" rather than "the server is broken".
 * A 401 right after a refresh the SDK counted as a success (the grant was revoked in between, or the
 * server refuses the fresh token) is one too: the SDK stops there rather than loop, and signing in again
 * is the one thing that can mend it.
 */
export function needsSignIn(err: unknown): boolean {
  if (err instanceof SdkError) return err.code === SdkErrorCode.ClientHttpAuthentication;
  if (err instanceof OAuthError) return err.code === String(OAuthErrorCode.InvalidGrant);
  return err instanceof SignInRequired || err instanceof UnauthorizedError;
}

export class McpOAuthProvider implements OAuthClientProvider {
  readonly store: ServerAuthStore;
  /** Set when the SDK wanted a person (quiet mode): why the entry goes to `auth-required`. */
  signInNeeded = false;

  constructor(
    readonly serverUrl: string,
    private readonly callback: string,
    private readonly interactive?: Interactive,
  ) {
    this.store = new ServerAuthStore(serverUrl);
  }

  get redirectUrl(): string {
    return this.callback;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Tidepool",
      redirect_uris: [this.callback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    if (!this.interactive) throw new SignInRequired(this.serverUrl, "the agent cannot start a sign-in");
    return this.interactive.state;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const client = (await this.store.read()).client;
    // Registering happens when the person signs in, not behind their back from the worker.
    if (!client && !this.interactive)
      throw new SignInRequired(this.serverUrl, "this app is not registered with its authorization server yet");
    return client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.store.put("client", client);
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.store.read()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.store.put("tokens", tokens);
  }

  redirectToAuthorization(url: URL): void {
    if (this.interactive) this.interactive.open(url);
    else this.signInNeeded = true;
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    // Quiet mode never finishes a code exchange; writing would clobber a sign-in the page has under way.
    if (this.interactive) await this.store.put("verifier", verifier);
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.store.read()).verifier;
    if (!verifier) throw new SignInRequired(this.serverUrl, "the sign-in expired (no PKCE verifier): sign in again");
    return verifier;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.store.put("discovery", state);
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const discovery = (await this.store.read()).discovery;
    // Discovery reaches the authorization server's origin: the page does it when the person signs in; the
    // worker's egress allows only the origins this record names (authOrigins), so it never discovers itself.
    if (!discovery && !this.interactive)
      throw new SignInRequired(this.serverUrl, "this server's sign-in has not been set up yet");
    return discovery;
  }

  /** The origins the worker may reach for this server's OAuth (refreshing a token): its authorization server's, as discovered at sign-in. */
  async authOrigins(): Promise<string[]> {
    const discovery = (await this.store.read()).discovery;
    const urls = [discovery?.authorizationServerUrl, discovery?.authorizationServerMetadata?.token_endpoint];
    const origins: string[] = [];
    for (const raw of urls) {
      try {
        if (raw) origins.push(new URL(raw).origin);
      } catch {
        // a damaged record: that origin stays refused, and the entry asks to sign in again
      }
    }
    return origins;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all") {
      await this.store.forget();
      return;
    }
    await this.store.put(scope, undefined);
  }
}
