import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("./web", import.meta.url));

export default defineConfig({
  root,
  publicDir: "public",
  build: {
    outDir: fileURLToPath(new URL("./dist", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
  },
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
