import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useDeleteDocument } from "../api/useDeleteDocument";
import { useDocuments } from "../api/useDocuments";

export function DocumentsTable({ collection, onOpen }: { collection: string; onOpen: (document: string) => void }) {
  const { t } = useI18n();
  const documents = useDocuments(collection);
  const remove = useDeleteDocument(collection);
  return (
    <section aria-labelledby="documents-title" className="panel" data-testid="documents">
      <h2 id="documents-title">{t("documents.title")}</h2>
      <ErrorAlert error={documents.error ?? remove.error} />
      {documents.data?.length === 0 && <p>{t("documents.empty")}</p>}
      {documents.data && documents.data.length > 0 && (
        <div className="table-scroll">
          <table className="table documents-table">
            <thead>
              <tr>
                <th scope="col">{t("documents.file")}</th>
                <th scope="col">{t("documents.status")}</th>
                <th scope="col">{t("documents.titleCol")}</th>
                <th scope="col">{t("documents.pages")}</th>
                <th scope="col">{t("documents.chunks")}</th>
                <th scope="col">
                  <span className="visually-hidden">{t("documents.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {documents.data.map((d) => (
                <tr key={d.file_name} data-document={d.file_name}>
                  <td className="document-file" title={d.file_name}>
                    {d.status === "ingested" ? (
                      <button type="button" className="link" onClick={() => onOpen(d.file_name)}>
                        {d.file_name}
                      </button>
                    ) : (
                      d.file_name
                    )}
                  </td>
                  <td>
                    <span className={`badge ${d.status === "ingested" ? "status-done" : "status-error"}`}>
                      {t(d.status === "ingested" ? "documents.ingested" : "documents.failed")}
                    </span>
                    {d.reason && <span className="muted"> {d.reason}</span>}
                    {d.warnings.length > 0 && <span className="muted"> ({d.warnings.join("; ")})</span>}
                  </td>
                  <td className="document-title">
                    {d.title}
                    {d.abbreviation && ` (${d.abbreviation})`}
                  </td>
                  <td data-label={t("documents.pages")}>{d.pages}</td>
                  <td data-label={t("documents.chunks")}>{d.chunks}</td>
                  <td>
                    <button
                      type="button"
                      className="danger small"
                      disabled={remove.isPending}
                      aria-label={t("documents.delete", { file: d.file_name })}
                      onClick={() => {
                        if (window.confirm(t("documents.confirmDelete", { file: d.file_name }))) remove.mutate(d.file_name);
                      }}
                    >
                      {t("common.delete")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
