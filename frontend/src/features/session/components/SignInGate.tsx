import { useSession } from "../api/useSession";
import { AccessTokenDialog } from "./AccessTokenDialog";
import { AccountSignInDialog } from "./AccountSignInDialog";

/** The form the server wants once a request was refused: name and password (accounts), else the token. */
export function SignInGate() {
  const session = useSession();
  if (session.isPending) return null;
  return session.data?.auth === "accounts" ? <AccountSignInDialog /> : <AccessTokenDialog />;
}
