import { useState, type FormEvent } from "react";
import type { CollectionDetail } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useChangeCollection } from "../api/useChangeCollection";
import { useJob } from "../api/useJob";
import { useOcrLanguages } from "../api/useOcrLanguages";
import { useRereadCollection } from "../api/useRereadCollection";
import { ocrLanguageName, ocrLanguageNames } from "../lib/ocrLanguageName";

/**
 * A collection's OCR languages: what its scans and images are read in (its own or the server's default), a
 * form to change them for those who may (the languages installed on the server), and the documents OCR read in
 * other languages with a button that reads them again from their originals, showing the job's progress.
 */
export function OcrLanguagesPanel({ collection }: { collection: CollectionDetail }) {
  const { t, language } = useI18n();
  const installed = useOcrLanguages();
  const languages = ocrLanguageNames(collection.ocr_languages, language);
  return (
    <section aria-labelledby="ocr-languages-title" className="panel" data-testid="ocr-languages">
      <h2 id="ocr-languages-title">{t("collectionOcr.title")}</h2>
      <p className="muted">{t("collectionOcr.help")}</p>
      <p data-testid="ocr-languages-current">
        {t("collectionOcr.current", {
          languages,
          where: t(collection.ocr_languages_own ? "collectionOcr.own" : "collectionOcr.default"),
        })}
      </p>
      {installed.data?.unavailable && (
        <p className="alert alert-warning">{t("collectionOcr.unavailable", { reason: installed.data.unavailable })}</p>
      )}
      <ErrorAlert error={installed.error} />
      {collection.may_write && installed.data ? (
        <LanguagesForm
          key={collection.ocr_languages.join("+")}
          collection={collection}
          installed={installed.data.installed}
          defaults={installed.data.default}
        />
      ) : (
        !collection.may_write && <p className="muted small">{t("collectionOcr.readOnly")}</p>
      )}
      {collection.ocr_read_otherwise.length > 0 && <ReadAgain collection={collection} languages={languages} />}
    </section>
  );
}

function LanguagesForm({
  collection,
  installed,
  defaults,
}: {
  collection: CollectionDetail;
  installed: string[];
  defaults: string[];
}) {
  const { t, language } = useI18n();
  const change = useChangeCollection(collection.name);
  const [chosen, setChosen] = useState<string[]>(collection.ocr_languages);
  const offered = [...installed, ...collection.ocr_languages.filter((code) => !installed.includes(code))];
  const unchanged = collection.ocr_languages_own && chosen.join("+") === collection.ocr_languages.join("+");
  const toggle = (code: string) =>
    setChosen((now) => (now.includes(code) ? now.filter((c) => c !== code) : [...now, code]));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ ocr_languages: chosen });
  };
  return (
    <form onSubmit={submit} className="form">
      <fieldset>
        <legend>{t("collectionOcr.choose")}</legend>
        {offered.map((code) => (
          <label key={code} className="check">
            <input type="checkbox" checked={chosen.includes(code)} onChange={() => toggle(code)} />
            {installed.includes(code)
              ? ocrLanguageName(code, language)
              : t("collectionOcr.notInstalled", { language: ocrLanguageName(code, language) })}
          </label>
        ))}
      </fieldset>
      {chosen.length === 0 && <p className="field-error">{t("collectionOcr.noneChosen")}</p>}
      <div className="actions">
        <button type="submit" className="primary" disabled={change.isPending || chosen.length === 0 || unchanged}>
          {t("collectionOcr.save")}
        </button>
        {collection.ocr_languages_own && (
          <button type="button" disabled={change.isPending} onClick={() => change.mutate({ ocr_languages: [] })}>
            {t("collectionOcr.useDefault", { languages: ocrLanguageNames(defaults, language) })}
          </button>
        )}
      </div>
      <ErrorAlert error={change.error} />
    </form>
  );
}

function ReadAgain({ collection, languages }: { collection: CollectionDetail; languages: string }) {
  const { t } = useI18n();
  const reread = useRereadCollection();
  const job = useJob(reread.data?.id ?? null, collection.name);
  const finished = job.data !== undefined && job.data.status !== "running";
  const running = reread.isPending || (reread.data !== undefined && !finished);
  const notRead = (job.data?.files ?? []).filter((f) => f.status === "failed" || f.status === "rejected");
  return (
    <div className="alert alert-warning" data-testid="ocr-read-otherwise">
      <p>
        {t("collectionOcr.readOtherwise", { count: collection.ocr_read_otherwise.length, languages })}
      </p>
      <p className="small">{collection.ocr_read_otherwise.join(", ")}</p>
      {collection.may_write && (
        <button type="button" className="primary" disabled={running} onClick={() => reread.mutate(collection.name)}>
          {running
            ? t("collectionOcr.rereading", { done: job.data?.done ?? 0, total: job.data?.total ?? 0 })
            : t("collectionOcr.reread", { languages })}
        </button>
      )}
      {job.data?.status === "failed" && <p>{t("collectionOcr.rereadFailed", { error: job.data.error ?? "" })}</p>}
      {notRead.length > 0 && (
        <ul>
          {notRead.map((f) => (
            <li key={f.file_name}>{t("collectionOcr.notReread", { file: f.file_name, reason: f.reason ?? "" })}</li>
          ))}
        </ul>
      )}
      <ErrorAlert error={reread.error} />
    </div>
  );
}
