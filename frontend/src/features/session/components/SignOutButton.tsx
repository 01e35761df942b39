import { useI18n } from "../../../shared/i18n/i18n";
import { useSession } from "../api/useSession";
import { useSignOut } from "../api/useSignOut";

/** "Sign out", shown only when the app gives the token by the session cookie (GET /api/session). */
export function SignOutButton() {
  const { t } = useI18n();
  const session = useSession();
  const signOut = useSignOut();
  if (session.data?.via !== "cookie") return null;
  return (
    <button type="button" className="small" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
      {t("access.signOut")}
    </button>
  );
}
