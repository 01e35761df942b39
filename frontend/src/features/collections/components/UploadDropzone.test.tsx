import { fireEvent, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import { UploadDropzone } from "./UploadDropzone";

/** XMLHttpRequest stand-in: records the name of each file sent and answers 202 with job j1. */
class FakeXhr {
  static sent: string[] = [];
  status = 0;
  responseText = "";
  responseType = "";
  upload: { onprogress: ((e: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open() {}
  addEventListener() {}
  send(form: FormData) {
    const file = form.get("files");
    FakeXhr.sent.push(file instanceof File ? file.name : "?");
    setTimeout(() => {
      this.status = 202;
      this.responseText = JSON.stringify(JOB);
      this.onload?.();
    }, 0);
  }
}

const JOB = {
  id: "j1",
  collection: "akte",
  status: "done",
  done: 1,
  total: 1,
  files: [{ file_name: "Gesetz.pdf", status: "ingested", reason: null }],
  error: null,
};

beforeEach(() => {
  configureApiClient("http://app.test/");
  FakeXhr.sent = [];
  vi.stubGlobal("XMLHttpRequest", FakeXhr);
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => Response.json(JOB)),
  );
});
afterEach(() => vi.unstubAllGlobals());

function drop(files: File[]) {
  fireEvent.drop(screen.getByTestId("upload-dropzone"), { dataTransfer: { files } });
}

describe("the drop zone", () => {
  it("uploads the documents of a drop and says which files cannot be read, under their own names", async () => {
    renderWithProviders(<UploadDropzone collection="akte" />);
    const latin1 = new Uint8Array([0x50, 0x72, 0xfc, 0x66, 0x75, 0x6e, 0x67]); // "Prüfung" in Latin-1
    drop([
      new File([], "leer.pdf", { type: "application/pdf" }),
      new File(["PK\x03\x04 cells"], "tabelle.xlsx"),
      new File(["<html>Anmeldung</html>"], "bescheid.pdf", { type: "application/pdf" }),
      new File(["%PDF-1.7\n%%EOF"], "Entwurf.docx"),
      new File(["%PDF-1.7\n%%EOF"], "Gesetz.pdf", { type: "application/pdf" }),
      new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00])], "Stellungnahme.docx"),
      new File([latin1], "notes.md"),
      new File(["<!doctype html><p>Leitfaden</p>"], "leitfaden.html"),
      new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])], "scan.png"),
      new File(["Bescheid"], "bescheid.tif"),
    ]);
    const refused = await screen.findByRole("list", { name: "Files not uploaded" });
    const row = (name: string) => within(refused).getByText(name).closest("li") as HTMLElement;
    const read = "PDF, Word (.docx), HTML, Markdown and text files are read, and PNG, JPEG and TIFF images (by OCR).";
    expect(row("leer.pdf")).toHaveTextContent(`not uploaded: the file is empty (0 bytes). ${read}`);
    expect(row("tabelle.xlsx")).toHaveTextContent(`not uploaded: a “.xlsx” file cannot be read. ${read}`);
    expect(row("bescheid.pdf")).toHaveTextContent("its name says PDF, but its content is not a PDF.");
    expect(row("Entwurf.docx")).toHaveTextContent("its name says “.docx”, but its content is not of that type.");
    expect(row("bescheid.tif")).toHaveTextContent("its name says “.tif”, but its content is not of that type.");
    expect(within(refused).getAllByRole("listitem")).toHaveLength(5);

    const uploads = screen.getByRole("list", { name: "Uploads" });
    expect(within(uploads).getByText("Gesetz.pdf")).toBeInTheDocument();
    expect(await within(uploads).findAllByText("ingested")).toHaveLength(5);
    expect(FakeXhr.sent).toEqual(["Gesetz.pdf", "Stellungnahme.docx", "notes.md", "leitfaden.html", "scan.png"]);
  });

  it("offers the formats read in the file chooser", () => {
    renderWithProviders(<UploadDropzone collection="akte" />);
    expect(screen.getByLabelText("Choose files")).toHaveAttribute("accept", expect.stringContaining(".docx"));
    expect(screen.getByRole("heading", { name: "Upload documents" })).toBeInTheDocument();
  });

  it("says it in German", async () => {
    renderWithProviders(<UploadDropzone collection="akte" />, "de");
    drop([new File(["Zellen"], "tabelle.ods")]);
    const refused = await screen.findByRole("list", { name: "Nicht hochgeladene Dateien" });
    expect(refused).toHaveTextContent("tabelle.ods");
    expect(refused).toHaveTextContent(
      "nicht hochgeladen: eine „.ods“-Datei kann nicht gelesen werden. Gelesen werden PDF-, Word- (.docx), HTML-, Markdown- und Textdateien sowie PNG-, JPEG- und TIFF-Bilder (per OCR).",
    );
    expect(FakeXhr.sent).toEqual([]);
  });
});
