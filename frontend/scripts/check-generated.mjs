// Fails when the committed openapi.json or src/api/generated/ is stale: dumps the backend's OpenAPI and
// generates the client into a temporary folder, then compares both with the committed files.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const temp = mkdtempSync(join(tmpdir(), "rabbithole-generated-"));

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

function compare(committedDir, freshDir) {
  const problems = [];
  const committed = new Set(files(committedDir).map((f) => relative(committedDir, f)));
  const fresh = new Set(files(freshDir).map((f) => relative(freshDir, f)));
  for (const name of fresh) {
    if (!committed.has(name)) problems.push(`missing: ${name}`);
    else if (readFileSync(join(committedDir, name), "utf8") !== readFileSync(join(freshDir, name), "utf8"))
      problems.push(`stale: ${name}`);
  }
  for (const name of committed) if (!fresh.has(name)) problems.push(`extra: ${name}`);
  return problems;
}

try {
  const spec = join(temp, "openapi.json");
  execFileSync("node", [join(root, "scripts", "dump-openapi.mjs"), spec], { stdio: "inherit" });
  const problems = [];
  if (readFileSync(spec, "utf8") !== readFileSync(join(root, "openapi.json"), "utf8"))
    problems.push("stale: openapi.json (the backend's API changed)");
  // Generate from the committed spec into the temp dir, so a generator change is caught too.
  const out = join(temp, "generated");
  execFileSync(join(root, "node_modules", ".bin", "openapi-ts"), [], {
    cwd: root,
    env: { ...process.env, OPENAPI_TS_OUTPUT: out },
    stdio: "inherit",
  });
  problems.push(...compare(join(root, "src", "api", "generated"), out).map((p) => `src/api/generated/ ${p}`));
  if (problems.length > 0) {
    console.error(`The generated API code is stale; run \`npm run generate\` and commit:\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  console.log("The generated API code is up to date.");
} finally {
  rmSync(temp, { recursive: true, force: true });
}
