import type { FormEvent, ReactNode } from "react";

/** The modal both sign-in dialogs share: a titled, described dialog around one form. `id` prefixes the
 * title's and help's ids (the dialog's useId). */
export function SignInModal({
  id,
  title,
  help,
  onSubmit,
  children,
}: {
  id: string;
  title: string;
  help: string;
  onSubmit: (event: FormEvent) => void;
  children: ReactNode;
}) {
  return (
    <div className="modal-backdrop">
      <section
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-help`}
      >
        <h2 id={`${id}-title`}>{title}</h2>
        <p id={`${id}-help`}>{help}</p>
        <form onSubmit={onSubmit}>{children}</form>
      </section>
    </div>
  );
}
