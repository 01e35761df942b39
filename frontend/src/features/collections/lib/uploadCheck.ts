/** Where a PDF's header may start: readers accept it within the first KiB (as the server checks). */
const HEAD_BYTES = 1024;
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** Why a file of a drop is not uploaded: it is empty, or its content is no PDF's (with its extension). */
export type UploadRefusal = { kind: "empty" } | { kind: "notPdf"; extension: string | null };

/**
 * Whether `file` can be uploaded as a PDF, told by its content as the server tells it (a `%PDF-` header in
 * its first KiB), whatever its name: null when it can, else why not. Only PDFs are read today.
 */
export async function checkUpload(file: File): Promise<UploadRefusal | null> {
  if (file.size === 0) return { kind: "empty" };
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  if (containsMagic(head)) return null;
  return { kind: "notPdf", extension: extensionOf(file.name) };
}

function containsMagic(head: Uint8Array): boolean {
  for (let start = 0; start + PDF_MAGIC.length <= head.length; start += 1) {
    if (PDF_MAGIC.every((byte, i) => head[start + i] === byte)) return true;
  }
  return false;
}

/** The extension of a file name, lower case, without its dot ("notes.TXT" → "txt"); null when it has none. */
export function extensionOf(name: string): string | null {
  const extension = /\.([^./\\]{1,10})$/.exec(name)?.[1];
  return extension === undefined ? null : extension.toLowerCase();
}
