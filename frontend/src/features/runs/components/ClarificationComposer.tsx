import type { FormEvent, KeyboardEvent, Ref } from "react";
import { useI18n } from "../../../shared/i18n/i18n";

/**
 * The answer field of the clarification chat, labelled, with a hint on its keys: Enter sends, Shift+Enter
 * starts a new line (Ctrl+Enter sends too; nothing is sent while an input method composes). It stays enabled
 * while the next questions are prepared (the user may write ahead, and focus stays in it); only sending waits
 * for them (`canSend`).
 */
export function ClarificationComposer({
  ref,
  value,
  onChange,
  canSend,
  onSend,
  onEnd,
}: {
  ref: Ref<HTMLTextAreaElement>;
  value: string;
  onChange: (value: string) => void;
  canSend: boolean;
  onSend: () => void;
  onEnd: () => void;
}) {
  const { t } = useI18n();
  const sendable = canSend && value.trim() !== "";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (sendable) onSend();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    if (sendable) onSend();
  };
  return (
    <form onSubmit={submit} className="answer-form">
      <label htmlFor="clarify-answer">{t("clarify.answer")}</label>
      <textarea
        id="clarify-answer"
        ref={ref}
        rows={3}
        maxLength={4000}
        value={value}
        aria-describedby="clarify-answer-hint"
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <p id="clarify-answer-hint" className="muted small">
        {canSend ? t("clarifyChat.keys") : t("clarifyChat.waitForQuestions")}
      </p>
      <div className="actions">
        <button type="submit" className="primary" disabled={!sendable}>
          {t("clarify.send")}
        </button>
        <button type="button" disabled={!canSend} onClick={onEnd}>
          {t("clarify.end")}
        </button>
      </div>
    </form>
  );
}
