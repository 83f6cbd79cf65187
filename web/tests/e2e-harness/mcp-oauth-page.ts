// The e2e harness's page for MCP sign-in (tests/e2e/test_mcp_oauth.py): the sign-in seam of
// web/src/mcp/ driven through the Tool servers test ids, with the MCP client in a worker as in the app.
import { callbackUrl } from "../../src/settings/oauth";
import { handleSignInReturn } from "../../src/mcp/oauth-return";
import { forgetSignIn, signIn } from "../../src/mcp/oauth-signin";
import type { ToWorker, FromWorker } from "./mcp-oauth-worker";

function button(testid: string, label: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.dataset.testid = testid;
  b.textContent = label;
  return b;
}

function boot(): void {
  const worker = new Worker("./mcp-oauth-worker.js", { type: "module" });
  const send = (message: ToWorker): void => worker.postMessage(message);
  const entry = document.createElement("li");
  entry.dataset.testid = "tool-server-entry";
  const text = document.createElement("span");
  const signin = button("tool-server-signin", "Sign in");
  const refresh = button("harness-list-tools", "List tools");
  const remove = button("tool-server-remove", "Remove");
  entry.append(text, signin, refresh, remove);
  let url = "";
  const name = document.querySelector<HTMLInputElement>('[data-testid="tool-server-name"]')!;
  const address = document.querySelector<HTMLInputElement>('[data-testid="tool-server-url"]')!;
  document.querySelector('[data-testid="tool-server-add"]')!.addEventListener("click", () => {
    url = address.value.trim();
    entry.dataset.name = name.value.trim();
    entry.dataset.state = "connecting";
    document.getElementById("servers")!.append(entry);
    send({ type: "connect", url, callback: callbackUrl() });
  });
  signin.addEventListener("click", () => {
    void signIn(url).then((outcome) => {
      if (outcome.kind === "signed-in") send({ type: "connect", url, callback: callbackUrl() });
      else if (outcome.kind === "error") text.textContent = outcome.message;
    });
  });
  refresh.addEventListener("click", () => send({ type: "list" }));
  remove.addEventListener("click", () => void forgetSignIn(url).then(() => entry.remove()));
  worker.onmessage = (event: MessageEvent<FromWorker>) => {
    entry.dataset.answers = String(Number(entry.dataset.answers ?? "0") + 1); // one per worker answer
    entry.dataset.state = event.data.state;
    entry.dataset.tools = String(event.data.tools);
    text.textContent = event.data.message;
    signin.hidden = event.data.state !== "auth-required";
  };
}

void handleSignInReturn().then((ret) => {
  if (ret.kind !== "popup") boot();
  document.body.dataset.signinReturn = ret.kind; // after a redirect: how the sign-in this tab started ended
  if (ret.kind === "error") document.body.dataset.signinError = ret.message;
});
