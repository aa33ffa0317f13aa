import { useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useConsole } from "../../shared/session/console-context.tsx";
import { signIn } from "../../shared/session/session-api.ts";

/** Where to go after signing in: only a path inside the console (never another site). */
function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/sign-in") ? next : "/"; // "/": each role's home (App.tsx)
}

export function SignInPage() {
  const { t, language, setLanguage } = useI18n();
  const { restart } = useConsole();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; status: number } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(email, password, language);
    setBusy(false);
    if (result.ok) {
      restart(true);
      navigate(safeNext(params.get("next")), { replace: true });
      return;
    }
    // 401 and 429 bodies carry a localised message (429: "try again in N seconds").
    setError({ status: result.status, message: result.status === 0 ? t("signIn.network") : (result.message ?? t("signIn.failed")) });
    setPassword("");
  };

  return (
    <main className="sign-in" id="main">
      <form className="card sign-in-card" onSubmit={submit} noValidate>
        <div className="sign-in-top">
          <h1>{t("signIn.title")}</h1>
          <button type="button" className="link-button" onClick={() => setLanguage(language === "en" ? "ar" : "en")}>
            {t("language.switchTo")}
          </button>
        </div>
        {params.get("next") ? (
          <p className="muted" role="status" data-testid="session-ended">
            {t("signIn.expired")}
          </p>
        ) : null}
        <label>
          {t("signIn.email")}
          <input
            type="email"
            name="email"
            autoComplete="username"
            dir="ltr"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "sign-in-error" : undefined}
            autoFocus
          />
        </label>
        <label>
          {t("signIn.password")}
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            dir="ltr"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "sign-in-error" : undefined}
          />
        </label>
        {error ? (
          <p className="error" id="sign-in-error" role="alert" data-status={error.status}>
            {error.message}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy || !email || !password}>
          {busy ? t("signIn.submitting") : t("signIn.submit")}
        </button>
      </form>
    </main>
  );
}
