/** Wires the page: settings and keys, the agent worker, and the views. */

import "./styles.css";
import { normalizeBaseUrl } from "./worker/egress";
import type { WorkerToMain } from "./worker/main-worker-messages";
import { RuntimeClient } from "./runtime-client";
import { SnapshotScheduler } from "./snapshot-scheduler";
import { streamProbe, type StreamProbe } from "./ui/stream-probe";
import { wireAdvanced } from "./settings/advanced";
import { agentSettings, isPermissionMode, providerInfo, providerName, type AppSettings } from "./settings/model";
import { finishOAuth, startOAuth, trimBase } from "./settings/oauth";
import { handleSignInReturn } from "./mcp/oauth-return";
import { SettingsOrder } from "./settings/ordering";
import { KeyRing, loadSettings, saveSettings } from "./settings/store";
import { readTestConfig } from "./settings/test-config";
import { ChatView } from "./ui/chat";
import { mountChatMedia } from "./ui/chat-media";
import type { ModelInfo } from "./protocol/messages";
import { ContextGauge } from "./ui/context-gauge";
import { withholdContinue } from "./ui/endings";
import { explainFailure, type HttpFailureInfo } from "./ui/connection";
import { byTestId } from "./ui/dom";
import { installKeyboard } from "./ui/keyboard";
import { mountSidebarDrawer } from "./ui/sidebar-drawer";
import { runChecks } from "./settings/doctor";
import { DoctorView } from "./ui/doctor-view";
import { mountRecordingControls } from "./ui/recording-controls";
import { defaultModel } from "./ui/model-picker";
import { parseSessionView } from "./ui/session-view";
import { SettingsPanel, type SettingsForm } from "./ui/settings-panel";
import { StatusView } from "./ui/status";
import { UsageView } from "./ui/usage";
import { FilesPanel } from "./ui/panels/files";
import { mountConversationPanels } from "./ui/panels/conversation-panels";
import { closeOpenPanel } from "./ui/panels/registry";
import { mountSkillsPanel } from "./ui/panels/skills";

const keys = new KeyRing();
const order = new SettingsOrder(); // messages go after the settings changes made before them
let settings: AppSettings;
let lastFailure: HttpFailureInfo | null = null;
let ready = false;
let readyWaiters: (() => void)[] = [];
let holdsWorkspace = false;
let models: ModelInfo[] = []; // the provider's list, as last checked (what each model can do)
/** Package indexes for run_python's micropip from a test server's config (never the URL); empty: PyPI. */
let packageIndexUrls: string[] = [];
/** Benchmarks only (a test server's `streamProbe`): reply text is counted, not rendered. */
let probe: StreamProbe | null = null;

const status = new StatusView(() => restart(false));
const drawer = mountSidebarDrawer();
installKeyboard({ // before the chat's listeners: a key handled here is not also handled there
  closePanel: () => (panel.isOpen() ? (panel.close(), true) : closeOpenPanel() || drawer.close()),
  newChat: () => byTestId<HTMLButtonElement>("session-new").click(),
  focusInput: () => chat.focusInput(),
  editLast: () => chat.editLast(),
  input: byTestId<HTMLTextAreaElement>("chat-input"),
  running: () => chat.isRunning,
});
const usage = new UsageView();
const snapshot = new SnapshotScheduler({
  mark: (state) => (byTestId("runtime-status").dataset.snapshot = state),
  busy: () => chat.isRunning,
  log: (text) => console.info(`[snapshot] ${text}`),
});
const client = new RuntimeClient(onWorker);
const gauge = new ContextGauge((method, params) => client.request(method, params));
gauge.onMeasure = (used, limit) => withholdContinue(document, used, limit);
const media = mountChatMedia({
  request: (method, params) => client.request(method, params),
  workspace: (request) => client.workspace(request),
  vision: () => models.find((m) => m.id === settings.model)?.vision ?? null,
  model: () => settings.model,
});
const chat = new ChatView({
  send: (text, turnId, replacesTurn, images) => order.afterChanges(() => client.post({ type: "user_message", text, turnId, replacesTurn, images })),
  stop: () => client.post({ type: "abort_turn" }),
  decide: (callId, decision) => client.post({ type: "approval", callId, decision }),
  turnChanged: (running) => {
    if (status.state === "ready" || status.state === "busy") running ? status.busy() : status.ready();
  },
  showEarlier: (count) => void showSession(count),
}, media);
const panel = new SettingsPanel({
  save: (form) => void order.change(() => save(form)),
  connectOpenRouter: (authBase) => void startOAuth(authBase || settings.authBase),
  forgetKey: (provider) => void order.change(() => forgetKey(provider)),
  chooseModel: (model) => void order.change(() => chooseModel(model)),
});
new DoctorView(
  async () => {
    await whenReady();
    const listed = await client.listModels();
    return runChecks({
      provider: settings.provider,
      baseUrl: settings.baseUrl,
      pageOrigin: location.origin,
      key: await keys.get(settings.provider, settings.keyStorage),
      model: settings.model,
      models: listed.ok ? listed.models : null,
      fetch: (url, init) => fetch(url, init),
    });
  },
  (state, text) => panel.setConnection(state, text),
);
const recording = mountRecordingControls({
  exportRecording: () => client.exportRecording(),
  loadReplay: (text) => client.loadReplay(text),
  loaded: (ok, text) => {
    panel.setConnection(ok ? "ok" : "error", text);
    if (ok) void checkConnection();
  },
  error: (text) => chat.showError(text),
});
byTestId<HTMLSelectElement>("provider-select").addEventListener("change", (event) =>
  recording.showReplayInput((event.target as HTMLSelectElement).value === "replay"),
);
const permission = byTestId<HTMLSelectElement>("permission-mode");
const lockBanner = byTestId("workspace-lock");
const lockText = lockBanner.querySelector<HTMLElement>(".lock-text") as HTMLElement;
byTestId("workspace-take-over").addEventListener("click", () => restart(true));
const filesPanel = new FilesPanel((request) => client.workspace(request));
// Sessions sidebar and memory panel (they follow the worker's messages).
const followPanels = mountConversationPanels((method, params) => client.request(method, params), (text) => chat.showError(text));
mountSkillsPanel({ request: (method, params, timeoutMs, file) => client.request(method, params, timeoutMs, file), whenReady });

