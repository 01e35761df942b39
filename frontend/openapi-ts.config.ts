import { defineConfig } from "@hey-api/openapi-ts";

// The API client is generated from openapi.json (dumped from the backend by scripts/dump-openapi.mjs).
// OPENAPI_TS_OUTPUT lets scripts/check-generated.mjs generate into a temporary folder for the stale check.
export default defineConfig({
  input: "./openapi.json",
  output: {
    path: process.env.OPENAPI_TS_OUTPUT ?? "./src/api/generated",
  },
  plugins: ["@hey-api/typescript", "@hey-api/sdk", "@hey-api/client-fetch"],
});
