import { useI18n } from "../../../shared/i18n/i18n";
import type { MessageKey } from "../../../shared/i18n/en";
import type { RunStatus } from "../events/types";

export function StatusBadge({ status }: { status: RunStatus | null | undefined }) {
  const { t } = useI18n();
  if (!status) return null;
  return <span className={`badge status-${status}`}>{t(`status.${status}` as MessageKey)}</span>;
}
