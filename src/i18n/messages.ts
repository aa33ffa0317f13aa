/**
 * Every text a client can read, in English and Arabic. Keys are stable; transports pick the language
 * from Accept-Language and fill in the parameters.
 */
export type Language = "en" | "ar";
export const LANGUAGES: readonly Language[] = ["en", "ar"];

type Params = Record<string, string | number>;
type Template = string | ((params: Params) => string);

const catalog: Record<string, Record<Language, Template>> = {
  // error bodies
  "error.NOT_FOUND": { en: "Order not found", ar: "الطلب غير موجود" },
  "error.NOT_FOUND.route": { en: "Route not found", ar: "المسار غير موجود" },
  "error.NOT_FOUND.merchant": { en: "Merchant not found", ar: "التاجر غير موجود" },
  "error.NOT_FOUND.apiKey": { en: "API key not found", ar: "مفتاح API غير موجود" },
  "error.NOT_FOUND.webhookEndpoint": { en: "Webhook endpoint not found", ar: "نقطة استقبال الويب هوك غير موجودة" },
  "error.NOT_FOUND.webhookDelivery": { en: "Webhook delivery not found", ar: "عملية تسليم الويب هوك غير موجودة" },
  "error.UNAUTHORIZED.missing": {
    en: "Missing API key: send it in the X-API-Key header",
    ar: "مفتاح API مفقود: أرسله في الترويسة X-API-Key",
  },
  "error.UNAUTHORIZED.invalid": { en: "Invalid or revoked API key", ar: "مفتاح API غير صالح أو تم إلغاؤه" },
  "error.UNAUTHORIZED.metrics_token": {
    en: "/metrics needs the METRICS_TOKEN as a bearer token (Authorization: Bearer <token>)",
    ar: "تتطلب ‎/metrics رمز METRICS_TOKEN كرمز حامل (Authorization: Bearer <token>)",
  },
  "error.UNAUTHORIZED.credentials": { en: "Wrong e-mail or password", ar: "البريد الإلكتروني أو كلمة المرور غير صحيحة" },
  "error.UNAUTHORIZED.session": {
    en: "Your session has expired or was signed out: sign in again",
    ar: "انتهت صلاحية جلستك أو تم تسجيل الخروج منها: سجّل الدخول مرة أخرى",
  },
  "error.NOT_FOUND.user": { en: "User not found", ar: "المستخدم غير موجود" },
  "error.FORBIDDEN.viewer": {
    en: "Your role (viewer) may only read: ask an admin of your merchant to make this change",
    ar: "دورك (مشاهد) يسمح بالقراءة فقط: اطلب من أحد مسؤولي حسابك إجراء هذا التغيير",
  },
  "error.FORBIDDEN.agent": {
    en: "Your role (agent) works on orders: keys, webhooks, settings, stores, users and the audit log are for admins",
    ar: "دورك (موظف متابعة) يعمل على الطلبات: المفاتيح وخطافات الويب والإعدادات والمتاجر والمستخدمون وسجل التدقيق للمسؤولين فقط",
  },
  "error.TRUSTED_DOCUMENTS.unknown": {
    en: "This operation is not one of the console's: reload the console to get its current version",
    ar: "هذه العملية ليست من عمليات لوحة التحكم: أعد تحميل اللوحة للحصول على إصدارها الحالي",
  },
  "error.TRUSTED_DOCUMENTS.required": {
    en: "A console session may run only the console's own operations (trusted documents); use an API key for other queries",
    ar: "لا يمكن لجلسة لوحة التحكم تنفيذ إلا عمليات اللوحة نفسها (مستندات موثوقة)؛ استخدم مفتاح API للاستعلامات الأخرى",
  },
  "error.TRUSTED_DOCUMENTS.explorer_admin_only": {
    en: "Here only admins may run their own queries in the API explorer; a viewer can read the schema, or use an API key",
    ar: "يمكن للمسؤولين فقط هنا تنفيذ استعلاماتهم الخاصة في مستكشف API؛ يمكن للمشاهد قراءة المخطط أو استخدام مفتاح API",
  },
  "error.FORBIDDEN.origin": {
    en: "Requests from this origin may not sign in or use a console session",
    ar: "لا يُسمح للطلبات القادمة من هذا المصدر بتسجيل الدخول أو استخدام جلسة لوحة التحكم",
  },
  "error.FORBIDDEN.mode": {
    en: (p) => `You are working in ${p.mode} mode: switch to ${p.requested} mode to manage ${p.requested} keys`,
    ar: (p) => `أنت تعمل في وضع ${p.mode}: انتقل إلى وضع ${p.requested} لإدارة مفاتيح ${p.requested}`,
  },
  "error.FORBIDDEN.api_key": {
    en: "API keys cannot create or revoke API keys or manage console users: an admin does it in the console (or an operator with ocs)",
    ar: "لا يمكن لمفاتيح API إنشاء مفاتيح API أو إلغاؤها أو إدارة مستخدمي لوحة التحكم: يقوم بذلك مسؤول في لوحة التحكم (أو المشغّل عبر ocs)",
  },
  "error.FORBIDDEN.admin_only": {
    en: "Only an admin of your merchant may see this",
    ar: "لا يمكن رؤية هذا إلا لمسؤول في حسابك",
  },
  "error.FORBIDDEN.test_mode_only": {
    en: "This endpoint needs a test-mode API key (ek_test_…)",
    ar: "تتطلب نقطة النهاية هذه مفتاح API لوضع الاختبار (ek_test_…)",
  },
  "error.VALIDATION_ERROR": {
    en: (p) => `The request is invalid: ${p.details}`,
    ar: (p) => `الطلب غير صالح: ${p.details}`,
  },
  "error.WEBHOOK_ENDPOINT_LIMIT_REACHED": {
    en: (p) => `At most ${p.limit} webhook endpoints can be registered per mode; delete one first`,
    ar: (p) => `يمكن تسجيل ${p.limit} نقطة استقبال ويب هوك كحد أقصى لكل وضع؛ احذف واحدة أولًا`,
  },
  "error.UNSUPPORTED_MEDIA_TYPE": {
    en: "Content-Type must be application/json",
    ar: "يجب أن يكون نوع المحتوى (Content-Type) هو application/json",
  },
  "error.PAYLOAD_TOO_LARGE": {
    en: "The request body is larger than 1 MiB",
    ar: "حجم جسم الطلب أكبر من 1 ميغابايت",
  },
  "error.DUPLICATE_EXTERNAL_ORDER_ID": {
    en: (p) => `An order with externalOrderId "${p.externalOrderId}" already exists`,
    ar: (p) => `يوجد طلب بالمعرّف الخارجي "${p.externalOrderId}" مسبقًا`,
  },
  "error.ORDER_NOT_PENDING": {
    en: (p) => `The order is ${p.status} and is no longer pending`,
    ar: (p) => `حالة الطلب ${p.status} ولم يعد قيد الانتظار`,
  },
  "error.CONVERSATION_CLOSED": {
    en: "The customer's 24-hour window is closed: WhatsApp only delivers a reply within 24 hours of the customer's last message",
    ar: "انتهت نافذة الـ24 ساعة: لا يوصل واتساب الرد إلا خلال 24 ساعة من آخر رسالة من العميل",
  },
  "error.IDEMPOTENCY_KEY_REUSED": {
    en: "This Idempotency-Key was already used with a different request",
    ar: "تم استخدام مفتاح Idempotency-Key هذا مسبقًا مع طلب مختلف",
  },
  "error.IDEMPOTENCY_KEY_IN_USE": {
    en: "A request with this Idempotency-Key is still being processed; retry shortly",
    ar: "ما زال طلب بمفتاح Idempotency-Key هذا قيد المعالجة؛ أعد المحاولة بعد قليل",
  },
  "error.RATE_LIMITED": {
    en: (p) => `Too many requests: retry in ${p.seconds} seconds`,
    ar: (p) => `عدد الطلبات كبير جدًا: أعد المحاولة بعد ${p.seconds} ثانية`,
  },
  "error.PROVIDER_REJECTED": {
    en: (p) => `The confirmation message could not be sent: ${p.failureReason}`,
    ar: (p) => `تعذّر إرسال رسالة التأكيد: ${p.failureReason}`,
  },
  "error.PROVIDER_UNAVAILABLE.unreachable": {
    en: (p) => `The messaging provider is unavailable; the order was stored as failed: ${p.failureReason}`,
    ar: (p) => `مزوّد الرسائل غير متاح؛ تم حفظ الطلب بحالة فاشلة: ${p.failureReason}`,
  },
  "error.PROVIDER_UNAVAILABLE.not_configured": {
    en: "WhatsApp is not configured for live mode (set WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN and WHATSAPP_APP_SECRET); the order was stored as failed",
    ar: "واتساب غير مُعدّ للوضع الحقيقي (اضبط WHATSAPP_PHONE_NUMBER_ID و WHATSAPP_ACCESS_TOKEN و WHATSAPP_APP_SECRET)؛ تم حفظ الطلب بحالة فاشلة",
  },
  "error.INTERNAL_ERROR": {
    en: (p) => `An unexpected error occurred; quote request id ${p.requestId} when reporting it`,
    ar: (p) => `حدث خطأ غير متوقع؛ اذكر رقم الطلب ${p.requestId} عند الإبلاغ عنه`,
  },
  "error.SERVICE_UNAVAILABLE": {
    en: (p) => `The service is temporarily unavailable; retry in ${p.seconds} seconds`,
    ar: (p) => `الخدمة غير متاحة مؤقتًا؛ أعد المحاولة بعد ${p.seconds} ثوانٍ`,
  },
  "error.WEBSOCKET_SUBSCRIPTIONS_ONLY": {
    en: "Only subscriptions are served over the websocket; send queries and mutations with HTTP POST /graphql",
    ar: "يقدّم اتصال websocket الاشتراكات فقط؛ أرسل الاستعلامات والتعديلات عبر HTTP POST /graphql",
  },
  "error.OPERATION_NOT_FOUND": {
    en: (p) => `The document has no operation named "${p.name}"`,
    ar: (p) => `لا يحتوي المستند على عملية باسم "${p.name}"`,
  },
  "error.OPERATION_NAME_REQUIRED": {
    en: "The document has several operations: say which to run with operationName",
    ar: "يحتوي المستند على عدة عمليات: حدّد العملية المطلوب تنفيذها عبر operationName",
  },
  "error.SESSION_POST_ONLY": {
    en: "Console sessions run GraphQL over POST only",
    ar: "تنفّذ جلسات لوحة التحكم طلبات GraphQL عبر POST فقط",
  },
  "error.SUBSCRIPTIONS_OVER_WEBSOCKET": {
    en: "Subscriptions are served over the websocket at /graphql (protocol graphql-transport-ws), not over HTTP",
    ar: "تُقدَّم الاشتراكات عبر websocket على المسار /graphql (البروتوكول graphql-transport-ws)، وليس عبر HTTP",
  },
  "error.TOO_MANY_SUBSCRIPTIONS": {
    en: (p) => `Too many subscriptions on this connection (at most ${p.max})`,
    ar: (p) => `عدد الاشتراكات على هذا الاتصال كبير جدًا (الحد الأقصى ${p.max})`,
  },
  // field problems (validation details)
  "field.required": { en: "is required", ar: "حقل مطلوب" },
  "field.ocs_mode": { en: "must be test or live", ar: "يجب أن تكون test أو live" },
  "field.type.string": { en: "must be a string", ar: "يجب أن يكون نصًا" },
  "field.type.number": { en: "must be a number", ar: "يجب أن يكون رقمًا" },
  "field.type.array": { en: "must be an array", ar: "يجب أن يكون مصفوفة" },
  "field.type.object": { en: "must be an object", ar: "يجب أن يكون كائنًا" },
  "field.type.integer": { en: "must be an integer", ar: "يجب أن يكون عددًا صحيحًا" },
  "field.type.boolean": { en: "must be true or false", ar: "يجب أن تكون القيمة true أو false" },
  "field.type": { en: (p) => `must be of type ${p.expected}`, ar: (p) => `يجب أن يكون من النوع ${p.expected}` },
  "field.string.min": {
    en: (p) => (Number(p.min) <= 1 ? "must not be empty" : `must be at least ${p.min} characters`),
    ar: (p) => (Number(p.min) <= 1 ? "يجب ألا يكون فارغًا" : `يجب ألا يقل عن ${p.min} حرفًا`),
  },
  "field.string.max": { en: (p) => `must be at most ${p.max} characters`, ar: (p) => `يجب ألا يزيد على ${p.max} حرفًا` },
  "field.array.min": { en: (p) => `must contain at least ${p.min} item(s)`, ar: (p) => `يجب أن يحتوي على ${p.min} عنصر على الأقل` },
  "field.array.max": { en: (p) => `must contain at most ${p.max} items`, ar: (p) => `يجب ألا يحتوي على أكثر من ${p.max} عنصر` },
  "field.number.gt": { en: (p) => `must be greater than ${p.min}`, ar: (p) => `يجب أن يكون أكبر من ${p.min}` },
  "field.number.gte": { en: (p) => `must be at least ${p.min}`, ar: (p) => `يجب ألا يقل عن ${p.min}` },
  "field.number.lte": { en: (p) => `must be at most ${p.max}`, ar: (p) => `يجب ألا يزيد على ${p.max}` },
  "field.number.lt": { en: (p) => `must be less than ${p.max}`, ar: (p) => `يجب أن يكون أقل من ${p.max}` },
  "field.number.nonnegative": { en: "must be zero or more", ar: "يجب أن يكون صفرًا أو أكثر" },
  "field.number.max_money": { en: "must be at most 1000000000000", ar: "يجب ألا يزيد على 1000000000000" },
  "field.number.decimals": { en: "must have at most 4 decimal places", ar: "يجب ألا يتجاوز 4 منازل عشرية" },
  "field.number.precision": {
    en: "must have at most 15 significant digits (larger amounts cannot be received exactly as JSON numbers)",
    ar: "يجب ألا يتجاوز 15 رقمًا معنويًا (لا يمكن استلام المبالغ الأكبر بدقة كأرقام JSON)",
  },
  "field.number.finite": { en: "must be a finite number", ar: "يجب أن يكون رقمًا منتهيًا" },
  "field.format.phone": {
    en: "must be 8–15 digits with the country code, without + or a leading 0",
    ar: "يجب أن يتكون من 8 إلى 15 رقمًا مع رمز الدولة، بدون + وبدون صفر في البداية",
  },
  "field.format.currency": {
    en: "must be a 3-letter ISO 4217 currency code",
    ar: "يجب أن يكون رمز عملة من 3 أحرف وفق ISO 4217",
  },
  "field.format.datetime": {
    en: "must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z",
    ar: "يجب أن يكون تاريخًا ووقتًا بصيغة ISO 8601 مثل 2026-01-31T12:00:00Z",
  },
  "field.store.tag": {
    en: "must be at most 40 characters, without commas",
    ar: "يجب ألا يزيد على 40 حرفًا وبدون فواصل",
  },
  "field.store.url": {
    en: "must be your store's address, e.g. https://shop.example.com",
    ar: "يجب أن يكون عنوان متجرك، مثل https://shop.example.com",
  },
  "field.store.https_required": {
    en: "must start with https:// (the key and secret would otherwise travel unencrypted)",
    ar: "يجب أن يبدأ بـ https:// (وإلا أُرسل المفتاح والسر دون تشفير)",
  },
  "field.store.private_address": {
    en: "points to a private or internal address, which is not allowed",
    ar: "يشير إلى عنوان خاص أو داخلي، وهذا غير مسموح",
  },
  "field.store.credentials_in_url": {
    en: "must not contain a user name or password",
    ar: "يجب ألا يحتوي على اسم مستخدم أو كلمة مرور",
  },
  "field.store.not_woocommerce": (() => {
    const en = (p: Params) => `did not answer as a WooCommerce store (REST API v3 at /wp-json/wc/v3/)${p.detail ? `: ${p.detail}` : ""}`;
    const ar = (p: Params) => `لم يستجب كمتجر WooCommerce (واجهة REST v3 على ‎/wp-json/wc/v3/‎)${p.detail ? `: ${p.detail}` : ""}`;
    return { en, ar };
  })(),
  "field.store.unreachable": {
    en: (p) => `could not be reached${p.detail ? ` (${p.detail})` : ""}: check the address and try again`,
    ar: (p) => `تعذّر الوصول إليه${p.detail ? ` (${p.detail})` : ""}: تحقّق من العنوان وحاول مرة أخرى`,
  },
  "field.store.bad_credentials": {
    en: "was refused by the store (with its secret): use a REST API key with Read/Write permissions (WooCommerce → Settings → Advanced → REST API)",
    ar: "رفضه المتجر (مع السر): استخدم مفتاح REST API بصلاحيات القراءة والكتابة (WooCommerce ← الإعدادات ← متقدم ← REST API)",
  },
  "field.store.webhook_failed": {
    en: (p) => `the store did not create the order webhook${p.detail ? ` (${p.detail})` : ""}`,
    ar: (p) => `لم ينشئ المتجر الويب هوك الخاص بالطلبات${p.detail ? ` (${p.detail})` : ""}`,
  },
  "field.store.already_connected": {
    en: "this store is connected to another account or mode: disconnect it there first",
    ar: "هذا المتجر مرتبط بحساب أو وضع آخر: افصله هناك أولًا",
  },
  "field.store.not_configured": {
    en: (p) => `${p.platform} is not configured on this server`,
    ar: (p) => `${p.platform} غير مهيأ على هذا الخادم`,
  },
  "field.format.woocommerce_key": {
    en: "must be a WooCommerce consumer key (ck_…)",
    ar: "يجب أن يكون مفتاح مستهلك WooCommerce (ck_…)",
  },
  "field.format.woocommerce_secret": {
    en: "must be a WooCommerce consumer secret (cs_…)",
    ar: "يجب أن يكون سر مستهلك WooCommerce (cs_…)",
  },
  "error.SALLA_LINK_CODES": {
    en: "Too many unused Salla link codes: use one, or wait for them to expire (24 hours)",
    ar: "رموز ربط سلة غير المستخدمة كثيرة: استخدم أحدها أو انتظر انتهاء صلاحيتها (24 ساعة)",
  },
  "field.format.cursor": { en: "is not a cursor returned by this API", ar: "ليس مؤشرًا صادرًا عن هذه الواجهة" },
  "field.format.email": { en: "is not an e-mail address", ar: "ليس عنوان بريد إلكتروني صالحًا" },
  "field.format.id": { en: "is not an id returned by this API", ar: "ليس معرّفًا صادرًا عن هذه الواجهة" },
  "field.format.idempotency_key": {
    en: "must be 1–255 visible ASCII characters",
    ar: "يجب أن يتكون من 1 إلى 255 حرفًا مرئيًا من ASCII",
  },
  "field.enum": { en: (p) => `must be one of: ${p.values}`, ar: (p) => `يجب أن يكون أحد القيم: ${p.values}` },
  "field.format.webhook_url": {
    en: "must be an absolute http:// or https:// URL",
    ar: "يجب أن يكون عنوان URL كاملًا يبدأ بـ http:// أو https://",
  },
  "field.webhook_url.credentials": {
    en: "must not contain a user name or password",
    ar: "يجب ألا يحتوي على اسم مستخدم أو كلمة مرور",
  },
  "field.webhook_url.private_address": {
    en: "must not point to a loopback, private, link-local or internal address",
    ar: "يجب ألا يشير إلى عنوان محلي أو خاص أو داخلي",
  },
  "field.text.nul": {
    en: "must not contain the NUL character (\\u0000)",
    ar: "يجب ألا يحتوي على المحرف NUL (\\u0000)",
  },
  "field.text.surrogate": {
    en: "must be valid Unicode text (it contains an unpaired surrogate)",
    ar: "يجب أن يكون نص Unicode صالحًا (يحتوي على بديل غير مقترن)",
  },
  "field.datetime.range": {
    en: "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z",
    ar: "يجب أن يكون بين 0001-01-01T00:00:00Z و9999-12-31T23:59:59.999Z",
  },
  "field.json": { en: "must be a valid JSON object", ar: "يجب أن يكون كائن JSON صالحًا" },
  "field.invalid": { en: "is invalid", ar: "قيمة غير صالحة" },
  "field.unknown": { en: "is not a known field", ar: "ليس حقلًا معروفًا" },
  "field.format.policy_delay": {
    en: "must be a delay such as 30m, 2h or 1d (a whole number followed by s, m, h or d)",
    ar: "يجب أن يكون مدة مثل 30m أو 2h أو 1d (عدد صحيح يليه s أو m أو h أو d)",
  },
  "field.policy.delay_range": {
    en: (p) => `must be from ${p.min} to ${p.max}`,
    ar: (p) => `يجب أن تكون المدة بين ${p.min} و ${p.max}`,
  },
  "field.policy.reminders_increasing": {
    en: "must be later than the reminder before it (reminders are strictly increasing)",
    ar: "يجب أن يكون بعد التذكير السابق (التذكيرات تصاعدية تمامًا)",
  },
  "field.policy.expiry_after_reminders": {
    en: "must be later than the last reminder",
    ar: "يجب أن يكون بعد آخر تذكير",
  },
  "field.format.blank": { en: "must not be only spaces", ar: "يجب ألا يكون مسافات فقط" },
  "field.format.text": { en: "contains characters that cannot be stored", ar: "يحتوي على أحرف لا يمكن حفظها" },
  "field.format.clock_time": { en: "must be a 24-hour time such as 22:00", ar: "يجب أن يكون وقتًا بنظام 24 ساعة مثل 22:00" },
  "field.format.time_zone": {
    en: "must be an IANA time zone such as Africa/Cairo",
    ar: "يجب أن تكون منطقة زمنية من قاعدة IANA مثل Africa/Cairo",
  },
  "field.stats.range_order": { en: "must be later than from", ar: "يجب أن يكون بعد from" },
  "field.stats.range_length": {
    en: (p) => `must be at most ${p.days} days after from (interval ${p.interval})`,
    ar: (p) => `يجب ألا يتجاوز ${p.days} يومًا بعد from (الفاصل ${p.interval})`,
  },
  "field.format.no_nul": { en: "must not contain NUL characters", ar: "يجب ألا يحتوي على محرف NUL" },
  "field.policy.quiet_hours_empty": {
    en: "must differ from start",
    ar: "يجب أن يختلف عن وقت البداية",
  },
  "field.unknown_action": { en: "must be approve or cancel", ar: "يجب أن يكون approve أو cancel" },
};

export function hasMessage(key: string): boolean {
  return key in catalog;
}

export function translate(key: string, language: Language, params: Params = {}): string {
  const entry = catalog[key] ?? catalog["field.invalid"];
  const template = entry[language] ?? entry.en;
  return typeof template === "function" ? template(params) : template;
}

/** The list separator used when several problems are joined into one message. */
export const LIST_SEPARATOR: Record<Language, string> = { en: "; ", ar: "؛ " };
