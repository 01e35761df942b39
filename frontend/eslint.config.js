import { readdirSync } from "node:fs";
import { join } from "node:path";
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** The feature folders under src/features (each may import another only through its public surface). */
const FEATURES = readdirSync(join(import.meta.dirname, "src", "features"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

export default tseslint.config(
  { ignores: ["dist", "src/api/generated", "node_modules", "test-results", "playwright-report"] },
  {
    files: ["**/*.{ts,tsx}"],
    extends: [js.configs.recommended, ...tseslint.configs.strict],
    languageOptions: { ecmaVersion: 2022, globals: globals.browser },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // noUncheckedIndexedAccess is on: an index known to be in range is asserted with "!".
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // Feature folders (src/features/*) do not reach into each other's internals (as bulletproof-react does with
  // import/no-restricted-paths): another feature's public surface is its index.ts and its components/;
  // its api/, lib/ and events/ are its own. The app may use the same surface; shared code no feature at all.
  {
    files: ["src/features/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${FEATURES.join("|")})/(?!components/)`,
              message: "Import another feature through its index.ts or its components/, not its internals.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/app/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./features/[^/]+/(?!components/)",
              message: "Import a feature through its index.ts or its components/, not its internals.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/shared/**/*.{ts,tsx}", "src/test/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(\\.\\./)+features/", message: "Shared code does not depend on a feature." }] },
      ],
    },
  },
  {
    files: ["scripts/**/*.mjs", "*.js"],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 2022, globals: globals.node },
  },
);
