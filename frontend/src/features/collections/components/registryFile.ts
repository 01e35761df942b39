import type { RegistryFile } from "../../../api/generated/types.gen";

/** A document of the registry as GET .../registry answers it (registry/registry.py DocumentInfo.to_dict). */
export interface RegistryDocument {
  file_name: string;
  title: string;
  abbreviation: string;
  title_source?: string;
  abbreviation_source?: string;
  synonyms: Array<{ text: string; kind: string; source?: string; base?: string }>;
}

export function registryDocuments(registry: Record<string, unknown> | undefined): RegistryDocument[] {
  const documents = registry?.documents;
  return Array.isArray(documents) ? (documents as RegistryDocument[]) : [];
}

/** Whether a synonym is one the user typed (not a form the registry derived from one, which has a `base`). */
export function isUserSynonym(synonym: RegistryDocument["synonyms"][number]): boolean {
  return synonym.source === "user" && !synonym.base;
}

/** The user's synonyms of a document, one per line in the editor. */
export function userSynonyms(document: RegistryDocument): string[] {
  return document.synonyms.filter(isUserSynonym).map((s) => s.text);
}

/**
 * The registry file PUT replaces (the format of registry.yaml): per document the user's synonyms, and the
 * title or abbreviation the user set before (kept, since the file is replaced as a whole).
 */
export function registryFile(documents: RegistryDocument[], edits: Record<string, string>): RegistryFile {
  const out: Record<string, Record<string, unknown>> = {};
  for (const document of documents) {
    const text = edits[document.file_name];
    const synonyms = (text === undefined ? userSynonyms(document) : text.split(/\n|,/))
      .map((s) => s.trim())
      .filter((s, i, all) => s !== "" && all.indexOf(s) === i);
    const entry: Record<string, unknown> = {};
    if (synonyms.length > 0) entry.synonyms = synonyms;
    if (document.title_source === "user") entry.title = document.title;
    if (document.abbreviation_source === "user") entry.abbreviation = document.abbreviation;
    if (Object.keys(entry).length > 0) out[document.file_name] = entry;
  }
  return { version: 1, documents: out };
}
