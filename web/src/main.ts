/** Wires the page: the agent worker, the settings (settings/controller.ts) and the views. */

import "./styles.css";
import "./ui/chat/chat.css"; // then the parts in the order styles.css had them
import "./ui/settings/settings.css";
import type { WorkerToMain } from "./protocol/main-worker-messages";
import { RuntimeClient } from "./runtime-client";
import { checkAnswer, type RequestAnswer } from "./protocol/requests";
import { SnapshotScheduler } from "./snapshot-scheduler";
import { streamProbe, type StreamProbe } from "./ui/chat/stream-probe";
import { SettingsController } from "./settings/controller";
import { carriesSignInAnswer, handleSignInReturn } from "./mcp/oauth-return";
import { callbackUrl } from "./settings/oauth";
import { readTestConfig } from "./settings/test-config";
import { ChatView } from "./ui/chat/chat";
import { sessionReads } from "./ui/chat/session-reads";
import { mountChatMedia } from "./ui/images/chat-media";
import { ContextGauge } from "./ui/topbar/context-gauge";
import { withholdContinue } from "./ui/chat/endings";
import { byTestId } from "./ui/common/dom";
import { installKeyboard } from "./ui/page/keyboard";
import { mountSidebarDrawer } from "./ui/page/sidebar-drawer";
import { mountRecordingControls } from "./ui/settings/recording-controls";
import { StatusView } from "./ui/topbar/status";
import { UsageView } from "./ui/topbar/usage";
import { fillSettingsOptions } from "./settings/options";
import { FilesPanel } from "./ui/panels/files";
import { mountConversationPanels } from "./ui/panels/conversation-panels";
import { mountToolServersPanel } from "./ui/panels/tool-servers";
import { loadServerSkill } from "./ui/panels/tool-server-skills";
import { closeOpenPanel } from "./ui/panels/registry";
import { mountSkillsPanel } from "./ui/panels/skills";
import { mountAgentsPanel } from "./ui/panels/agents";
import { mountAgentSelect } from "./ui/chat/agent-select";
import { CheckpointButtons } from "./ui/chat/checkpoints";
import { ChatImport } from "./ui/panels/chat-import";
import { BackupReminder } from "./profile/backup-reminder";
import { ProfilePanel } from "./ui/panels/profile";
import { askAtFirstGesture } from "./profile/storage-status";
import { BackupSection } from "./ui/panels/profile-backup";
import { backupSources, restoreDeps, type Requester } from "./profile/backup-deps";
import { applyStaged } from "./profile/backup-restore";
import { startOffline } from "./offline/page";

// Python loads for seconds: the worker starts before the page builds its views (what it says meanwhile
// waits for init), unless this page is a sign-in's answer, which may be a popup that must not boot (init).
const client = new RuntimeClient(onWorker);
const startedEarly = !carriesSignInAnswer();
if (startedEarly) client.start();
fillSettingsOptions(); // before anything reads or sets the settings selects
let ready = false;
const readyWaiters: (() => void)[] = [];
let holdsWorkspace = false;
/** Benchmarks only (a test server's `streamProbe`): reply text is counted, not rendered. */
let probe: StreamProbe | null = null;

