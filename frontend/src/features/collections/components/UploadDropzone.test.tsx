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
  it("uploads the PDF of a drop and says which files are not PDFs, under their own names", async () => {
    renderWithProviders(<UploadDropzone collection="akte" />);
    drop([
      new File([], "leer.pdf", { type: "application/pdf" }),
      new File(["Notizen zur Prüfung"], "notes.txt", { type: "text/plain" }),
      new File(["<html>Anmeldung</html>"], "bescheid.pdf", { type: "application/pdf" }),
      new File(["%PDF-1.7\n%%EOF"], "Gesetz.pdf", { type: "application/pdf" }),
    ]);
    const refused = await screen.findByRole("list", { name: "Files not uploaded" });
    const row = (name: string) => within(refused).getByText(name).closest("li") as HTMLElement;
    expect(row("leer.pdf")).toHaveTextContent("not uploaded: the file is empty (0 bytes). Only PDF files are read.");
    expect(row("notes.txt")).toHaveTextContent("not uploaded: not a PDF (a “.txt” file). Only PDF files are read.");
    expect(row("bescheid.pdf")).toHaveTextContent("its name says PDF, but its content is not a PDF.");
    expect(within(refused).queryByText(/notes\.txt\.pdf/)).not.toBeInTheDocument();

    const uploads = screen.getByRole("list", { name: "Uploads" });
    expect(within(uploads).getByText("Gesetz.pdf")).toBeInTheDocument();
    expect(await within(uploads).findByText("ingested")).toBeInTheDocument();
    expect(FakeXhr.sent).toEqual(["Gesetz.pdf"]);
  });

  it("says it in German", async () => {
    renderWithProviders(<UploadDropzone collection="akte" />, "de");
    drop([new File(["# Titel"], "notiz.md")]);
    const refused = await screen.findByRole("list", { name: "Nicht hochgeladene Dateien" });
    expect(refused).toHaveTextContent("notiz.md");
    expect(refused).toHaveTextContent("nicht hochgeladen: kein PDF (eine „.md“-Datei). Gelesen werden nur PDF-Dateien.");
    expect(FakeXhr.sent).toEqual([]);
  });
});
