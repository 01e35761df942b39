import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type DragEvent } from "react";
import type { JobFile } from "../../../api/generated/types.gen";
import { queryKeys } from "../../../shared/api/queryKeys";
import { useI18n } from "../../../shared/i18n/i18n";
import { useJob } from "../api/useJob";
import { uploadDocument } from "../api/uploadDocument";
import { ACCEPTED_TYPES, checkUpload, type UploadRefusal } from "../lib/uploadCheck";

interface Upload {
  key: string;
  file: File;
  progress: number;
  jobId: string | null;
  error: string | null;
}

interface Refused {
  key: string;
  file: File;
  refusal: UploadRefusal;
}

let uploads = 0;

/** A file of the drop that is not uploaded, with the reason (it is empty, its content is not what its
 * name says, or it is of no type read). */
function RefusedRow({ item }: { item: Refused }) {
  const { t } = useI18n();
  const { refusal } = item;
  const reason =
    refusal.kind === "empty"
      ? t("upload.empty")
      : refusal.kind === "wrongContent"
        ? refusal.extension === "pdf"
          ? t("upload.notPdfContent")
          : t("upload.wrongContent", { extension: refusal.extension })
        : refusal.extension
          ? t("upload.unsupportedType", { extension: refusal.extension })
          : t("upload.unsupportedContent");
  return (
    <li className="upload upload-failed upload-refused" data-file={item.file.name}>
      <span className="upload-name" title={item.file.name}>
        {item.file.name}
      </span>
      <span className="upload-state" role="alert">
        {t("upload.notUploaded")}: {reason} {t("upload.typesRead")}
      </span>
    </li>
  );
}

function UploadRow({ upload, collection }: { upload: Upload; collection: string }) {
  const { t } = useI18n();
  const job = useJob(upload.jobId, collection);
  const file: JobFile | undefined = job.data?.files.find((f) => f.file_name === upload.file.name) ?? job.data?.files[0];
  const state = upload.error
    ? "error"
    : file && file.status !== "pending"
      ? file.status
      : upload.jobId
        ? "ingesting"
        : "uploading";
  const failed = state === "error" || state === "failed" || state === "rejected";
  return (
    <li className={`upload upload-${failed ? "failed" : state}`} data-file={upload.file.name}>
      <span className="upload-name" title={upload.file.name}>
        {upload.file.name}
      </span>
      <progress
        max={100}
        value={state === "uploading" ? Math.round(upload.progress * 100) : state === "ingesting" ? undefined : 100}
        aria-label={t("upload.progressOf", { file: upload.file.name })}
      />
      <span className="upload-state" role={failed ? "alert" : "status"}>
        {t(`upload.${state}` as Parameters<typeof t>[0])}
        {state === "uploading" && ` ${Math.round(upload.progress * 100)} %`}
        {upload.error && `: ${upload.error}`}
        {file?.reason && `: ${file.reason}`}
        {job.data?.error && `: ${job.data.error}`}
      </span>
    </li>
  );
}

/**
 * Drop documents here (or choose them): PDF, Word (.docx), HTML, Markdown and text. Each file is checked
 * first (an empty file, one whose content is not what its name says, or one of no type read, is listed as
 * not uploaded, with the reason, and the others go on), then uploaded on its own,
 * with its progress, and followed through its ingestion job to ingested, unchanged, failed or rejected (with
 * the reason).
 */
export function UploadDropzone({ collection }: { collection: string }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [items, setItems] = useState<Upload[]>([]);
  const [refused, setRefused] = useState<Refused[]>([]);
  const [over, setOver] = useState(false);

  const patch = (key: string, change: Partial<Upload>) =>
    setItems((list) => list.map((u) => (u.key === key ? { ...u, ...change } : u)));

  /** Uploads the documents of a drop; the files that cannot be read are listed as not uploaded. */
  const start = async (dropped: FileList | File[]) => {
    const files = [...dropped];
    const refusals = await Promise.all(files.map(checkUpload));
    const fresh: Upload[] = [];
    const notUploaded: Refused[] = [];
    files.forEach((file, index) => {
      uploads += 1;
      const refusal = refusals[index];
      if (refusal) notUploaded.push({ key: `u${uploads}`, file, refusal });
      else fresh.push({ key: `u${uploads}`, file, progress: 0, jobId: null, error: null });
    });
    setRefused((list) => [...notUploaded, ...list]);
    setItems((list) => [...fresh, ...list]);
    for (const upload of fresh) {
      uploadDocument(collection, upload.file, (progress) => patch(upload.key, { progress }))
        .then((job) => patch(upload.key, { jobId: job.id }))
        .catch((error: unknown) => {
          patch(upload.key, { error: error instanceof Error ? error.message : String(error) });
          void queryClient.invalidateQueries({ queryKey: queryKeys.collection(collection) });
        });
    }
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    if (event.dataTransfer.files.length > 0) void start([...event.dataTransfer.files]);
  };

  return (
    <section aria-labelledby="upload-title" className="panel">
      <h2 id="upload-title">{t("upload.title")}</h2>
      <div
        className={over ? "dropzone over" : "dropzone"}
        data-testid="upload-dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>{t("upload.drop")}</p>
        <label className="button" htmlFor="upload-input">
          {t("upload.choose")}
        </label>
        <input
          id="upload-input"
          ref={input}
          className="visually-hidden"
          type="file"
          accept={ACCEPTED_TYPES}
          multiple
          onChange={(e) => {
            if (e.target.files) void start([...e.target.files]);
            e.target.value = "";
          }}
        />
      </div>
      {refused.length > 0 && (
        <ul className="uploads" aria-label={t("upload.refusedList")} data-testid="uploads-refused">
          {refused.map((item) => (
            <RefusedRow key={item.key} item={item} />
          ))}
        </ul>
      )}
      {items.length > 0 && (
        <ul className="uploads" aria-label={t("upload.list")}>
          {items.map((u) => (
            <UploadRow key={u.key} upload={u} collection={collection} />
          ))}
        </ul>
      )}
    </section>
  );
}