/** The worker starts before the settings are read (boot); what it says meanwhile waits for them. */
let heldForInit: WorkerToMain[] | null = [];

function onWorker(message: WorkerToMain): void {
  if (heldForInit) {
    heldForInit.push(message);
    return;
  }
  followPanels(message);
  gauge.follow(message);
  switch (message.type) {
    case "boot_progress":
      return status.booting(message.label, message.index, message.total, message.fraction);
    case "boot_failed":
      ready = false;
      chat.setAvailable(false);
      chat.reset();
      console.error(`[boot] ${message.step}: ${message.message}`);
      return status.error(`Could not start (${message.step}): ${message.message}`);
    case "ready":
      onReady();
      return snapshot.onReady();
    case "python_boot":
      return snapshot.onBoot(message.fromSnapshot, message.snapshotWanted);
    case "event":
      if (message.event.kind === "usage") usage.add(message.event);
      if (message.event.kind === "session_opened") {
        usage.reset(); // usage is per session
        void showSession();
      }
      if (probe?.(message.event)) return;
      return chat.onEvent(message.event);
    case "http_failure":
      lastFailure = message;
      return;
    case "runtime_error":
      if (message.fatal) {
        ready = false;
        chat.setAvailable(false);
        status.error(`Runtime error: ${message.message}`);
      } else {
        chat.showError(message.message);
        if (message.code === "message_too_large") chat.reset(); // it never reached the runtime: no turn runs
      }
      return;
    case "log":
      return logToConsole(message.source, message.level, message.message);
    case "workspace_lock":
      holdsWorkspace = message.state === "held";
      lockBanner.hidden = message.state === "held";
      lockText.textContent =
        message.state === "lost"
          ? "This workspace was opened in another tab. This tab no longer saves anything."
          : "This workspace is open in another tab. This tab does not save anything.";
      return;
    case "workspace_changed":
      return filesPanel.onWorkspaceChanged(message.paths);
    case "reply":
      return; // routed by RuntimeClient
  }
}

function onReady(): void {
  ready = true;
  filesPanel.setAvailable(true);
  status.ready();
  chat.setAvailable(true);
  for (const resolve of readyWaiters.splice(0)) resolve();
  void hasKey().then((has) => {
    if (has || !providerInfo(settings.provider).keyRequired) void order.change(async () => void (await checkConnection()));
  });
}

/** The runtime opened a session (at boot or after a reload): show what it already holds (its last `shown` messages). */
async function showSession(shown?: number): Promise<void> {
  const reply = await client.request("session_current", shown === undefined ? {} : { shown });
  if (!reply.ok) {
    console.warn(`[ui] could not load the session: ${reply.message}`);
    return;
  }
  const view = parseSessionView(reply.value);
  if (!view) return;
  chat.showHistory(view);
  if (shown !== undefined) document.querySelector(".scroller")?.scrollTo({ top: 0 }); // where the earlier ones are
}

function whenReady(): Promise<void> {
  return ready ? Promise.resolve() : new Promise((resolve) => readyWaiters.push(resolve));
}

function logToConsole(source: string, level: string, text: string): void {
  const line = `[${source}] ${text}`;
  if (level === "error" || level === "critical") console.error(line);
  else if (level === "warning") console.warn(line);
  else if (level === "debug") console.debug(line);
  else console.info(line);
}

async function hasKey(): Promise<boolean> {
  return (await keys.get(settings.provider, settings.keyStorage)) !== null;
}

async function pushConfig(): Promise<void> {
  const key = await keys.get(settings.provider, settings.keyStorage);
  client.post({ type: "configure", settings: agentSettings(settings, packageIndexUrls), key });
}

async function persist(): Promise<void> {
  try {
    await saveSettings(settings);
  } catch (err) {
    chat.showError(`Settings could not be saved in this browser: ${String(err)}`);
  }
}

