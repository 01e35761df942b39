import { describe, expect, it } from "vitest";
import { registryDocuments, registryFile, userSynonyms } from "./registryFile";

// GET /api/collections/{name}/registry after a PUT of {"PrüfG.pdf": {"synonyms": ["Prüfgesetz"]}}
const registry = {
  version: 1,
  collection: "laws",
  documents: [
    {
      file_name: "PrüfG.pdf",
      title: "Gesetz über die Prüfung",
      abbreviation: "PrüfG",
      synonyms: [
        { text: "PrüfG", kind: "abbreviation" },
        { text: "Prüfgesetz", kind: "user", source: "user" },
        { text: "des Prüfgesetzes", kind: "case_form", source: "user", base: "Prüfgesetz" },
      ],
    },
    {
      file_name: "AtG.pdf",
      title: "Kernenergiegesetz",
      abbreviation: "AtG",
      title_source: "user",
      synonyms: [],
    },
  ],
};

describe("registry file", () => {
  const documents = registryDocuments(registry);

  it("edits only what the user typed, not the forms derived from it", () => {
    expect(userSynonyms(documents[0]!)).toEqual(["Prüfgesetz"]);
  });

  it("is rebuilt from the edits, one synonym per line, keeping the user's title", () => {
    expect(registryFile(documents, { "PrüfG.pdf": "Prüfgesetz\n Testfallgesetz \n\nPrüfgesetz" })).toEqual({
      version: 1,
      documents: {
        "PrüfG.pdf": { synonyms: ["Prüfgesetz", "Testfallgesetz"] },
        "AtG.pdf": { title: "Kernenergiegesetz" },
      },
    });
    expect(registryFile(documents, {})).toEqual({
      version: 1,
      documents: { "PrüfG.pdf": { synonyms: ["Prüfgesetz"] }, "AtG.pdf": { title: "Kernenergiegesetz" } },
    });
  });
});
