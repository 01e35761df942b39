// The built app's size, gzip: every file of dist/ but the pdf.js worker (loaded only when a PDF page is
// shown, in its own thread), and the initial load (index.html, the entry chunk and CSS).
// Run after `npm run build`.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const dist = resolve(fileURLToPath(import.meta.url), "..", "..", "dist");
const files = (dir) =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
const html = readFileSync(join(dist, "index.html"), "utf8");
let total = 0;
let initial = 0;
const rows = [];
for (const file of files(dist)) {
  const name = relative(dist, file);
  if (!/\.(js|mjs|css|html)$/.test(name)) continue;
  const gz = gzipSync(readFileSync(file), { level: 9 }).length;
  const worker = /pdf\.worker/.test(name);
  const entry = name === "index.html" || html.includes(name.replace(/\\/g, "/"));
  rows.push({ name, kB: +(gz / 1024).toFixed(1), worker, entry });
  if (!worker) total += gz;
  if (entry) initial += gz;
}
rows.sort((a, b) => b.kB - a.kB);
for (const r of rows) console.log(`${String(r.kB).padStart(8)} kB gzip  ${r.name}${r.worker ? "  (pdf.js worker, excluded)" : r.entry ? "  (initial load)" : ""}`);
console.log(`total without the pdf.js worker: ${(total / 1024).toFixed(1)} kB gzip (goal ≤ 300 kB)`);
console.log(`initial load: ${(initial / 1024).toFixed(1)} kB gzip`);
if (total > 300 * 1024) process.exitCode = 1;