let checkGeneration = 0;

/** Ask for the model list; true when the provider answered (a model is then chosen). */
async function checkConnection(): Promise<boolean> {
  const generation = ++checkGeneration;
  panel.setConnection("checking", "Checking the connection…");
  await whenReady();
  lastFailure = null;
  const result = await client.listModels();
  if (generation !== checkGeneration) return false; // a newer check (after another save) is under way
  if (!result.ok) {
    panel.setConnection("error", explainFailure(settings.provider, settings.baseUrl, location.origin, lastFailure, result.message));
    return false;
  }
  models = result.models;
  if (models.length > 0 && !models.some((m) => m.id === settings.model)) {
    settings.model = defaultModel(models);
    await persist();
    await pushConfig();
  }
  panel.setModels(models, settings.model);
  const name = providerName(settings.provider, settings.baseUrl);
  panel.setConnection("ok", `Connected to ${name}: ${models.length} model${models.length === 1 ? "" : "s"} available`);
  gauge.refresh(); // the model (and its context window) may have changed
  return true;
}

async function save(form: SettingsForm): Promise<void> {
  const baseUrl = form.provider === "replay" ? "" : normalizeBaseUrl(form.baseUrl);
  if (baseUrl === null) {
    panel.setConnection("error", "The base URL must be an http:// or https:// URL without a query");
    return;
  }
  const previous = settings;
  const changed = form.provider !== previous.provider || baseUrl !== previous.baseUrl || form.newKey !== "";
  settings = {
    ...settings,
    provider: form.provider,
    baseUrl,
    keyStorage: form.keyStorage,
    authBase: trimBase(form.authBase) || settings.authBase,
    model: form.provider === previous.provider ? settings.model : null,
  };
  try {
    if (form.newKey) await keys.set(form.provider, form.keyStorage, form.newKey);
    else await keys.move(form.provider, previous.keyStorage, form.keyStorage);
  } catch (err) {
    panel.setConnection("error", `The key could not be stored: ${String(err)}`);
    return;
  }
  await persist();
  panel.fill(settings, await hasKey());
  await pushConfig();
  // A new connection that works: back to the chat (the model can still be changed in Settings).
  if ((await checkConnection()) && changed) panel.close();
}

async function chooseModel(model: string): Promise<void> {
  settings.model = model;
  await persist();
  await pushConfig();
  gauge.refresh();
}

async function forgetKey(provider: AppSettings["provider"]): Promise<void> {
  await keys.forget(provider);
  if (provider === settings.provider) {
    panel.showKeyState(false);
    await pushConfig();
  }
}

function restart(takeOver = false): void {
  ready = false;
  filesPanel.setAvailable(false);
  chat.reset();
  chat.setAvailable(false);
  usage.reset();
  lockBanner.hidden = true;
  status.booting("Restarting", 0, 1, 0);
  // A tab that held the workspace takes it back at once (its old worker's lock may not be released yet).
  client.start(takeOver || holdsWorkspace);
  void pushConfig();
}

async function init(): Promise<void> {
  // An MCP sign-in's answer lands here too: a popup hands it to the tab that opened it and closes, unbooted.
  if ((await handleSignInReturn()).kind === "popup") return;
  client.start(); // Python loads for seconds: start it before anything else is awaited
  settings = await loadSettings();
  const testConfig = readTestConfig(); // the page's URL configures nothing
  packageIndexUrls = testConfig.packageIndexUrls ?? [];
  if (testConfig.streamProbe) {
    probe = streamProbe();
    document.documentElement.dataset.streamProbe = "on"; // the benchmark checks the hook is there
  }
  if (testConfig.authBase) settings.authBase = trimBase(testConfig.authBase);
  const oauth = await finishOAuth(settings.authBase);
  if (oauth.kind === "key") {
    if (settings.provider !== "openrouter") {
      settings.provider = "openrouter";
      settings.baseUrl = providerInfo("openrouter").defaultBaseUrl;
      settings.model = null;
    }
    await keys.set("openrouter", settings.keyStorage, oauth.key);
  }
  await persist();
  permission.value = settings.permissionMode;
  permission.addEventListener("change", () => {
    if (!isPermissionMode(permission.value)) return;
    const mode = permission.value;
    void order.change(async () => {
      settings.permissionMode = mode;
      await persist();
      await pushConfig();
    });
  });
  wireAdvanced(() => settings, { changed: () => persist().then(pushConfig), windowChanged: checkConnection });
  recording.showReplayInput(settings.provider === "replay");
  const has = await hasKey();
  panel.fill(settings, has);
  const held = heldForInit ?? [];
  heldForInit = null;
  for (const message of held) onWorker(message);
  await pushConfig();
  void navigator.storage?.persist?.().catch(() => false);
  if (oauth.kind === "error") {
    panel.open();
    panel.setConnection("error", oauth.message);
  } else if (oauth.kind === "key") {
    panel.open();
  } else if (!has && providerInfo(settings.provider).keyRequired) {
    panel.open();
  }
}

void init();
