// Writes a gzip (level 9) and a brotli (quality 11) copy beside every compressible file of the build
// (`npm run build` runs it after `vite build`): NAME.gz and NAME.br, each only where it is smaller than NAME.
// The server (backend/rabbithole/api/spa.py) sends the copy a client accepts, so it never compresses a
// request itself. Copies left from an earlier build of a file that is gone are deleted.
//
//   node scripts/compress-dist.mjs [DIST]        (default: frontend/dist)
import { readdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** Text formats; images other than SVG, fonts in WOFF2 and PDFs are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|map|txt|xml|ttf|otf|ico|wasm)$/i;
const COPIES = [".gz", ".br"];

const dist = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), "..", "..", "dist"));

const filesUnder = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

const compressors = {
  ".gz": (data) => gzipSync(data, { level: 9 }),
  ".br": (data) =>
    brotliCompressSync(data, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    }),
};

let written = 0;
let plainBytes = 0;
let gzipBytes = 0;
for (const file of filesUnder(dist)) {
  const copyOf = COPIES.map((suffix) => (file.endsWith(suffix) ? file.slice(0, -suffix.length) : null)).find(Boolean);
  if (copyOf) {
    if (!existsSync(copyOf)) unlinkSync(file);
    continue;
  }
  if (!COMPRESSIBLE.test(file)) continue;
  const data = readFileSync(file);
  const { mtime } = statSync(file);
  plainBytes += data.length;
  for (const suffix of COPIES) {
    const copy = compressors[suffix](data);
    if (copy.length >= data.length) {
      if (existsSync(file + suffix)) unlinkSync(file + suffix);
      if (suffix === ".gz") gzipBytes += data.length;
      continue;
    }
    writeFileSync(file + suffix, copy);
    utimesSync(file + suffix, mtime, mtime);
    written += 1;
    if (suffix === ".gz") gzipBytes += copy.length;
  }
}
console.log(
  `compress-dist: ${written} copies in ${dist}; ${(plainBytes / 1000).toFixed(1)} kB -> ${(gzipBytes / 1000).toFixed(1)} kB gzip`,
);
