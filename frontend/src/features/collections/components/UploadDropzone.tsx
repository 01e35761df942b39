import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type DragEvent } from "react";
import type { JobFile } from "../../../api/generated/types.gen";
import { queryKeys } from "../../../shared/api/queryKeys";
import { useI18n } from "../../../shared/i18n/i18n";
import { useJob } from "../api/useJob";
import { uploadDocument } from "../api/uploadDocument";

interface Upload {
  key: string;
  file: File;
  progress: number;
  jobId: string | null;
  error: string | null;
}

let uploads = 0;

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
      <span className="upload-name">{upload.file.name}</span>
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
 * Drop PDFs here (or choose them): each file is uploaded on its own, with its progress, then followed
 * through its ingestion job to ingested, unchanged, failed or rejected (with the reason).
 */
export function UploadDropzone({ collection }: { collection: string }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [items, setItems] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);

  const patch = (key: string, change: Partial<Upload>) =>
    setItems((list) => list.map((u) => (u.key === key ? { ...u, ...change } : u)));

  const start = (files: FileList | File[]) => {
    const fresh = [...files].map((file) => {
      uploads += 1;
      return { key: `u${uploads}`, file, progress: 0, jobId: null, error: null } satisfies Upload;
    });
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
    if (event.dataTransfer.files.length > 0) start(event.dataTransfer.files);
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
          accept="application/pdf,.pdf"
          multiple
          onChange={(e) => {
            if (e.target.files) start(e.target.files);
            e.target.value = "";
          }}
        />
      </div>
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
