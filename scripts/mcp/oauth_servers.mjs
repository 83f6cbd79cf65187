// A real OAuth 2.1 authorization server (panva's oidc-provider: dynamic client registration, PKCE,
// refresh tokens, resource indicators, introspection, revocation) and an MCP server it protects (the
// official SDK's server, stateless Streamable HTTP), both on 127.0.0.1, for the sign-in tests.
//
//   node scripts/mcp/oauth_servers.mjs [--no-as-cors]
//
// Prints one JSON line {"as": ISSUER, "mcp": MCP_URL} once both listen. The sign-in page consents on its
// own (a test account), so a browser goes through the real authorize -> code -> token exchange unattended.
// `--no-as-cors` strips every CORS header from the authorization server (metadata, registration, token),
// as many deployed servers do. Test hooks on the authorization server: POST /test/revoke drops every
// grant, access and refresh token (the person revoked the app); POST /test/revoke-access drops only the
// access tokens (as if they expired: a refresh must follow); GET /test/log lists what happened;
// GET /test/tokens lists the live token values (for a test to look for them where they must not be).
import http from "node:http";
import Provider from "oidc-provider";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const NO_AS_CORS = process.argv.includes("--no-as-cors");
const ACCOUNT = "tester";
const RS_CLIENT = { client_id: "mcp-resource-server", client_secret: "resource-server-secret" };
const SCOPE = "mcp";
const log = [];

/** oidc-provider's storage: every model in one map, so a revocation can drop them all. */
const records = new Map();
class Adapter {
  constructor(name) {
    this.name = name;
  }
  key(id) {
    return `${this.name}:${id}`;
  }
  async upsert(id, payload) {
    records.set(this.key(id), { ...payload });
  }
  async find(id) {
    return records.get(this.key(id));
  }
  async findByUserCode() {
    return undefined;
  }
  async findByUid(uid) {
    for (const [key, value] of records) if (key.startsWith(`${this.name}:`) && value.uid === uid) return value;
    return undefined;
  }
  async consume(id) {
    const record = records.get(this.key(id));
    if (record) record.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) {
    records.delete(this.key(id));
  }
  async revokeByGrantId(grantId) {
    for (const [key, value] of records) if (value.grantId === grantId) records.delete(key);
  }
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const asServer = http.createServer();
const mcpServer = http.createServer();
const asPort = await listen(asServer);
const mcpPort = await listen(mcpServer);
const issuer = `http://127.0.0.1:${asPort}`;
const mcpOrigin = `http://127.0.0.1:${mcpPort}`;
const resource = `${mcpOrigin}/mcp`;
const resourceMetadataUrl = `${mcpOrigin}/.well-known/oauth-protected-resource/mcp`;

const provider = new Provider(issuer, {
  adapter: Adapter,
  clients: [{ ...RS_CLIENT, redirect_uris: [], response_types: [], grant_types: [] }],
  scopes: [SCOPE],
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return { scope: SCOPE, audience: resource, accessTokenFormat: "opaque", accessTokenTTL: 3600 };
      },
    },
  },
  clientBasedCORS: () => true,
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: { AccessToken: 3600, AuthorizationCode: 60, Grant: 3600, Interaction: 600, RefreshToken: 86400, Session: 3600 },
});
for (const event of ["registration_create.success", "grant.success", "grant.error", "grant.revoked"]) {
  provider.on(event, (ctx, err) => log.push({ event, grant_type: ctx?.oidc?.params?.grant_type, error: err?.error }));
}

/** The sign-in page: the test account logs in and consents to what the client asked for, unattended. */
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await provider.interactionFinished(req, res, { login: { accountId: ACCOUNT } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(" "));
  }
  const grantId = await grant.save();
  log.push({ event: "consent", client_id: details.params.client_id });
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const CORS_PREFLIGHT = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, Authorization",
};

