/** Where a PDF's header may start: readers accept it within the first KiB (as the server checks). */
const HEAD_BYTES = 1024;
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]; // a .docx is a ZIP archive
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]; // a password-protected .docx
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const TIFF_MAGICS = [
  [0x49, 0x49, 0x2a, 0x00], // "II*\0"
  [0x4d, 0x4d, 0x00, 0x2a], // "MM\0*"
];

type ContentCheck = (head: Uint8Array) => boolean;

/** A text file in any 8-bit encoding or UTF-8 (Latin-1 too): no NUL and no control character but tab, line
 * breaks, form feed and escape; UTF-16 by its byte order mark; never a PDF. */
function isText(head: Uint8Array): boolean {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return true;
  if (containsAt(head, PDF_MAGIC)) return false;
  return head.every((byte) => !(byte < 9 || byte === 11 || (byte > 13 && byte < 32 && byte !== 27)));
}

/**
 * The formats read, by extension, and how their content is told (as the server's table,
 * backend/rabbithole/ingestion/formats.py, tells them).
 */
export const FORMATS: Readonly<Record<string, ContentCheck>> = {
  pdf: (head) => containsAt(head, PDF_MAGIC),
  docx: (head) => startsWith(head, ZIP_MAGIC) || startsWith(head, OLE_MAGIC),
  html: isText,
  htm: isText,
  md: isText,
  markdown: isText,
  txt: isText,
  // images: their text is read by OCR on the server
  png: (head) => startsWith(head, PNG_MAGIC),
  jpg: (head) => startsWith(head, JPEG_MAGIC),
  jpeg: (head) => startsWith(head, JPEG_MAGIC),
  tif: (head) => TIFF_MAGICS.some((magic) => startsWith(head, magic)),
  tiff: (head) => TIFF_MAGICS.some((magic) => startsWith(head, magic)),
};

/** What the file input offers (extensions and media types of the formats read). */
export const ACCEPTED_TYPES = [
  ...Object.keys(FORMATS).map((extension) => `.${extension}`),
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "text/html",
  "text/markdown",
  "text/plain",
  "image/png",
  "image/jpeg",
  "image/tiff",
].join(",");

/** Why a file of a drop is not uploaded: it is empty, its content is not of the type its name says, or its
 * extension is of no format read (and its content no PDF's). */
export type UploadRefusal =
  | { kind: "empty" }
  | { kind: "wrongContent"; extension: string }
  | { kind: "unsupported"; extension: string | null };

/**
 * Whether `file` can be uploaded, told as the server tells it: an extension of a format read whose content
 * is of that format (a PDF's header, a .docx's ZIP, text for HTML, Markdown and text, an image's header), or any name whose
 * content is a PDF's. null when it can, else why not.
 */
export async function checkUpload(file: File): Promise<UploadRefusal | null> {
  if (file.size === 0) return { kind: "empty" };
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  const extension = extensionOf(file.name);
  const check = extension === null ? undefined : FORMATS[extension];
  if (extension !== null && check !== undefined) return check(head) ? null : { kind: "wrongContent", extension };
  if (containsAt(head, PDF_MAGIC)) return null;
  return { kind: "unsupported", extension };
}

function startsWith(head: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, i) => head[i] === byte);
}

function containsAt(head: Uint8Array, magic: readonly number[]): boolean {
  for (let start = 0; start + magic.length <= head.length; start += 1) {
    if (magic.every((byte, i) => head[start + i] === byte)) return true;
  }
  return false;
}

/** The extension of a file name, lower case, without its dot ("notes.TXT" → "txt"); null when it has none. */
export function extensionOf(name: string): string | null {
  const extension = /\.([^./\\]{1,10})$/.exec(name)?.[1];
  return extension === undefined ? null : extension.toLowerCase();
}
