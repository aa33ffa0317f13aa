import { useEffect, useRef, useState, type ReactNode } from "react";
import { useI18n } from "../i18n/i18n.tsx";

/**
 * A modal on the native <dialog>: showModal() makes the rest of the page inert (focus stays inside), Escape
 * closes it, and focus returns to the element that opened it.
 */
export function Dialog(props: { title: string; onClose(): void; children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    return () => {
      dialog?.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="dialog-title"
      data-testid={props.testId}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** "Are you sure?" with the destructive action named on its button. */
export function ConfirmDialog(props: {
  title: string;
  message: string;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm(): void;
  onClose(): void;
}) {
  const { t } = useI18n();
  return (
    <Dialog title={props.title} onClose={props.onClose} testId="confirm-dialog">
      <p>{props.message}</p>
      {props.error ? (
        <p className="error" role="alert">
          {props.error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" onClick={props.onClose} autoFocus>
          {t("common.cancel")}
        </button>
        <button type="button" className="danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

/** A secret (API key, webhook signing secret) shown once, with a copy button. */
export function SecretDialog(props: { title: string; secret: string; onClose(): void }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied(true);
    } catch {
      // Clipboard refused (permissions): select the text so Ctrl+C works.
      const code = document.getElementById("secret-value");
      if (code) window.getSelection()?.selectAllChildren(code);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose} testId="secret-dialog">
      <p className="warning">{t("secret.once")}</p>
      <code id="secret-value" className="secret" dir="ltr">
        {props.secret}
      </code>
      <div className="dialog-actions">
        <button type="button" onClick={copy} autoFocus>
          {copied ? t("common.copied") : t("common.copy")}
        </button>
        <button type="button" onClick={props.onClose}>
          {t("common.close")}
        </button>
      </div>
    </Dialog>
  );
}
