/**
 * Where each part of a backup comes from and goes back to: the runtime's store (requests
 * `backup_state` / `backup_restore`), the settings and tool-server definitions in IndexedDB (never a
 * key or token: those are sealed under other names and never read here), the OPFS workspace.
 */

import type { UploadRequester } from "../protocol/requests";
import { restoreServers, serverDefinitions } from "../mcp/servers-store";
import { loadSettings, saveSettings } from "../settings/store";
import { sanitizeSettings } from "../settings/model";
import type { ExportSources } from "./backup-export";
import type { RestoreDeps, RestoreMode } from "./backup-restore";
import { recordingsDir, workspaceFilesDir } from "./opfs";

export type Requester = UploadRequester;

const LONG_MS = 600_000;

export function backupSources(request: Requester): ExportSources {
  return {
    state: async () => {
      const answer = await request("backup_state", {}, LONG_MS);
      if (!answer.ok) throw new Error(`the runtime could not dump its state: ${answer.message}`);
      return answer.value;
    },
    settings: async () => ({ settings: await loadSettings(), tool_servers: await serverDefinitions() }),
    workspace: () => workspaceFilesDir().catch(() => null),
    recordings: () => recordingsDir().catch(() => null),
  };
}

export function restoreDeps(request: Requester): RestoreDeps {
  return {
    restoreState: async (dump: Uint8Array, mode: RestoreMode, dryRun: boolean) => {
      const answer = await request("backup_restore", { mode, dry_run: dryRun }, LONG_MS, {
        name: "state.json",
        data: dump,
      });
      if (!answer.ok) return { ok: false, message: answer.message };
      return { ok: true, sessions: answer.value.sessions, memories: answer.value.memories };
    },
    restoreSettings: async (value: unknown, mode: RestoreMode) => {
      const parts = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
      if (mode === "replace" && parts.settings) await saveSettings(sanitizeSettings(parts.settings));
      await restoreServers(parts.tool_servers, mode);
    },
  };
}
