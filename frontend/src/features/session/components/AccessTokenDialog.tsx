import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { ApiError } from "../../../shared/api/errors";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useSignIn } from "../api/useSignIn";
import { SignInModal } from "./SignInModal";

/**
 * The form that asks for the server's access token (server.token) after a request was refused with 401:
 * a modal dialog (the page behind it is inert) with the focus in its one field. The token goes to
 * POST /api/session, which sets an HttpOnly cookie; the app never stores the token itself.
 */
export function AccessTokenDialog() {
  const { t } = useI18n();
  const [token, setToken] = useState("");
  const signIn = useSignIn();
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const wrong = signIn.error instanceof ApiError && signIn.error.status === 401;

  useEffect(() => {
    input.current?.focus();
  }, []);

  useEffect(() => {
    if (wrong) input.current?.select();
  }, [wrong, signIn.error]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const given = token.trim();
    if (given) signIn.mutate({ token: given }, { onSuccess: () => setToken("") });
  };

  return (
    <SignInModal id={id} title={t("access.title")} help={t("access.help")} onSubmit={submit}>
      <label htmlFor={`${id}-token`}>{t("access.label")}</label>
      <input
        id={`${id}-token`}
        ref={input}
        type="password"
        autoComplete="current-password"
        required
        value={token}
        onChange={(e) => setToken(e.target.value)}
        aria-invalid={wrong || undefined}
        aria-describedby={wrong ? `${id}-wrong` : undefined}
      />
      {wrong && (
        <p id={`${id}-wrong`} className="field-error" role="alert">
          {t("access.wrong")}
        </p>
      )}
      {signIn.error && !wrong && <ErrorAlert error={signIn.error} />}
      <button type="submit" className="primary" disabled={signIn.isPending}>
        {signIn.isPending ? t("access.checking") : t("access.submit")}
      </button>
    </SignInModal>
  );
}
