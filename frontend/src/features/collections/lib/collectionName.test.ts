import { describe, expect, it } from "vitest";
import { COLLECTION_NAME, deriveCollectionName } from "./collectionName";

describe("deriveCollectionName", () => {
  it("keeps a valid name as it is typed", () => {
    expect(deriveCollectionName("Gesetze_2024.v1")).toBe("Gesetze_2024.v1");
    expect(deriveCollectionName("  akte  ")).toBe("akte");
  });

  it("makes a valid name of any input, spelling out umlauts and ß", () => {
    expect(deriveCollectionName("Meine Akte")).toBe("meine-akte");
    expect(deriveCollectionName("Prüfung: Straße & Gebäude!")).toBe("pruefung-strasse-gebaeude");
    expect(deriveCollectionName("Übersicht — Café crème")).toBe("uebersicht-cafe-creme");
    expect(deriveCollectionName("«Akte»")).toBe("akte");
    const long = deriveCollectionName(`${"Ä".repeat(40)} Akte`);
    expect(long.length).toBeLessThanOrEqual(60);
    expect(COLLECTION_NAME.test(long)).toBe(true);
  });

  it("leaves nothing when nothing usable is typed", () => {
    expect(deriveCollectionName("")).toBe("");
    expect(deriveCollectionName(" !!! ")).toBe("");
    expect(deriveCollectionName("東京")).toBe("");
  });
});