const status = new StatusView(() => restart(false));
const drawer = mountSidebarDrawer();
installKeyboard({
  // before the chat's listeners: a key handled here is not also handled there
  closePanel: () => (settings.panel.isOpen() ? (settings.panel.close(), true) : closeOpenPanel() || drawer.close()),
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
const settings = new SettingsController({
  client,
  whenReady,
  showError: (text) => chat.showError(text),
  modelChanged: () => gauge.refresh(),
});
const gauge = new ContextGauge((method, params) => client.request(method, params));
gauge.onMeasure = (used, limit) => withholdContinue(document, used, limit);
const media = mountChatMedia({
  request: (method, params) => client.request(method, params),
  workspace: (request) => client.workspace(request),
  readResource: (server, uri) => client.readResource(server, uri),
  vision: () => settings.vision(),
  model: () => settings.current.model,
});
const requester: Requester = (method, params, timeoutMs, file) => client.request(method, params, timeoutMs, file);
const chat = new ChatView(
  {
    send: (text, turnId, replacesTurn, images, extras) =>
      settings.order.afterChanges(() =>
        client.post({ type: "user_message", text, turnId, replacesTurn, images, ...extras }),
      ),
    prompt: (server, name, args) => client.mcpPrompt(server, name, args),
    stop: () => client.post({ type: "abort_turn" }),
    decide: (callId, decision) => client.post({ type: "approval", callId, decision }),
    turnChanged: (running, waiting) => {
      if (status.state !== "ready" && status.state !== "busy") return;
      // a turn resumed at its approval after a reload waits for the person: "ready" whether it was
      // reopened before or after the runtime said ready (the order of the two is not fixed)
      if (running && !waiting) status.busy();
      else status.ready();
    },
    ...sessionReads(requester, (text) => chat.showError(text), switchingChats),
  },
  media,
);
const checkpoints = new CheckpointButtons(
  (method, params) => client.request(method, params),
  () => document.querySelector<HTMLElement>(".messages"),
  () => chat.isRunning,
  (text) => chat.showError(text),
);
const recording = mountRecordingControls({
  exportRecording: () => client.exportRecording(),
  loadReplay: (text) => client.loadReplay(text),
  loaded: (ok, text) => {
    settings.panel.setConnection(ok ? "ok" : "error", text);
    if (ok) void settings.checkConnection();
  },
  error: (text) => chat.showError(text),
});
byTestId<HTMLSelectElement>("provider-select").addEventListener("change", (event) =>
  recording.showReplayInput((event.target as HTMLSelectElement).value === "replay"),
);
const lockBanner = byTestId("workspace-lock");
const lockText = lockBanner.querySelector<HTMLElement>(".lock-text") as HTMLElement;
byTestId("workspace-take-over").addEventListener("click", () => restart(true));
const filesPanel = new FilesPanel((request) => client.workspace(request), {
  keep: async (paths) => {
    const kept = ready ? await client.request("checkpoint_keep", { paths }) : null;
    return kept?.ok ? kept.value.turn_id : null;
  },
  restore: async (id) => {
    const done = await client.request("checkpoint_restore", { turn_id: id });
    return done.ok ? null : done.message;
  },
});
// Sessions sidebar and memory panel (they follow the worker's messages).
const followPanels = mountConversationPanels(
  (method, params) => switchingChats(method, client.request(method, params)),
  (text) => chat.showError(text),
  (sessionId, seq) => void chat.found.show(sessionId, seq),
);
const skillsPanel = mountSkillsPanel({
  request: (method, params, timeoutMs, file) => client.request(method, params, timeoutMs, file),
  whenReady,
});
const agentSelect = mountAgentSelect(requester, (text) => chat.showError(text));
mountAgentsPanel({ request: requester, whenReady, changed: (list) => agentSelect.setAgents(list) });
const restoring = restoreDeps(requester);
const reminder = new BackupReminder(localStorage, () => profile.panel.open());
const profile = new ProfilePanel(
  [
    new BackupSection({
      ...restoring,
      sources: backupSources(requester),
      holds: () => holdsWorkspace,
      restored: () => setTimeout(() => location.reload(), 300),
      backedUp: () => reminder.backedUp(),
    }),
    new ChatImport({
      request: requester,
      whenReady,
      sessionsChanged: () => {
        followPanels.sessionsChanged();
        reminder.changed();
      },
    }),
  ],
  async () => {
    await whenReady();
    for (let tries = 0; tries < 20; tries++) {
      // just after a reload the runtime may not answer yet: ask again for a few seconds
      const listed = await requester("checkpoints_list", {});
      if (listed.ok) return { total: listed.value.total_bytes, limit: listed.value.limit_bytes };
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return null;
  },
  async (bytes) => {
    await whenReady();
    const set = await requester("checkpoints_limit", { limit_bytes: bytes });
    return set.ok ? null : set.message;
  },
);
if (BackupSection.pendingReport()) profile.panel.open();
askAtFirstGesture(document); // the one place the app asks the browser to keep its data (profile/storage-status.ts)
const toolServers = mountToolServersPanel(
  (servers) => client.post({ type: "mcp_servers", servers, callbackUrl: callbackUrl() }),
  (server, resource) => void media.resources?.attach(server, resource),
  (server, skill) =>
    void skillsPanel.importFromServer(`${skill.name} from the tool server ${server}`, () =>
      loadServerSkill(client.fetchServerSkill(server, skill.uri)),
    ),
);

/** The worker starts before the settings are read (boot); what it says meanwhile waits for them. */
let heldForInit: WorkerToMain[] | null = [];

function onWorker(message: WorkerToMain): void {
  if (heldForInit) {
    heldForInit.push(message);
    return;
  }
  followPanels(message);
  toolServers.follow(message);
  gauge.follow(message);
  switch (message.type) {
    case "boot_progress":
      return status.booting(message.label, message.index, message.total);
    case "boot_failed":
      ready = false;
      chat.setAvailable(false);
      chat.reset();
      console.error(`[boot] ${message.step}: ${message.message}`);
      return status.error(`Could not start (${message.step}): ${message.message}`);
    case "python_boot":
      return snapshot.onBoot(message.fromSnapshot, message.snapshotWanted);
    case "event":
      if (message.event.kind === "ready") {
        onReady();
        snapshot.onReady();
      }
      if (message.event.kind === "usage") usage.add(message.event);
      if (message.event.kind === "session_opened") {
        usage.reset(); // usage is per session
        showView(checkAnswer("session_current", { ok: true, value: message.event.view })); // what session_current would answer
      }
      if (probe?.(message.event)) return;
      chat.onEvent(message.event);
      if (message.event.kind === "turn_finished") {
        checkpoints.refresh();
        reminder.changed();
      }
      return;
    case "http_failure":
      return settings.httpFailure(message);
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
    case "mcp_status":
      return; // the tool servers panel follows it (toolServers.follow)
  }
}

function onReady(): void {
  ready = true;
  filesPanel.setAvailable(true);
  status.ready();
  chat.setAvailable(true);
  for (const resolve of readyWaiters.splice(0)) resolve();
  settings.onReady();
  reminder.check();
  void agentSelect.refresh();
  if (!resumedRestore && holdsWorkspace) {
    resumedRestore = true; // a restore cut off after its commit point is completed now (profile/backup-restore.ts)
    void applyStaged(restoring).then(
      (done) => {
        if (!done) return;
        BackupSection.keepReport("completed at the reload", done); // the reload shows it in the profile panel
        location.reload();
      },
      (err: unknown) => chat.showError(err instanceof Error ? err.message : String(err)),
    );
  }
}
let resumedRestore = false;

/** Show a session view (the one a `session_opened` carries, or more of its messages); false when there is none. */
function showView(answer: RequestAnswer<"session_current">): boolean {
  if (!answer.ok) console.warn(`[ui] could not load the session: ${answer.message}`);
  else {
    chat.showHistory(answer.value);
    agentSelect.showSession(answer.value.agent);
    checkpoints.refresh();
  }
  return answer.ok;
}

/** A request that may open another chat holds the composer until it is answered (after its `session_opened`). */
function switchingChats<T>(method: string, answer: Promise<T>): Promise<T> {
  if (method === "session_new" || method === "session_open" || method === "session_delete" || method === "session_fork")
    chat.switchHold.hold(answer);
  return answer;
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

function restart(takeOver = false): void {
  ready = false;
  filesPanel.setAvailable(false);
  chat.reset();
  chat.setAvailable(false);
  usage.reset();
  lockBanner.hidden = true;
  status.booting("Restarting", 0, 1);
  // A tab that held the workspace takes it back at once (its old worker's lock may not be released yet).
  client.start(takeOver || holdsWorkspace);
  void settings.pushConfig();
}

async function init(): Promise<void> {
  // An MCP sign-in's answer lands here too: a popup hands it to the tab that opened it and closes, unbooted.
  const signInReturn = await handleSignInReturn();
  if (signInReturn.kind === "popup") return;
  toolServers.signInReturned(signInReturn); // a redirect sign-in: its entry says how it ended
  if (!startedEarly) client.start(); // before anything else is awaited
  const testConfig = readTestConfig(); // the page's URL configures nothing
  if (testConfig.streamProbe) {
    probe = streamProbe();
    document.documentElement.dataset.streamProbe = "on"; // the benchmark checks the hook is there
  }
  const oauth = await settings.load(testConfig);
  recording.showReplayInput(settings.current.provider === "replay");
  const has = await settings.fill();
  const held = heldForInit ?? [];
  heldForInit = null;
  for (const message of held) onWorker(message);
  await settings.pushConfig();
  settings.openIfNeeded(oauth, has);
}

void init();
startOffline(whenReady);
