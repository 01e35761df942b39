import { useI18n } from "../../../shared/i18n/i18n";
import { useSession } from "../api/useSession";
import { useSignOut } from "../api/useSignOut";

/**
 * "Sign out", shown only when the app is signed in by the session cookie (GET /api/session); in accounts
 * mode with the account's name beside it.
 */
export function SignOutButton() {
  const { t } = useI18n();
  const session = useSession();
  const signOut = useSignOut();
  if (session.data?.via !== "cookie") return null;
  const button = (
    <button type="button" className="small" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
      {t("access.signOut")}
    </button>
  );
  if (!session.data.user) return button;
  return (
    <span className="signed-in">
      <span>{t("signIn.signedInAs", { name: session.data.user })}</span> {button}
    </span>
  );
}
