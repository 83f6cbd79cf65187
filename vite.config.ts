import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";

const root = fileURLToPath(new URL("./web", import.meta.url));

const python = existsSync(".venv/bin/python") ? ".venv/bin/python" : "python3";

/** After the build is written: stamp it with its build id for the service worker (scripts/offline_stamp.py). */
function offlineStamp(): Plugin {
  let outDir = "";
  return {
    name: "tidepool-offline-stamp",
    apply: "build",
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      execFileSync(python, ["scripts/offline_stamp.py", outDir], { stdio: "inherit" });
    },
  };
}

export default defineConfig({
  root,
  publicDir: "public",
  build: {
    outDir: fileURLToPath(new URL("./dist", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
    rollupOptions: {
      // The service worker is an entry of its own, at /sw.js (its scope is the whole app).
      input: { index: `${root}/index.html`, sw: `${root}/src/offline/sw.ts` },
      output: { entryFileNames: (chunk) => (chunk.name === "sw" ? "sw.js" : "assets/[name]-[hash].js") },
    },
  },
  plugins: [offlineStamp()],
  worker: { format: "es" },
  server: {
    // `vite` in development: the API (fetch proxy) and the sandbox's bootstrap (its own CSP) come from
    // scripts/serve.py.
    proxy: { "/api": "http://127.0.0.1:8000", "/sandbox/bootstrap.js": "http://127.0.0.1:8000" },
  },
  test: {
    root,
    include: ["tests/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
  },
});
