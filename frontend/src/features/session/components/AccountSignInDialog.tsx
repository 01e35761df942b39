import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { ApiError } from "../../../shared/api/errors";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useSignIn } from "../api/useSignIn";
import { SignInModal } from "./SignInModal";

/**
 * The sign-in of a shared server with accounts (server.auth = accounts), after a request was refused: a
 * modal dialog (the page behind it is inert) with the name and the password. They go to POST /api/session,
 * which sets an HttpOnly session cookie; the app keeps neither. A refusal says the same whatever the reason
 * (an unknown name, a wrong password, a disabled account); too many refusals are answered 429.
 */
export function AccountSignInDialog() {
  const { t } = useI18n();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const signIn = useSignIn();
  const nameInput = useRef<HTMLInputElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  const id = useId();
  const status = signIn.error instanceof ApiError ? signIn.error.status : null;
  const refusal = status === 401 ? t("signIn.wrong") : status === 429 ? t("signIn.tooMany") : null;

  useEffect(() => {
    nameInput.current?.focus();
  }, []);

  useEffect(() => {
    if (refusal) passwordInput.current?.select();
  }, [refusal, signIn.error]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const given = name.trim();
    if (given && password) signIn.mutate({ name: given, password }, { onSuccess: () => setPassword("") });
  };

  return (
    <SignInModal id={id} title={t("signIn.title")} help={t("signIn.help")} onSubmit={submit}>
      <label htmlFor={`${id}-name`}>{t("signIn.name")}</label>
      <input
        id={`${id}-name`}
        ref={nameInput}
        type="text"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        required
        maxLength={200}
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <label htmlFor={`${id}-password`}>{t("signIn.password")}</label>
      <input
        id={`${id}-password`}
        ref={passwordInput}
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        aria-invalid={refusal ? true : undefined}
        aria-describedby={refusal ? `${id}-refused` : undefined}
      />
      {refusal && (
        <p id={`${id}-refused`} className="field-error" role="alert">
          {refusal}
        </p>
      )}
      {signIn.error && !refusal && <ErrorAlert error={signIn.error} />}
      <button type="submit" className="primary" disabled={signIn.isPending}>
        {signIn.isPending ? t("signIn.checking") : t("signIn.submit")}
      </button>
    </SignInModal>
  );
}
