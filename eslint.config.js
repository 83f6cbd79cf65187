// ESLint over the TypeScript of web/ (`npm run lint`, a layer of scripts/test.sh), with type information
// (typescript-eslint's type-checked rules): the rules that catch bugs the compiler lets through, such as a
// promise nobody awaits or catches, an `any` that switches checking off, a value of the wrong type in a
// template string, a method passed on without its `this`. Formatting is Prettier's (`npm run format:check`).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "build/", "node_modules/", "web/public/", ".venv/", "**/*.gen.ts"] },
  {
    files: ["web/**/*.ts", "vite.config.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      eqeqeq: ["error", "always"],
      "no-console": "off",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": [
        "error",
        { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
      ],
    },
  },
  {
    // vitest's asymmetric matchers (`expect.stringMatching(...)`) are typed `any`, and the fakes of async
    // interfaces answer at once.
    files: ["web/tests/**/*.ts"],
    rules: { "@typescript-eslint/no-unsafe-assignment": "off", "@typescript-eslint/require-await": "off" },
  },
);
