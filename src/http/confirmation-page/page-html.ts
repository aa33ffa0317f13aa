import type { PageOrder } from "../../domain/confirmation-page/confirmation-page.repository.ts";
import { formatMoney } from "../../domain/messaging/confirmation-text.ts";
import type { Language } from "../../domain/messaging/messaging-provider.ts";
import { PAGE_TEXT } from "./page-text.ts";

/**
 * The confirmation page as plain HTML: no script at all, one same-origin stylesheet, a form whose two buttons
 * post the answer. Every value from the order is escaped and isolated (<bdi>) so a name in another script
 * never reorders the page around it.
 */
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
const bdi = (text: string) => `<bdi>${escapeHtml(text)}</bdi>`;

/** Relative links: they work under any PUBLIC_BASE_URL path prefix (the page lives at <base>/c/<token>). */
const STYLESHEET = "assets/page.css";

function documentOf(language: Language, title: string, body: string): string {
  const dir = language === "ar" ? "rtl" : "ltr";
  const switcher =
    language === "ar"
      ? `<a href="?lang=en" hreflang="en" lang="en">English</a>`
      : `<a href="?lang=ar" hreflang="ar" lang="ar">العربية</a>`;
  return `<!doctype html>
<html lang="${language}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${STYLESHEET}">
</head>
<body>
<nav class="language">${switcher}</nav>
<main>
${body}
</main>
</body>
</html>
`;
}

export function renderOrderPage(page: PageOrder, language: Language): string {
  const t = PAGE_TEXT[language];
  const { order } = page;
  const money = (amount: number) => bdi(formatMoney(amount, order.currency, language));
  const items = order.items
    .map((item) => {
      const variant = item.variantName ? `<span class="variant">${bdi(item.variantName)}</span>` : "";
      return `<li><span class="name">${bdi(item.productName)}${variant}</span><span class="qty">${escapeHtml(t.quantity)} ${item.quantity}</span><span class="price">${money(item.totalPrice)}</span></li>`;
    })
    .join("\n");
  const address = order.customerAddress
    ? `<section class="address"><h2>${escapeHtml(t.address)}</h2><p>${bdi(order.customerAddress)}</p></section>`
    : "";
  const answer =
    order.status === "pending"
      ? `<p class="intro">${escapeHtml(t.intro)}</p>
<form method="post" action="?lang=${language}" class="answer">
<button type="submit" name="action" value="approve" class="approve">${escapeHtml(t.approve)}</button>
<button type="submit" name="action" value="cancel" class="cancel">${escapeHtml(t.cancel)}</button>
</form>`
      : `<p class="status status-${order.status}" role="status">${escapeHtml(t.status[order.status])}</p>`;
  const heading = order.status === "pending" ? t.title : t.closedTitle;
  const body = `<header>
<p class="shop">${bdi(page.merchantName)}</p>
<h1>${escapeHtml(heading)}</h1>
<p class="ref">${escapeHtml(t.order)} ${bdi(order.externalOrderId)}</p>
</header>
${order.status === "pending" ? "" : answer}
<section class="items">
<h2>${escapeHtml(t.items)}</h2>
<ul>
${items}
</ul>
<dl class="totals">
<div><dt>${escapeHtml(t.subtotal)}</dt><dd>${money(order.subtotal)}</dd></div>
<div><dt>${escapeHtml(t.shipping)}</dt><dd>${money(order.shippingCost)}</dd></div>
<div class="total"><dt>${escapeHtml(t.total)}</dt><dd>${money(order.totalCost)}</dd></div>
</dl>
</section>
${address}
${order.status === "pending" ? answer : ""}`;
  return documentOf(language, `${heading} · ${page.merchantName}`, body);
}

export type ProblemPage = "notFound" | "forbidden" | "badRequest" | "rateLimited" | "unavailable";

export function renderProblemPage(problem: ProblemPage, language: Language): string {
  const t = PAGE_TEXT[language];
  const title = t[`${problem}Title`];
  return documentOf(language, title, `<header><h1>${escapeHtml(title)}</h1></header>\n<p class="status">${escapeHtml(t[problem])}</p>`);
}

/** Phone first: one column, large tap targets, readable from 320 px wide; logical properties for RTL. */
export const PAGE_CSS = `*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans Arabic",Tahoma,sans-serif;font-size:17px;line-height:1.5;color:#1b1f23;background:#f4f5f7}
nav.language{max-width:36rem;margin:0 auto;padding:.5rem 1rem;text-align:end}
nav.language a{color:#0b57d0;padding:.5rem;display:inline-block}
main{max-width:36rem;margin:0 auto 2rem;padding:1rem;background:#fff;border-radius:12px}
header .shop{margin:0;font-weight:600;color:#4a5560;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin:.25rem 0}
h2{font-size:1.05rem;margin:1rem 0 .5rem}
.ref{margin:0;color:#4a5560;overflow-wrap:anywhere}
ul{list-style:none;margin:0;padding:0}
li{display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:.5rem 0;border-bottom:1px solid #e3e6ea}
li .name{flex:1 1 12rem;overflow-wrap:anywhere}
li .variant{display:block;color:#4a5560;font-size:.9em}
li .qty{color:#4a5560}
li .price{margin-inline-start:auto;white-space:nowrap}
dl{margin:.75rem 0 0}
dl div{display:flex;justify-content:space-between;gap:1rem;padding:.2rem 0}
dt,dd{margin:0}
dl .total{font-weight:700;font-size:1.15em;border-top:2px solid #1b1f23;margin-top:.3rem;padding-top:.4rem}
.address p{margin:0;overflow-wrap:anywhere}
.intro{margin:1.25rem 0 .5rem}
form.answer{display:flex;flex-direction:column;gap:.75rem}
button{font:inherit;font-weight:600;min-height:48px;padding:.75rem 1rem;border-radius:10px;border:2px solid transparent;cursor:pointer;width:100%}
button.approve{background:#137333;color:#fff}
button.cancel{background:#fff;color:#a50e0e;border-color:#a50e0e}
button:focus-visible,a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.status{padding:.75rem 1rem;border-radius:10px;background:#eef1f4;margin:1rem 0}
.status-confirmed{background:#e6f4ea;color:#0d652d}
.status-canceled,.status-failed,.status-expired{background:#fce8e6;color:#a50e0e}
`;
