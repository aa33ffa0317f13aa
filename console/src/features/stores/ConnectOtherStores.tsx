import { useState, type FormEvent } from "react";
import { useMutation } from "urql";
import { graphql } from "../../gql/index.ts";
import { formatDateTime } from "../../shared/i18n/format.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useConsole } from "../../shared/session/console-context.tsx";
import { mutationErrorMessage } from "../../shared/ui/errors.tsx";

const ConnectWooCommerceDocument = graphql(`
  mutation ConnectWooCommerceStore($input: ConnectWooCommerceStoreInput!) {
    connectWooCommerceStore(input: $input) {
      connection {
        id
        status
      }
      userErrors {
        code
        message
        field
      }
    }
  }
`);

const CreateSallaLinkCodeDocument = graphql(`
  mutation CreateSallaLinkCode($mode: KeyMode!) {
    createSallaLinkCode(mode: $mode) {
      code
      expiresAt
      userErrors {
        code
        message
      }
    }
  }
`);

type Fields = "url" | "consumerKey" | "consumerSecret";
const fieldOf = (field: readonly string[] | null | undefined) => (field ?? []).filter((part) => part !== "input").join(".");

/** WooCommerce (SPEC §13): the store's address and a REST key; the server checks it and creates the webhook. */
export function ConnectWooCommerceForm({ onConnected }: { onConnected(): void }) {
  const { t } = useI18n();
  const { mode } = useConsole();
  const [values, setValues] = useState<Record<Fields, string>>({ url: "", consumerKey: "", consumerSecret: "" });
  const [errors, setErrors] = useState<{ field: string; message: string }[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [connected, setConnected] = useState(false);
  const [state, connect] = useMutation(ConnectWooCommerceDocument);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setConnected(false);
    const outcome = await connect({ input: { ...values, mode: mode === "live" ? "LIVE" : "TEST" } });
    const userErrors = outcome.data?.connectWooCommerceStore.userErrors ?? [];
    setMessage(mutationErrorMessage(outcome.error, t));
    setErrors(userErrors.map((error) => ({ field: fieldOf(error.field), message: error.message })));
    if (!outcome.error && userErrors.length === 0) {
      setConnected(true);
      setValues({ url: "", consumerKey: "", consumerSecret: "" });
      onConnected();
    }
  };
  const errorOf = (field: string) => errors.filter((error) => error.field === field).map((error) => error.message).join("; ");
  const unplaced = errors.filter((error) => !["url", "consumerKey", "consumerSecret"].includes(error.field));
  const input = (field: Fields, label: "stores.wooUrl" | "stores.wooKey" | "stores.wooSecret", type = "text", placeholder = "") => (
    <label>
      {t(label)}
      <input
        name={`woo-${field}`}
        type={type}
        dir="ltr"
        value={values[field]}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        onChange={(event) => setValues({ ...values, [field]: event.target.value })}
        aria-invalid={errorOf(field) ? "true" : undefined}
      />
      <span className="field-error">{errorOf(field)}</span>
    </label>
  );
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="connect-woocommerce" noValidate data-testid="connect-woocommerce">
      <h2 id="connect-woocommerce">{t("stores.connectWooCommerce")}</h2>
      <p className="small muted">{t("stores.wooIntro")}</p>
      {input("url", "stores.wooUrl", "url", "https://shop.example.com")}
      {input("consumerKey", "stores.wooKey", "text", "ck_…")}
      {input("consumerSecret", "stores.wooSecret", "password", "cs_…")}
      {message || unplaced.length ? (
        <p className="error" role="alert">
          {[message, ...unplaced.map((error) => error.message)].filter(Boolean).join("; ")}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="primary" disabled={state.fetching}>
          {t("stores.wooConnect")}
        </button>
        {connected ? (
          <span className="success" role="status">
            {t("stores.wooConnected")}
          </span>
        ) : null}
      </div>
    </form>
  );
}

/** Salla (SPEC §13): a one-time link code the merchant types into our app's settings on Salla. */
export function SallaLinkCodeCard() {
  const { t, language } = useI18n();
  const { mode } = useConsole();
  const [code, setCode] = useState<{ code: string; expiresAt: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [state, create] = useMutation(CreateSallaLinkCodeDocument);
  const onCreate = async () => {
    const outcome = await create({ mode: mode === "live" ? "LIVE" : "TEST" });
    const payload = outcome.data?.createSallaLinkCode;
    setMessage(mutationErrorMessage(outcome.error, t) ?? (payload?.userErrors.map((error) => error.message).join("; ") || null));
    setCode(payload?.code && payload.expiresAt ? { code: payload.code, expiresAt: payload.expiresAt } : null);
  };
  return (
    <section className="card stack" aria-labelledby="connect-salla" data-testid="connect-salla">
      <h2 id="connect-salla">{t("stores.connectSalla")}</h2>
      <p className="small muted">{t("stores.sallaIntro")}</p>
      {message ? (
        <p className="error" role="alert">
          {message}
        </p>
      ) : null}
      {code ? (
        <p role="status">
          {t("stores.sallaCode")}:{" "}
          <bdi dir="ltr">
            <code className="link-code" data-testid="salla-link-code">
              {code.code}
            </code>
          </bdi>{" "}
          <span className="muted small">{t("stores.sallaExpires", { date: formatDateTime(code.expiresAt, language) })}</span>
        </p>
      ) : null}
      <div className="button-row">
        <button type="button" className="primary" onClick={onCreate} disabled={state.fetching}>
          {t("stores.sallaCreate")}
        </button>
      </div>
    </section>
  );
}
