import { lazy, Suspense } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import type { SearchResultItem } from "../../../api/generated/types.gen";
import { searchHitTarget, targetFromParams, targetParams } from "../../viewer";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useCollection } from "../api/useCollection";
import { useDeleteCollection } from "../api/useDeleteCollection";
import { DamagedIndexNotice } from "./DamagedIndexNotice";
import { DocumentsTable } from "./DocumentsTable";
import { OcrLanguagesPanel } from "./OcrLanguagesPanel";
import { RegistryEditor } from "./RegistryEditor";
import { SearchPanel } from "./SearchPanel";
import { UploadDropzone } from "./UploadDropzone";

const DocumentPanel = lazy(() => import("../../viewer/components/DocumentPanel"));

/** One collection: upload, documents, search (a hit opens its page), registry. The open page is in the URL. */
export function CollectionPage() {
  const { name = "" } = useParams();
  const { t } = useI18n();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const collection = useCollection(name);
  const remove = useDeleteCollection();
  const query = params.get("q") ?? "";
  const target = targetFromParams(name, params, query || null);

  const set = (changes: Record<string, string | null>) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      for (const [k, v] of Object.entries(changes)) {
        if (v === null || v === "") next.delete(k);
        else next.set(k, v);
      }
      return next;
    });

  const open = (item: SearchResultItem) => set(targetParams(searchHitTarget(item, query || null)));

  return (
    <div className={target ? "run-layout with-viewer" : "run-layout"} data-testid="collection-page">
      <div className="run-main">
        <p>
          <Link to="/collections">← {t("collections.title")}</Link>
        </p>
        <div className="page-head">
          <h1>{t("collection.title", { name })}</h1>
          <div className="actions">
            <Link className="button primary" to={`/runs/new?collection=${encodeURIComponent(name)}`}>
              {t("collection.newRun")}
            </Link>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(t("collection.confirmDelete", { name })))
                  remove.mutate(name, { onSuccess: () => navigate("/collections") });
              }}
            >
              {t("collection.delete")}
            </button>
          </div>
        </div>
        <ErrorAlert error={collection.error ?? remove.error} />
        {collection.data && (
          <p className="muted">
            {t("collection.summary", {
              documents: collection.data.documents,
              chunks: collection.data.chunks,
              model: collection.data.embedding_model,
            })}
          </p>
        )}
        {collection.data?.vector_index_damage && (
          <DamagedIndexNotice collection={name} reason={collection.data.vector_index_damage} />
        )}
        <UploadDropzone collection={name} />
        <DocumentsTable collection={name} onOpen={(d) => set({ doc: d, page: "1", to: null, hl: null })} />
        <SearchPanel collection={name} query={query} onQuery={(q) => set({ q })} onOpen={open} />
        {collection.data && <OcrLanguagesPanel collection={collection.data} />}
        <RegistryEditor collection={name} />
      </div>
      {target && (
        <Suspense fallback={<aside className="viewer">{t("common.loading")}</aside>}>
          <DocumentPanel target={target} onClose={() => set({ doc: null, page: null, to: null, hl: null })} />
        </Suspense>
      )}
    </div>
  );
}
