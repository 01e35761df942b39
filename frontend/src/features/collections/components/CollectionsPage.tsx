import { useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useCollections } from "../api/useCollections";
import { useCreateCollection } from "../api/useCreateCollection";
import { deriveCollectionName } from "../lib/collectionName";

export function CollectionsPage() {
  const { t, formatDate } = useI18n();
  const navigate = useNavigate();
  const collections = useCollections();
  const create = useCreateCollection();
  const [typed, setTyped] = useState("");
  const name = deriveCollectionName(typed);
  const valid = name !== "";
  const note = typed.trim() === "" ? null : !valid ? "noName" : name !== typed.trim() ? "derived" : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    create.mutate(name, { onSuccess: (c) => navigate(`/collections/${encodeURIComponent(c.name)}`) });
  };

  return (
    <section data-testid="collections-page" aria-labelledby="collections-title">
      <h1 id="collections-title">{t("collections.title")}</h1>
      <form className="inline-form" onSubmit={submit}>
        <label htmlFor="collection-name">{t("collections.name")}</label>
        <input
          id="collection-name"
          value={typed}
          aria-describedby="collection-name-help collection-name-derived"
          aria-invalid={typed.trim() !== "" && !valid}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className="primary" disabled={!valid || create.isPending}>
          {t("collections.create")}
        </button>
        <p id="collection-name-help" className="muted small">
          {t("collections.nameHelp")}
        </p>
        <p id="collection-name-derived" className={note === "noName" ? "field-error" : "small"} aria-live="polite">
          {note === "derived" && t("collections.derivedName", { name })}
          {note === "noName" && t("collections.noName")}
        </p>
      </form>
      <ErrorAlert error={create.error} />
      <ErrorAlert error={collections.error} />
      {collections.data?.length === 0 && <p>{t("collections.empty")}</p>}
      {collections.data && collections.data.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">{t("collections.title")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("collections.name")}</th>
              <th scope="col">{t("collections.documents")}</th>
              <th scope="col">{t("collections.chunks")}</th>
              <th scope="col">{t("collections.updated")}</th>
            </tr>
          </thead>
          <tbody>
            {collections.data.map((c) => (
              <tr key={c.name}>
                <td>
                  <Link to={`/collections/${encodeURIComponent(c.name)}`}>{c.name}</Link>
                </td>
                <td>{c.documents}</td>
                <td>{c.chunks}</td>
                <td>
                  <time dateTime={c.updated_at}>{formatDate(c.updated_at)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