const callback = provider.callback();
asServer.on("request", (req, res) => {
  const path = new URL(req.url, issuer).pathname;
  if (NO_AS_CORS) {
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name, value) => (name.toLowerCase().startsWith("access-control-") ? res : setHeader(name, value));
  } else if (path === "/reg") {
    // oidc-provider gives its registration endpoint no CORS (it expects server-side clients there);
    // a browser client registers itself, so this deployment allows it.
    if (req.method === "OPTIONS") return void res.writeHead(204, CORS_PREFLIGHT).end();
    res.setHeader("Access-Control-Allow-Origin", "*");
  }
  if (path.startsWith("/interaction/")) {
    return void interaction(req, res).catch((err) => sendJson(res, 500, { error: String(err) }));
  }
  if (path === "/test/revoke" && req.method === "POST") {
    for (const key of [...records.keys()]) {
      if (/^(Grant|AccessToken|RefreshToken|Session|AuthorizationCode):/.test(key)) records.delete(key);
    }
    log.push({ event: "revoked-all" });
    return void sendJson(res, 200, { revoked: true });
  }
  if (path === "/test/revoke-access" && req.method === "POST") {
    for (const key of [...records.keys()]) if (key.startsWith("AccessToken:")) records.delete(key);
    log.push({ event: "revoked-access" });
    return void sendJson(res, 200, { revoked: true });
  }
  if (path === "/test/log") return void sendJson(res, 200, log);
  if (path === "/test/tokens") {
    const live = [...records.keys()].filter((k) => /^(AccessToken|RefreshToken):/.test(k));
    return void sendJson(
      res,
      200,
      live.map((k) => k.slice(k.indexOf(":") + 1)),
    );
  }
  return void callback(req, res);
});

/** Ask the authorization server whether a bearer token is live and meant for this server. */
async function tokenIsValid(header) {
  const token = /^Bearer (.+)$/.exec(header ?? "")?.[1];
  if (!token) return false;
  const basic = Buffer.from(`${RS_CLIENT.client_id}:${RS_CLIENT.client_secret}`).toString("base64");
  const answer = await fetch(`${issuer}/token/introspection`, {
    method: "POST",
    headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }),
  });
  const body = await answer.json();
  const audience = [body.aud].flat();
  return (
    body.active === true &&
    audience.includes(resource) &&
    String(body.scope ?? "")
      .split(" ")
      .includes(SCOPE)
  );
}

const MCP_CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  "Access-Control-Allow-Headers":
    "Authorization, Content-Type, Accept, mcp-protocol-version, mcp-session-id, last-event-id",
  "Access-Control-Expose-Headers": "Mcp-Session-Id, WWW-Authenticate",
};

function toolServer() {
  const server = new McpServer({ name: "protected", version: "1.0.0" });
  server.registerTool("whoami", { description: "Who the token was issued to" }, async () => ({
    content: [{ type: "text", text: ACCOUNT }],
  }));
  server.registerTool("motto", { description: "The server's motto" }, async () => ({
    content: [{ type: "text", text: "tokens stay in the worker" }],
  }));
  return server;
}

async function mcp(req, res) {
  if (!(await tokenIsValid(req.headers.authorization))) {
    log.push({ event: "mcp-401", had_token: Boolean(req.headers.authorization) });
    const challenge = `Bearer error="invalid_token", resource_metadata="${resourceMetadataUrl}", scope="${SCOPE}"`;
    return void sendJson(res, 401, { error: "invalid_token" }, { "WWW-Authenticate": challenge });
  }
  const body = req.method === "POST" ? JSON.parse((await readBody(req)) || "null") : undefined;
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = toolServer();
  res.on("close", () => void transport.close().then(() => server.close()));
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

mcpServer.on("request", (req, res) => {
  for (const [name, value] of Object.entries(MCP_CORS)) res.setHeader(name, value);
  const path = new URL(req.url, mcpOrigin).pathname;
  if (req.method === "OPTIONS") return void res.writeHead(204).end();
  if (path === "/.well-known/oauth-protected-resource/mcp" || path === "/.well-known/oauth-protected-resource") {
    return void sendJson(res, 200, {
      resource,
      authorization_servers: [issuer],
      scopes_supported: [SCOPE],
      bearer_methods_supported: ["header"],
    });
  }
  if (path === "/mcp") return void mcp(req, res).catch((err) => sendJson(res, 500, { error: String(err) }));
  return void sendJson(res, 404, { error: "not found" });
});

process.stdout.write(`${JSON.stringify({ as: issuer, mcp: resource })}\n`);
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    asServer.close();
    mcpServer.close();
    process.exit(0);
  });
}
