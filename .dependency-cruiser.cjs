/**
 * The import rule of web/src (`npm run deps`, a layer of scripts/test.sh). The page starts its workers by
 * URL (`new Worker(new URL(...))`) and talks to them only through the messages in `protocol/`; it never
 * imports the worker's code. `protocol/` is the leaf every side shares, so it imports nothing outside
 * itself. And no module may import itself through others (type-only imports count: a circle of types
 * is a contract living on both sides).
 */

const PAGE = "^web/src/(ui|settings)/|^web/src/(main|runtime-client|snapshot-scheduler)[.]ts$";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "page-imports-worker",
      severity: "error",
      comment:
        "The page (ui/, settings/, main.ts, runtime-client.ts, snapshot-scheduler.ts) may not import web/src/worker/: " +
        "what both sides need is a message or a value in web/src/protocol/.",
      from: { path: PAGE },
      to: { path: "^web/src/worker/" },
    },
    {
      name: "protocol-imports-outside",
      severity: "error",
      comment: "web/src/protocol/ is what every thread shares: it may import only itself (and npm packages).",
      from: { path: "^web/src/protocol/" },
      to: { path: "^web/src/", pathNot: "^web/src/protocol/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle: move what both modules need into a third one (or into web/src/protocol/).",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that resolves to no file (a moved or misspelled module).",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports are dependencies too: they are where a contract lives.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js", ".json"],
      // packages that say what they export (package.json "exports"), as the bundler resolves them
      exportsFields: ["exports"],
      conditionNames: ["import", "types", "default"],
    },
  },
};
