// Writes the backend's OpenAPI document to frontend/openapi.json (or to the path given as the first
// argument) without a running server: the app factory is imported with settings over a temporary data dir.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const target = resolve(process.argv[2] ?? join(here, "..", "openapi.json"));
const python = process.env.PYTHON ?? join(repo, ".venv", "bin", "python");
if (!existsSync(python)) {
  console.error(`No Python at ${python}: run \`make setup\` in ${repo} first (or set PYTHON).`);
  process.exit(1);
}

const program = `
import json, sys
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
settings = load_settings()
print(json.dumps(create_app(settings).openapi(), indent=2, ensure_ascii=False, sort_keys=False))
`;

const dataDir = mkdtempSync(join(tmpdir(), "rabbithole-openapi-"));
try {
  const out = execFileSync(python, ["-c", program], {
    cwd: repo,
    env: { ...process.env, RABBITHOLE_STORAGE__DATA_DIR: dataDir },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(target, out.endsWith("\n") ? out : `${out}\n`);
  console.log(`OpenAPI written to ${target}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
