import { useState, type FormEvent } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useRegistry } from "../api/useRegistry";
import { useReplaceRegistry } from "../api/useReplaceRegistry";
import { isUserSynonym, registryDocuments, registryFile, userSynonyms } from "./registryFile";

/** The registry editor: the names references resolve to, per document, and the user's own synonyms. */
export function RegistryEditor({ collection }: { collection: string }) {
  const { t } = useI18n();
  const registry = useRegistry(collection);
  const replace = useReplaceRegistry(collection);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const documents = registryDocuments(registry.data);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    replace.mutate(registryFile(documents, edits), { onSuccess: () => setEdits({}) });
  };

  return (
    <section aria-labelledby="registry-title" className="panel" data-testid="registry-editor">
      <h2 id="registry-title">{t("registry.title")}</h2>
      <p className="muted">{t("registry.help")}</p>
      <ErrorAlert error={registry.error} />
      {documents.length === 0 && registry.data && <p>{t("documents.empty")}</p>}
      {documents.length > 0 && (
        <form onSubmit={submit}>
          {documents.map((d) => {
            const auto = d.synonyms.filter((s) => !isUserSynonym(s)).map((s) => s.text);
            const id = `synonyms-${d.file_name}`;
            return (
              <fieldset key={d.file_name} className="registry-doc">
                <legend>
                  {d.file_name}: {d.title} {d.abbreviation && `(${d.abbreviation})`}
                </legend>
                {auto.length > 0 && (
                  <p className="muted small">
                    {t("registry.auto")}: {auto.join(", ")}
                  </p>
                )}
                <label htmlFor={id}>{t("registry.synonymsOf", { file: d.file_name })}</label>
                <textarea
                  id={id}
                  rows={2}
                  value={edits[d.file_name] ?? userSynonyms(d).join("\n")}
                  onChange={(e) => setEdits((x) => ({ ...x, [d.file_name]: e.target.value }))}
                />
              </fieldset>
            );
          })}
          <ErrorAlert error={replace.error} />
          {replace.isSuccess && <p role="status">{t("registry.saved")}</p>}
          <button type="submit" className="primary" disabled={replace.isPending}>
            {t("registry.save")}
          </button>
        </form>
      )}
    </section>
  );
}
