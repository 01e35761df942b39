import { useSyncExternalStore } from "react";
import { accessGate } from "./accessGate";

/** Whether the app must ask for the access token now (re-renders when that changes). */
export function useAccessRequired(): boolean {
  return useSyncExternalStore(accessGate.subscribe, accessGate.isRequired);
}

/** A number that changes after each sign-in: an effect that depends on it runs again with the token. */
export function useAccessGrants(): number {
  return useSyncExternalStore(accessGate.subscribe, accessGate.grantCount);
}
