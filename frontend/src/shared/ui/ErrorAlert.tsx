import type { MessageKey } from "../i18n/en";
import { useI18n } from "../i18n/i18n";
import { ApiError } from "../api/errors";

/** What the user can do about an error, by its type or status. */
export function errorHint(error: unknown): MessageKey | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 0) return "error.hint.network";
  if (error.status === 401) return "error.hint.token";
  if (error.status === 413) return "error.hint.tooLarge";
  if (error.type === "EmbeddingModelMismatchError") return "error.hint.embedding";
  if (error.status === 503) return "error.hint.unavailable";
  if (error.status === 409) return "error.hint.conflict";
  if (error.status >= 500) return "error.hint.server";
  return null;
}

/** An error as the API said it ({"error": {type, message, details}}) and what to do about it. */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  const { t } = useI18n();
  if (error === null || error === undefined) return null;
  const message = error instanceof Error ? error.message : String(error);
  const hint = errorHint(error);
  const details = error instanceof ApiError ? error.details : [];
  return (
    <div role="alert" className="alert alert-error">
      <strong>{title ?? t("error.title")}</strong>
      <p>{message}</p>
      {details.length > 0 && (
        <ul>
          {details.map((d, i) => (
            <li key={i}>
              {String(d.location ?? "")}: {String(d.message ?? "")}
            </li>
          ))}
        </ul>
      )}
      {hint && <p className="hint">{t(hint)}</p>}
    </div>
  );
}
