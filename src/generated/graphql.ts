import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { OrderConnectionSource, OrderSource } from '../graphql/order-mapper.ts';
import type { StoreConnectionView } from '../domain/stores/store.service.ts';
import type { GraphQLContext } from '../graphql/context.ts';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** ISO 8601 timestamp. Output: UTC with milliseconds, e.g. 2026-11-22T08:58:58.971Z. Input: any ISO 8601 date-time with a time-zone offset (Z or ±hh:mm). */
  DateTime: { input: string; output: string; }
  /** Any JSON value (an object here: the details of a timeline step). */
  JSON: { input: Record<string, unknown>; output: Record<string, unknown>; }
};

/** How the customer gave an answer outside WhatsApp. */
export type AnswerChannel =
  /** In person (at the shop, at the door). */
  | 'IN_PERSON'
  /** Any other way. */
  | 'OTHER'
  /** A phone call. */
  | 'PHONE';

/** An API key as it may be shown after its creation: never the key itself. */
export type ApiKey = {
  __typename?: 'ApiKey';
  /** When the key was created. */
  createdAt: Scalars['DateTime']['output'];
  /** Assigned by the service. */
  id: Scalars['ID']['output'];
  /** When the key was last used (updated at most once a minute), or null if never. */
  lastUsedAt?: Maybe<Scalars['DateTime']['output']>;
  /** The key's mode: the mode of the orders it creates and sees. */
  mode: KeyMode;
  /** The first characters of the key (e.g. ek_test_Ab12), to recognise it. */
  prefix: Scalars['String']['output'];
  /** When the key was revoked, or null while it works. */
  revokedAt?: Maybe<Scalars['DateTime']['output']>;
};

/** The actor of an audit entry. */
export type AuditActor = {
  __typename?: 'AuditActor';
  /** The user's or key's id; null for the CLI. */
  id?: Maybe<Scalars['ID']['output']>;
  /** USER, API_KEY or CLI. */
  kind: AuditActorKind;
  /** The user's e-mail, the key's prefix, or the CLI command. */
  label: Scalars['String']['output'];
};

/** Who made a security-relevant change. */
export type AuditActorKind =
  /** An API key (id: the key's id, label: its prefix). */
  | 'API_KEY'
  /** The operator CLI (id: null, label: the command, e.g. `ocs keys create`). */
  | 'CLI'
  /** A console user (id: the user's id, label: the e-mail). */
  | 'USER';

/** One security-relevant change or sign-in of the merchant. */
export type AuditEntry = {
  __typename?: 'AuditEntry';
  /**
   * api_key.created, api_key.revoked, endpoint_secret.created, endpoint_secret.rotated, user.created, user.removed,
   * user.password_reset, sign_in.succeeded, sign_in.failed, store.connected or store.disconnected.
   */
  action: Scalars['String']['output'];
  /** Who did it. */
  actor: AuditActor;
  /** The client's address (as TRUST_PROXY lets the service judge it); null for the CLI. */
  address?: Maybe<Scalars['String']['output']>;
  /** When it happened. */
  at: Scalars['DateTime']['output'];
  /** Assigned by the service (increasing). */
  id: Scalars['ID']['output'];
  /** The affected object's id (the key, endpoint, user or store). */
  target?: Maybe<Scalars['ID']['output']>;
};

/** A page of the audit log, newest first (Relay connection). */
export type AuditEntryConnection = {
  __typename?: 'AuditEntryConnection';
  /** The entries of this page with their cursors, newest first. */
  edges: Array<AuditEntryEdge>;
  /** Where this page is in the log. */
  pageInfo: PageInfo;
};

/** One audit entry of a page and the cursor that continues after it. */
export type AuditEntryEdge = {
  __typename?: 'AuditEntryEdge';
  /** Opaque; pass it as `after` to continue after this entry. */
  cursor: Scalars['String']['output'];
  /** The entry. */
  node: AuditEntry;
};

/** Which entries auditLog returns; every given condition must hold. */
export type AuditLogFilter = {
  /** Only this action (e.g. sign_in.failed). */
  action?: InputMaybe<Scalars['String']['input']>;
  /** Only this actor: a user's or key's id, or `cli` for the operator CLI. */
  actorId?: InputMaybe<Scalars['ID']['input']>;
};

/** The result of cancelOrder. */
export type CancelOrderPayload = {
  __typename?: 'CancelOrderPayload';
  /** The canceled order (an already canceled one is returned unchanged); the order as it is on ORDER_NOT_PENDING; null on NOT_FOUND. */
  order?: Maybe<Order>;
  /** Empty on success. */
  userErrors: Array<UserError>;
};

/**
 * What happens when a customer stays silent, per merchant and mode. Delays are `<n>s`, `<n>m`, `<n>h` or `<n>d`,
 * counted from the moment the order became pending, each from CONFIRMATION_MIN_DELAY (default 5m) to 7d. A change
 * applies to orders created afterwards. The default is no reminders, no expiry, no quiet hours.
 */
export type ConfirmationPolicy = {
  __typename?: 'ConfirmationPolicy';
  /** When a still-pending order expires (status EXPIRED, event order.expired); null = never. Later than the last reminder. */
  expireAfter?: Maybe<Scalars['String']['output']>;
  /**
   * When a still-pending order joins the follow-up queue (OrderFilter.needsFollowUp): this long after the last message
   * to the customer. Default "2h"; same bounds as a reminder delay. It applies to the queue at once (it is a view, not
   * a scheduled action).
   */
  followUpAfter: Scalars['String']['output'];
  /** When reminders wait; null = any time. */
  quietHours?: Maybe<QuietHours>;
  /** 0–3 reminder delays after the first message, strictly increasing, e.g. ["2h", "12h"]. */
  reminders: Array<Scalars['String']['output']>;
  /** SMS fallback with the order's confirmation page when the first WhatsApp message fails with a listed code; null = off. */
  smsFallback?: Maybe<SmsFallback>;
};

/** A whole new policy: omitted fields take their defaults (no reminders, no expiry, no quiet hours). */
export type ConfirmationPolicyInput = {
  /** A delay later than the last reminder, or null for never. */
  expireAfter?: InputMaybe<Scalars['String']['input']>;
  /** A delay like a reminder's; omitted or null: the default "2h". */
  followUpAfter?: InputMaybe<Scalars['String']['input']>;
  /** Quiet hours, or null for none. */
  quietHours?: InputMaybe<QuietHoursInput>;
  /** 0–3 delays, strictly increasing, e.g. ["2h", "12h"]. */
  reminders?: InputMaybe<Array<Scalars['String']['input']>>;
  /** SMS fallback, or null (or omitted) for none. */
  smsFallback?: InputMaybe<SmsFallbackInput>;
};

/** A WooCommerce store to connect: its address and a REST API key with Read/Write permissions. */
export type ConnectWooCommerceStoreInput = {
  /** WooCommerce → Settings → Advanced → REST API: the consumer key (ck_…). */
  consumerKey: Scalars['String']['input'];
  /** The consumer secret (cs_…): stored encrypted, never shown again. */
  consumerSecret: Scalars['String']['input'];
  /** The mode whose orders this store creates: the caller's own mode. */
  mode: KeyMode;
  /** The store's address, https://shop.example.com (a WordPress folder such as https://example.com/shop is kept). */
  url: Scalars['String']['input'];
};

/** Whether the merchant may write to the customer now: WhatsApp delivers free-form messages only within 24 hours of the customer's last message. */
export type ConversationWindow = {
  __typename?: 'ConversationWindow';
  /** When the window closes (or closed); null when the customer never wrote. */
  closesAt?: Maybe<Scalars['DateTime']['output']>;
  /** The customer's last message about this order; null when there is none. */
  lastCustomerMessageAt?: Maybe<Scalars['DateTime']['output']>;
  /** True while the customer wrote about this order (text or tap) in the last 24 hours. */
  open: Scalars['Boolean']['output'];
};

/** How exact a count is. */
export type CountPrecision =
  /** A lower bound: at least this many (counting stopped there). */
  | 'AT_LEAST'
  /** The exact number. */
  | 'EXACT';

/** The result of createApiKey. */
export type CreateApiKeyPayload = {
  __typename?: 'CreateApiKeyPayload';
  /** The new key's record; null on a userError. */
  apiKey?: Maybe<ApiKey>;
  /** The full key (ek_test_… / ek_live_…): shown here once and never again. Null on a userError. */
  key?: Maybe<Scalars['String']['output']>;
  /** Empty on success; FORBIDDEN (field ["mode"]) when the mode is not the caller's. */
  userErrors: Array<UserError>;
};

/** A new order: the REST create body's fields and bounds. */
export type CreateOrderInput = {
  /** ISO 4217 code, any case (returned upper-case). */
  currency: Scalars['String']['input'];
  /** The delivery address (up to 500 characters). */
  customerAddress?: InputMaybe<Scalars['String']['input']>;
  /** The customer's name (1–120 characters). */
  customerName: Scalars['String']['input'];
  /** Country code and number, 8–15 digits, no + and no leading 0, e.g. 966501234567. */
  customerPhone: Scalars['String']['input'];
  /** Your own unique order identifier (1–100 characters, unique per merchant and mode). */
  externalOrderId: Scalars['String']['input'];
  /** The order's lines: 1–100. */
  items: Array<OrderItemInput>;
  /** A note for the merchant (up to 1000 characters): stored, never returned in responses or events. */
  note?: InputMaybe<Scalars['String']['input']>;
  /** Shipping cost: 0 to 1e12, at most 4 decimals and 15 significant digits. */
  shippingCost: Scalars['Float']['input'];
  /** Sum of the items: 0 to 1e12, at most 4 decimals and 15 significant digits. */
  subtotal: Scalars['Float']['input'];
  /** Amount the customer pays: 0 to 1e12, at most 4 decimals and 15 significant digits. */
  totalCost: Scalars['Float']['input'];
};

/** The result of createOrder. */
export type CreateOrderPayload = {
  __typename?: 'CreateOrderPayload';
  /**
   * The new order (PENDING, with customerAction and deliveryStatus null) when the provider accepted the
   * message; the order stored FAILED on PROVIDER_REJECTED or PROVIDER_UNAVAILABLE; null on any other userError.
   */
  order?: Maybe<Order>;
  /** Empty on success. */
  userErrors: Array<UserError>;
};

/** A new webhook endpoint: the REST body's fields and bounds. */
export type CreateWebhookEndpointInput = {
  /** Free text for your own records (up to 500 characters). */
  description?: InputMaybe<Scalars['String']['input']>;
  /** Default true. */
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
  /** Event names to receive; all of them when omitted. */
  events?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Also send x-webhook-signature-256 (body-only HMAC without a timestamp: replayable). Default false. */
  legacySignature?: InputMaybe<Scalars['Boolean']['input']>;
  /** http(s) URL (up to 2048 characters) that must not point to a private or internal address. */
  url: Scalars['String']['input'];
};

/** The result of createWebhookEndpoint. */
export type CreateWebhookEndpointPayload = {
  __typename?: 'CreateWebhookEndpointPayload';
  /** The new endpoint; null on a userError. */
  endpoint?: Maybe<WebhookEndpoint>;
  /** The signing secret (whsec_…): shown here once and on rotation only. Null on a userError. */
  secret?: Maybe<Scalars['String']['output']>;
  /** Empty on success; VALIDATION_ERROR, WEBHOOK_ENDPOINT_LIMIT_REACHED. */
  userErrors: Array<UserError>;
};

/** The customer's answer through the message buttons (or the merchant's cancel). */
export type CustomerAction =
  /** The customer tapped Approve. */
  | 'APPROVED'
  /** The customer tapped Cancel, or the merchant canceled the order. */
  | 'CANCELED';

/** The customer's answer as told to the merchant (on the phone, in person). */
export type CustomerAnswer =
  /** The customer confirms the order: like a tap on Approve. */
  | 'APPROVE'
  /** The customer does not want the order: like a tap on Cancel. */
  | 'CANCEL';

/** The result of deleteWebhookEndpoint. */
export type DeleteWebhookEndpointPayload = {
  __typename?: 'DeleteWebhookEndpointPayload';
  /** The id of the deleted endpoint; null on NOT_FOUND. */
  deletedId?: Maybe<Scalars['ID']['output']>;
  /** Empty on success; NOT_FOUND. */
  userErrors: Array<UserError>;
};

/** How far the confirmation message got; only moves forward (SENT < DELIVERED < READ). */
export type DeliveryStatus =
  /** The message reached the customer's phone. */
  | 'DELIVERED'
  /** The message could not be delivered (see failureReason and errorCode). */
  | 'FAILED'
  /** The customer opened the message (implied by a button tap). */
  | 'READ'
  /** The provider accepted the message. */
  | 'SENT';

/** The failed orders of one provider error code. */
export type FailureCount = {
  __typename?: 'FailureCount';
  /** How many failed orders have it. */
  count: Scalars['Int']['output'];
  /** The provider's numeric code; null for failures without one (e.g. the send never reached the provider). */
  errorCode?: Maybe<Scalars['Int']['output']>;
  /** What the code usually means (the common WhatsApp codes; Accept-Language: en or ar), or null when it is not one of them. */
  meaning?: Maybe<Scalars['String']['output']>;
};

/** A new merchant's checklist: each step ticks itself from real data (nothing is marked by hand). */
export type GettingStarted = {
  __typename?: 'GettingStarted';
  /** How many are not done yet (0: the console hides the checklist). */
  remaining: Scalars['Int']['output'];
  /** The steps, in the order to do them. */
  steps: Array<GettingStartedStep>;
};

/** One step of the checklist, ticked from the merchant's data. */
export type GettingStartedStep = {
  __typename?: 'GettingStartedStep';
  /** Whether the merchant's data shows it done. */
  done: Scalars['Boolean']['output'];
  /** Which step. */
  key: GettingStartedStepKey;
};

/** A step of the getting-started checklist. */
export type GettingStartedStepKey =
  /** A webhook endpoint exists (either mode). */
  | 'ADD_WEBHOOK'
  /** A store (Shopify, WooCommerce, Salla) is connected. */
  | 'CONNECT_STORE'
  /** An API key was used by the shop (any key of the merchant has been used). */
  | 'CREATE_KEY'
  /** A live order was sent to WhatsApp. */
  | 'GO_LIVE'
  /** A confirmation policy was saved (either mode). */
  | 'SET_POLICY'
  /** A test order was answered in the simulator. */
  | 'TRY_SIMULATOR';

/** The two worlds of a merchant: TEST (simulator, never WhatsApp) and LIVE (the WhatsApp Cloud API). */
export type KeyMode =
  /** Live mode: messages go to WhatsApp. */
  | 'LIVE'
  /** Test mode: messages go to the built-in simulator. */
  | 'TEST';

/** A merchant: owns orders, API keys, webhook endpoints and console users. */
export type Merchant = {
  __typename?: 'Merchant';
  /** Assigned by the service. */
  id: Scalars['ID']['output'];
  /** The merchant's display name. */
  name: Scalars['String']['output'];
};

/** Who a message went to: INBOUND from the customer, OUTBOUND to the customer. */
export type MessageDirection =
  | 'INBOUND'
  | 'OUTBOUND';

/** What a message is. */
export type MessageKind =
  /** The service's interactive reply-buttons message (Approve / Cancel). */
  | 'BUTTONS'
  /** The confirmation template with its buttons. */
  | 'CONFIRMATION'
  /** The service's interactive list asking which of several pending orders the customer means. */
  | 'LIST'
  /** A reminder template (same buttons). */
  | 'REMINDER'
  /** A text message sent by SMS. */
  | 'SMS'
  /** An inbound button tap or list choice; its text is the button's or row's title. */
  | 'TAP'
  /** Free text: the customer's words or a merchant's reply. */
  | 'TEXT';

/** Who wrote a message. */
export type MessageSender =
  /** The customer (texts, taps, list choices). */
  | 'CUSTOMER'
  /** The merchant (replies through REST, GraphQL or the console). */
  | 'MERCHANT'
  /** The service (the confirmation, reminders, automatic reply buttons, the "which order?" list). */
  | 'SERVICE';

/** The root of every change. */
export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Cancels a pending order: status and customerAction become CANCELED and `order.canceled` fires. An already
   * canceled order is returned unchanged (no second event); a CONFIRMED or FAILED one is ORDER_NOT_PENDING.
   */
  cancelOrder: CancelOrderPayload;
  /** Connects a WooCommerce store: checks the key, stores it encrypted and creates the store's order webhook (admins only). */
  connectWooCommerceStore: StoreConnectionPayload;
  /**
   * A new API key of the caller's merchant. `mode` must be the caller's mode (an API key or a session in test mode
   * creates test keys; switch to live mode for live keys), otherwise userError FORBIDDEN. The key is in the payload
   * once and never again. Admin console sessions only: an API key (or a non-admin user) gets error FORBIDDEN, so a
   * leaked key cannot mint its successor.
   */
  createApiKey: CreateApiKeyPayload;
  /**
   * Stores the order and sends the customer the confirmation message (test keys: the simulator; live keys:
   * WhatsApp). On success `order.created` is written to the outbox (webhooks and subscriptions). A rejection
   * by the provider stores the order FAILED, writes no event, and answers userError PROVIDER_REJECTED with
   * that order. A taken externalOrderId is DUPLICATE_EXTERNAL_ORDER_ID and sends nothing.
   */
  createOrder: CreateOrderPayload;
  /** A one-time code that links a Salla store to this merchant and mode when entered in the app's settings on Salla (admins only). */
  createSallaLinkCode: SallaLinkCodePayload;
  /** Registers a webhook endpoint for the caller's mode; the payload carries its signing secret once. */
  createWebhookEndpoint: CreateWebhookEndpointPayload;
  /** Deletes a webhook endpoint; its pending deliveries are dropped. */
  deleteWebhookEndpoint: DeleteWebhookEndpointPayload;
  /** Disconnects a store: its credentials are deleted and its deliveries ignored from now on (admins only). */
  disconnectStore: StoreConnectionPayload;
  /**
   * Records an answer the customer gave outside WhatsApp (a phone call, in person). It acts exactly like the
   * customer's tap: status CONFIRMED or CANCELED, customerAction, the event order.confirmed / order.canceled to
   * webhooks and subscriptions, reminders and expiry stop. The timeline step is `approved` / `canceled` with source
   * `merchant` and detail `{ via: "phone"|"in_person"|"other", note, by }` (`by`: the console user's e-mail, or the
   * API key's prefix). Only a PENDING order: otherwise ORDER_NOT_PENDING and nothing changes (when it races a tap,
   * exactly one of them wins). Admins, agents and API keys; viewers are FORBIDDEN.
   */
  recordCustomerAnswer: RecordCustomerAnswerPayload;
  /**
   * Redeliver now (same webhook-id): a pending delivery is attempted at once; a succeeded or dead one gets exactly
   * one more attempt.
   */
  retryWebhookDelivery: RetryWebhookDeliveryPayload;
  /** Revokes a key of the caller's merchant and mode; REST and GraphQL refuse it within 5 seconds. Admin console sessions only (an API key gets FORBIDDEN). */
  revokeApiKey: RevokeApiKeyPayload;
  /** Issues a new signing secret (in the payload, once); the old one keeps signing alongside it for 24 h. */
  rotateWebhookEndpointSecret: RotateWebhookEndpointSecretPayload;
  /** Replies to the customer of an order (WhatsApp; test mode: the simulator), allowed while the customer's 24-hour window is open. Viewers cannot. */
  sendOrderMessage: SendOrderMessagePayload;
  /** Replaces the caller's confirmation policy; it applies to orders created afterwards. */
  updateConfirmationPolicy: UpdateConfirmationPolicyPayload;
  /** Changes a connection's settings (admins only). */
  updateStoreConnection: StoreConnectionPayload;
  /** Changes a webhook endpoint's URL, events, description or enabled flag. */
  updateWebhookEndpoint: UpdateWebhookEndpointPayload;
};


/** The root of every change. */
export type MutationCancelOrderArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationConnectWooCommerceStoreArgs = {
  input: ConnectWooCommerceStoreInput;
};


/** The root of every change. */
export type MutationCreateApiKeyArgs = {
  mode: KeyMode;
};


/** The root of every change. */
export type MutationCreateOrderArgs = {
  input: CreateOrderInput;
};


/** The root of every change. */
export type MutationCreateSallaLinkCodeArgs = {
  mode: KeyMode;
};


/** The root of every change. */
export type MutationCreateWebhookEndpointArgs = {
  input: CreateWebhookEndpointInput;
};


/** The root of every change. */
export type MutationDeleteWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationDisconnectStoreArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationRecordCustomerAnswerArgs = {
  action: CustomerAnswer;
  channel: AnswerChannel;
  note?: InputMaybe<Scalars['String']['input']>;
  orderId: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationRetryWebhookDeliveryArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationRevokeApiKeyArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationRotateWebhookEndpointSecretArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationSendOrderMessageArgs = {
  orderId: Scalars['ID']['input'];
  text: Scalars['String']['input'];
};


/** The root of every change. */
export type MutationUpdateConfirmationPolicyArgs = {
  input: ConfirmationPolicyInput;
};


/** The root of every change. */
export type MutationUpdateStoreConnectionArgs = {
  id: Scalars['ID']['input'];
  input: StoreSettingsInput;
};


/** The root of every change. */
export type MutationUpdateWebhookEndpointArgs = {
  id: Scalars['ID']['input'];
  input: UpdateWebhookEndpointInput;
};

/** An order and the state of its WhatsApp confirmation: the same data as the REST order and the webhook payload. */
export type Order = {
  __typename?: 'Order';
  /**
   * The customer's confirmation page (PUBLIC_BASE_URL/c/<token>): the same URL every time, to send the customer
   * through any channel. Null for console viewers.
   */
  confirmationUrl?: Maybe<Scalars['String']['output']>;
  /** Whether a merchant reply can be sent now, and until when. */
  conversationWindow: ConversationWindow;
  /** When the order was accepted for sending (or stored failed). */
  createdAt: Scalars['DateTime']['output'];
  /** ISO 4217 code, upper-case. */
  currency: Scalars['String']['output'];
  /** The customer's answer, or null while there is none. */
  customerAction?: Maybe<CustomerAction>;
  /** The delivery address, if one was sent. */
  customerAddress?: Maybe<Scalars['String']['output']>;
  /** The customer's name as sent by the merchant. */
  customerName: Scalars['String']['output'];
  /** Country code and number, digits only. */
  customerPhone: Scalars['String']['output'];
  /** How far the confirmation message got, or null before the provider reported anything. */
  deliveryStatus?: Maybe<DeliveryStatus>;
  /** The provider's numeric error code; for programmatic handling. */
  errorCode?: Maybe<Scalars['Int']['output']>;
  /** The merchant's own unique order identifier. */
  externalOrderId: Scalars['String']['output'];
  /** The provider's error text; for display only. */
  failureReason?: Maybe<Scalars['String']['output']>;
  /** Assigned by the service. */
  id: Scalars['ID']['output'];
  /** The order's lines, in the order they were sent. */
  items: Array<OrderItem>;
  /** The conversation: every message sent and received about this order, oldest first (the newest 200). */
  messages: Array<OrderMessage>;
  /** Shipping cost, exactly as sent. */
  shippingCost: Scalars['Float']['output'];
  /** Where the order is in its life. */
  status: OrderStatus;
  /** Sum of the items, exactly as sent. */
  subtotal: Scalars['Float']['output'];
  /** Every recorded step of this order, oldest first (at most 200). Orders created before the timeline existed show less. */
  timeline: Array<OrderTimelineEntry>;
  /** Amount the customer pays, exactly as sent. */
  totalCost: Scalars['Float']['output'];
  /** When the order last changed. */
  updatedAt: Scalars['DateTime']['output'];
  /**
   * Every webhook delivery of this order's events to the caller's endpoints, newest first (at most 100: a few
   * events times at most 20 endpoints). Nullable so that a failure to read the log (reported in `errors`) never
   * takes the order itself away.
   */
  webhookDeliveries?: Maybe<Array<WebhookDelivery>>;
};

/** A page of orders, newest first (Relay connection). */
export type OrderConnection = {
  __typename?: 'OrderConnection';
  /** The orders of this page with their cursors, newest first. */
  edges: Array<OrderEdge>;
  /** Where this page is in the list. */
  pageInfo: PageInfo;
  /**
   * How many orders match the filter in all pages (read only when selected). Without a filter, or filtered by status
   * only, it is exact and costs the same at any number of orders (counts the database maintains in the transaction of
   * every change). With any other filter (dates, phone, externalOrderId, search) it is exact up to 1,000 matches;
   * when more match, it is 1,000 and `totalCountPrecision` is `AT_LEAST`, so a page never waits for a count of
   * millions of rows. `orderStats` gives exact counts per status for any date range.
   */
  totalCount: Scalars['Int']['output'];
  /** Whether `totalCount` is the exact number of matches (`EXACT`) or a lower bound (`AT_LEAST`: the count stopped at 1,000). */
  totalCountPrecision: CountPrecision;
};

/** One order of a page and the cursor that continues after it. */
export type OrderEdge = {
  __typename?: 'OrderEdge';
  /** Opaque; pass it as `after` to continue after this order. Cursors stay valid while new orders arrive. */
  cursor: Scalars['String']['output'];
  /** The order. */
  node: Order;
};

/** Which orders `orders` returns; every given condition must hold. */
export type OrderFilter = {
  /** Orders created at or after this instant (inclusive). */
  createdFrom?: InputMaybe<Scalars['DateTime']['input']>;
  /** Orders created before this instant (exclusive). */
  createdTo?: InputMaybe<Scalars['DateTime']['input']>;
  /** Exactly this phone number: digits only, with the country code. */
  customerPhone?: InputMaybe<Scalars['String']['input']>;
  /** Exactly this merchant order identifier (1–100 characters). */
  externalOrderId?: InputMaybe<Scalars['String']['input']>;
  /**
   * true: only the orders that need a person (the follow-up queue): PENDING orders whose last message to the customer
   * (the confirmation, or the latest reminder sent) is older than the policy's followUpAfter, with no answer. false or
   * null: no condition. Newest first like every list; the current policy's followUpAfter applies.
   */
  needsFollowUp?: InputMaybe<Scalars['Boolean']['input']>;
  /** true: orders whose customer's latest message is an unclear text with no merchant message after it (automatic replies do not count); false: the others. */
  needsReply?: InputMaybe<Scalars['Boolean']['input']>;
  /**
   * Prefix search (1–100 characters): orders whose externalOrderId or customerPhone starts with this text, or whose
   * customerName starts with it ignoring case. `%` and `_` are plain characters; a leading `+` is ignored for the
   * phone. Combines with the other conditions and the same keyset pagination. A NUL character is BAD_USER_INPUT.
   */
  search?: InputMaybe<Scalars['String']['input']>;
  /** Any of these statuses (an empty list means any status). */
  status?: InputMaybe<Array<OrderStatus>>;
};

/** One line of an order. */
export type OrderItem = {
  __typename?: 'OrderItem';
  /** Assigned by the service. */
  id: Scalars['ID']['output'];
  /** The product's name. */
  productName: Scalars['String']['output'];
  /** How many units (greater than 0, up to 4 decimals). */
  quantity: Scalars['Float']['output'];
  /** Total for the line. */
  totalPrice: Scalars['Float']['output'];
  /** Price per unit. */
  unitPrice: Scalars['Float']['output'];
  /** Variant description, e.g. a size. */
  variantName?: Maybe<Scalars['String']['output']>;
};

/** One line of a new order. */
export type OrderItemInput = {
  /** The product's name (1–200 characters). */
  productName: Scalars['String']['input'];
  /** How many units: greater than 0, at most 4 decimals. */
  quantity: Scalars['Float']['input'];
  /** Total for the line: 0 to 1e12, at most 4 decimals and 15 significant digits. */
  totalPrice: Scalars['Float']['input'];
  /** Price per unit: 0 to 1e12, at most 4 decimals and 15 significant digits. */
  unitPrice: Scalars['Float']['input'];
  /** Variant description, e.g. a size (up to 200 characters). */
  variantName?: InputMaybe<Scalars['String']['input']>;
};

/** One message of an order's conversation. */
export type OrderMessage = {
  __typename?: 'OrderMessage';
  /** When it was sent or received. */
  at: Scalars['DateTime']['output'];
  /** INBOUND from the customer, OUTBOUND to the customer. */
  direction: MessageDirection;
  /** Assigned by the service (the confirmation's is the order's id). */
  id: Scalars['ID']['output'];
  /** What it is. */
  kind: MessageKind;
  /** Who wrote it. */
  sender: MessageSender;
  /** Outbound: sent, delivered, read or failed (null while it is being sent). Inbound: null. */
  status?: Maybe<Scalars['String']['output']>;
  /** What the customer saw or wrote (a tap: its title). */
  text?: Maybe<Scalars['String']['output']>;
};

/** A customer's message that needs a person: an unclear text, or any text on an order that is no longer pending. */
export type OrderMessageEvent = {
  __typename?: 'OrderMessageEvent';
  /** The customer's message. */
  message: OrderMessage;
  /** The order as it is now. */
  order: Order;
  /** When it was received. */
  timestamp: Scalars['DateTime']['output'];
};

/** Dashboard figures of the caller's orders created in [from, to) (the REST OrderStats JSON, enums upper-case). */
export type OrderStats = {
  __typename?: 'OrderStats';
  /** Every local day or hour overlapping the range, oldest first, empty ones included (charts have no gaps). */
  buckets: Array<OrderStatsBucket>;
  /** The range's start as given (UTC). */
  from: Scalars['DateTime']['output'];
  /** The buckets' size. */
  interval: StatsInterval;
  /** The buckets' time zone. */
  timeZone: Scalars['String']['output'];
  /** The range's end as given (UTC, exclusive). */
  to: Scalars['DateTime']['output'];
  /** The whole range. */
  totals: OrderStatsFigures;
};

/** One local day or hour of orderStats. */
export type OrderStatsBucket = {
  __typename?: 'OrderStatsBucket';
  /** answered ÷ created; null when no order was created. */
  answerRate?: Maybe<Scalars['Float']['output']>;
  /** … answered by the customer. */
  answered: Scalars['Int']['output'];
  /** … CANCELED now. */
  canceled: Scalars['Int']['output'];
  /** confirmed ÷ answered; null when nothing was answered. */
  confirmationRate?: Maybe<Scalars['Float']['output']>;
  /** Of those, how many are CONFIRMED now. */
  confirmed: Scalars['Int']['output'];
  /** Visible orders created in the bucket (and the range). */
  created: Scalars['Int']['output'];
  /** … EXPIRED now. */
  expired: Scalars['Int']['output'];
  /** … FAILED now. */
  failed: Scalars['Int']['output'];
  /** Failed orders per provider error code, most frequent first. */
  failuresByErrorCode: Array<FailureCount>;
  /** … still PENDING. */
  pending: Scalars['Int']['output'];
  /** The bucket's first instant (local midnight, or the start of the local hour), as UTC. */
  start: Scalars['DateTime']['output'];
  /** Median seconds to the customer's answer; null when nothing was answered. */
  timeToAnswerP50Seconds?: Maybe<Scalars['Float']['output']>;
  /** 90th percentile of the seconds to the customer's answer; null when nothing was answered. */
  timeToAnswerP90Seconds?: Maybe<Scalars['Float']['output']>;
};

/** The figures of a set of orders: the whole range (totals) or one bucket. See the definitions above this type. */
export type OrderStatsFigures = {
  __typename?: 'OrderStatsFigures';
  /** answered ÷ created, 0–1 with 4 decimals; null when no order was created. */
  answerRate?: Maybe<Scalars['Float']['output']>;
  /** … answered by the customer (Approve or Cancel tapped); a merchant's cancel is not an answer. */
  answered: Scalars['Int']['output'];
  /** … CANCELED now (by the customer or the merchant). */
  canceled: Scalars['Int']['output'];
  /** confirmed ÷ answered, 0–1 with 4 decimals; null when nothing was answered. */
  confirmationRate?: Maybe<Scalars['Float']['output']>;
  /** Of those, how many are CONFIRMED now. */
  confirmed: Scalars['Int']['output'];
  /** Visible orders created in the range (or bucket). */
  created: Scalars['Int']['output'];
  /** … EXPIRED now. */
  expired: Scalars['Int']['output'];
  /** … FAILED now. */
  failed: Scalars['Int']['output'];
  /** Failed orders per provider error code, most frequent first. */
  failuresByErrorCode: Array<FailureCount>;
  /** … still PENDING. */
  pending: Scalars['Int']['output'];
  /** Median seconds from createdAt to the customer's answer; null when nothing was answered. */
  timeToAnswerP50Seconds?: Maybe<Scalars['Float']['output']>;
  /** 90th percentile of the seconds from createdAt to the customer's answer; null when nothing was answered. */
  timeToAnswerP90Seconds?: Maybe<Scalars['Float']['output']>;
};

/** Where an order is in its life: PENDING until the customer answers or delivery fails; the other states are final. */
export type OrderStatus =
  /** The customer tapped Cancel, or the merchant canceled the order while it was pending. */
  | 'CANCELED'
  /** The customer tapped Approve. */
  | 'CONFIRMED'
  /** Opt-in (confirmationPolicy.expireAfter): the customer did not answer in time. customerAction stays null. */
  | 'EXPIRED'
  /** The message could not be sent or delivered. */
  | 'FAILED'
  /** The confirmation message was sent; waiting for the customer's answer. */
  | 'PENDING';

/** A change of one of the caller's orders: exactly the webhook event of the same name, timestamp and data. */
export type OrderStatusEvent = {
  __typename?: 'OrderStatusEvent';
  /** The webhook event name: order.created, order.confirmed, order.canceled or order.failed. */
  event: Scalars['String']['output'];
  /** The order as it is after the change (the webhook envelope's data). */
  order: Order;
  /** When the change happened (the webhook envelope's timestamp). */
  timestamp: Scalars['DateTime']['output'];
};

/** One recorded step of an order's life, written in the same transaction as the change it describes. */
export type OrderTimelineEntry = {
  __typename?: 'OrderTimelineEntry';
  /** When it happened. */
  at: Scalars['DateTime']['output'];
  /** Details of the step: providerMessageId, errorCode and failureReason, reminder number, via (rest, graphql, whatsapp, simulator, page: the confirmation page), SMS details (sms, provider, segments, smsErrorCode, smsFailureReason). */
  detail?: Maybe<Scalars['JSON']['output']>;
  /** created, message_sent, delivery_sent, delivery_delivered, delivery_read, reminder_sent, reminder_failed, reminder_delivered, reminder_read, approved, canceled, failed, expired, and with an SMS fallback (SPEC §12) message_failed, sms_sent, sms_delivered, sms_failed. */
  kind: Scalars['String']['output'];
  /** Who caused it: customer (a tap), merchant (REST or GraphQL), provider (WhatsApp) or scheduler (reminders, expiry, crash recovery). */
  source: Scalars['String']['output'];
};

/** Relay page information. Only forward pagination (first/after) is offered. */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** The cursor of the last edge of this page, or null when the page is empty. */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** Whether more orders follow this page; pass endCursor as `after` to read them. */
  hasNextPage: Scalars['Boolean']['output'];
  /** Always false: backward pagination (last/before) is not offered, which the Relay specification allows. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** The cursor of the first edge of this page, or null when the page is empty. */
  startCursor?: Maybe<Scalars['String']['output']>;
};

/** The root of every read. */
export type Query = {
  __typename?: 'Query';
  /** The merchant's API keys of the caller's mode, oldest first (revoked ones included). */
  apiKeys: Array<ApiKey>;
  /**
   * The merchant's security history, newest first: keys created and revoked, endpoint secrets created and rotated,
   * users created, removed and given new passwords, sign-ins (succeeded and failed), stores connected and
   * disconnected. Admin console sessions only (others: error FORBIDDEN). Entries are kept for AUDIT_LOG_RETENTION
   * (default 400 days).
   */
  auditLog: AuditEntryConnection;
  /** The caller's confirmation policy (the merchant and mode of the key). */
  confirmationPolicy: ConfirmationPolicy;
  /** The merchant's getting-started checklist (both modes count). Admins, viewers and API keys; agents are FORBIDDEN. */
  gettingStarted: GettingStarted;
  /** One order of the caller's merchant and mode, or null when it does not exist, belongs to someone else, or the id is malformed. */
  order?: Maybe<Order>;
  /**
   * Figures of the caller's orders created in [from, to), in total and per local day or hour of `timeZone`
   * (read from pre-aggregated figures; counts exact, percentiles within 1.96 %). Console viewers may read them. Bounds: from < to, at most 366 days (DAY) or 31 days (HOUR),
   * an IANA time zone; otherwise BAD_USER_INPUT.
   */
  orderStats: OrderStats;
  /**
   * The caller's orders, newest first (createdAt, then id, descending), with keyset pagination that stays
   * stable while new orders arrive: the same orders and the same cursors as the REST list.
   */
  orders: OrderConnection;
  /** The store connections of the caller's merchant and mode. */
  storeConnections: Array<StoreConnection>;
  /** Who is calling: the console user (null for an API key), the merchant, and the mode. */
  viewer: Viewer;
  /** The delivery log of the caller's mode, newest first, with keyset pagination like `orders`. */
  webhookDeliveries: WebhookDeliveryConnection;
  /** The merchant's webhook endpoints of the caller's mode, newest first (at most 20). */
  webhookEndpoints: Array<WebhookEndpoint>;
};


/** The root of every read. */
export type QueryAuditLogArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<AuditLogFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** The root of every read. */
export type QueryOrderArgs = {
  id: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryOrderStatsArgs = {
  from: Scalars['DateTime']['input'];
  interval?: InputMaybe<StatsInterval>;
  timeZone?: InputMaybe<Scalars['String']['input']>;
  to: Scalars['DateTime']['input'];
};


/** The root of every read. */
export type QueryOrdersArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<OrderFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** The root of every read. */
export type QueryWebhookDeliveriesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<WebhookDeliveryFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** Local hours in which no reminder is sent: a reminder falling due inside them waits until they end (expiry is not moved). */
export type QuietHours = {
  __typename?: 'QuietHours';
  /** End, local 24-hour time HH:MM (may be earlier than start: the window then crosses midnight). */
  end: Scalars['String']['output'];
  /** Start, local 24-hour time HH:MM. */
  start: Scalars['String']['output'];
  /** IANA time zone, e.g. Africa/Cairo. */
  timeZone: Scalars['String']['output'];
};

/** Quiet hours of a new policy. */
export type QuietHoursInput = {
  /** End, local 24-hour time HH:MM, different from start. */
  end: Scalars['String']['input'];
  /** Start, local 24-hour time HH:MM. */
  start: Scalars['String']['input'];
  /** IANA time zone, e.g. Africa/Cairo. */
  timeZone: Scalars['String']['input'];
};

/** The result of recordCustomerAnswer. */
export type RecordCustomerAnswerPayload = {
  __typename?: 'RecordCustomerAnswerPayload';
  /** The order after the answer; the order as it is on ORDER_NOT_PENDING; null on NOT_FOUND or VALIDATION_ERROR. */
  order?: Maybe<Order>;
  /** Empty on success; NOT_FOUND, ORDER_NOT_PENDING, VALIDATION_ERROR (note over 500 characters). */
  userErrors: Array<UserError>;
};

/** The result of retryWebhookDelivery. */
export type RetryWebhookDeliveryPayload = {
  __typename?: 'RetryWebhookDeliveryPayload';
  /** The delivery, pending again and due now; null on NOT_FOUND. */
  delivery?: Maybe<WebhookDelivery>;
  /** Empty on success; NOT_FOUND. */
  userErrors: Array<UserError>;
};

/** The result of revokeApiKey. */
export type RevokeApiKeyPayload = {
  __typename?: 'RevokeApiKeyPayload';
  /** The revoked key (a second revocation keeps the first revokedAt); null on NOT_FOUND. */
  apiKey?: Maybe<ApiKey>;
  /** Empty on success; NOT_FOUND for an unknown key, another merchant's, or one of the other mode. */
  userErrors: Array<UserError>;
};

/** The result of rotateWebhookEndpointSecret. */
export type RotateWebhookEndpointSecretPayload = {
  __typename?: 'RotateWebhookEndpointSecretPayload';
  /** The endpoint, with previousSecretExpiresAt 24 h ahead; null on NOT_FOUND. */
  endpoint?: Maybe<WebhookEndpoint>;
  /** The new signing secret: shown here once. The old one keeps signing alongside it for 24 h. */
  secret?: Maybe<Scalars['String']['output']>;
  /** Empty on success; NOT_FOUND. */
  userErrors: Array<UserError>;
};

export type SallaLinkCodePayload = {
  __typename?: 'SallaLinkCodePayload';
  /** The one-time code to type into the app's settings on Salla (shown once; single use; null when userErrors is not empty). */
  code?: Maybe<Scalars['String']['output']>;
  /** The code links nothing after this (24 hours). */
  expiresAt?: Maybe<Scalars['DateTime']['output']>;
  userErrors: Array<UserError>;
};

/** The result of sendOrderMessage. */
export type SendOrderMessagePayload = {
  __typename?: 'SendOrderMessagePayload';
  /** The message as stored, with its delivery status (failed when the provider refused it); null on a userError. */
  message?: Maybe<OrderMessage>;
  /** Empty on success. CONVERSATION_CLOSED: the customer has not written in the last 24 hours (nothing was sent); NOT_FOUND; VALIDATION_ERROR; RATE_LIMITED (more than 20 replies to one order in an hour). */
  userErrors: Array<UserError>;
};

/** SMS fallback (SPEC §12): the WhatsApp error codes of an asynchronous failure of the first message that send an SMS instead. */
export type SmsFallback = {
  __typename?: 'SmsFallback';
  /** e.g. [131026] (not on WhatsApp, old app, terms not accepted). */
  errorCodes: Array<Scalars['Int']['output']>;
};

/** SMS fallback of a new policy. */
export type SmsFallbackInput = {
  /** 1–20 WhatsApp error codes, e.g. [131026]. */
  errorCodes: Array<Scalars['Int']['input']>;
};

/** The size of orderStats buckets. */
export type StatsInterval =
  /** Local calendar days of the time zone. */
  | 'DAY'
  /** Hours, starting at the local hour that contains `from`. */
  | 'HOUR';

/** One entry of a connection's activity log (kept: the newest 1,000). */
export type StoreActivity = {
  __typename?: 'StoreActivity';
  at: Scalars['DateTime']['output'];
  detail?: Maybe<Scalars['JSON']['output']>;
  /** order_created, order_skipped (detail.reason not_cod | no_phone | duplicate | invalid), writeback_succeeded, writeback_failed, writeback_retrying, connected, disconnected, token_refreshed, customer_redacted, shop_redacted, data_requested, error. */
  kind: Scalars['String']['output'];
  /** Our order, when one was created. */
  orderId?: Maybe<Scalars['ID']['output']>;
  /** The store's own order id (a string: Shopify ids exceed 2^53). */
  storeOrderId?: Maybe<Scalars['String']['output']>;
};

export type StoreConnection = {
  __typename?: 'StoreConnection';
  /** Newest first; first is 0–100. */
  activity: Array<StoreActivity>;
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['ID']['output'];
  lastOrderAt?: Maybe<Scalars['DateTime']['output']>;
  mode: KeyMode;
  platform: StorePlatform;
  settings: StoreSettings;
  /** The shop's domain (Shopify: <name>.myshopify.com). */
  shop: Scalars['String']['output'];
  status: StoreConnectionStatus;
};


export type StoreConnectionActivityArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
};

export type StoreConnectionPayload = {
  __typename?: 'StoreConnectionPayload';
  /** The connection as stored; null when userErrors is not empty. */
  connection?: Maybe<StoreConnection>;
  userErrors: Array<UserError>;
};

export type StoreConnectionStatus =
  /** Orders arrive and results go back. */
  | 'ACTIVE'
  /** Disconnected from the console or uninstalled in the store: deliveries are answered and ignored. */
  | 'DISCONNECTED'
  /** The store refused our credentials: reconnect from the console. */
  | 'ERROR';

/** The store platform of a connection. */
export type StorePlatform =
  | 'SALLA'
  | 'SHOPIFY'
  | 'WOOCOMMERCE';

/** What a connection does with store orders and what it writes back. */
export type StoreSettings = {
  __typename?: 'StoreSettings';
  /** Cancel the store order when the customer cancels (default false). */
  cancelOnCustomerCancel: Scalars['Boolean']['output'];
  /** Cancel the store order when the confirmation expires (default false). */
  cancelOnExpiry: Scalars['Boolean']['output'];
  /** Only orders paid by cash on delivery create a confirmation (default true). */
  codOnly: Scalars['Boolean']['output'];
  /** Payment gateway names that mean cash on delivery (case-insensitive, whole words). */
  codPaymentNames: Array<Scalars['String']['output']>;
  /** Hold the store order's fulfillment until the customer confirms (default false). */
  holdFulfillmentUntilConfirmed: Scalars['Boolean']['output'];
  /** The message language when the store order has no locale of ours: en or ar (default en). */
  language: Scalars['String']['output'];
  /** Default cod-canceled. */
  tagCanceled?: Maybe<Scalars['String']['output']>;
  /** Tag added to the store order when the customer confirms (null: none). Default cod-confirmed. */
  tagConfirmed?: Maybe<Scalars['String']['output']>;
  /** Default cod-unconfirmed. */
  tagExpired?: Maybe<Scalars['String']['output']>;
  /** Default cod-undeliverable. */
  tagFailed?: Maybe<Scalars['String']['output']>;
};

/** Absent fields keep their value; a tag set to null or an empty string is not written. */
export type StoreSettingsInput = {
  cancelOnCustomerCancel?: InputMaybe<Scalars['Boolean']['input']>;
  cancelOnExpiry?: InputMaybe<Scalars['Boolean']['input']>;
  codOnly?: InputMaybe<Scalars['Boolean']['input']>;
  codPaymentNames?: InputMaybe<Array<Scalars['String']['input']>>;
  holdFulfillmentUntilConfirmed?: InputMaybe<Scalars['Boolean']['input']>;
  language?: InputMaybe<Scalars['String']['input']>;
  tagCanceled?: InputMaybe<Scalars['String']['input']>;
  tagConfirmed?: InputMaybe<Scalars['String']['input']>;
  tagExpired?: InputMaybe<Scalars['String']['input']>;
  tagFailed?: InputMaybe<Scalars['String']['input']>;
};

/** Live updates over the graphql-transport-ws websocket at /graphql. */
export type Subscription = {
  __typename?: 'Subscription';
  /** Customers' messages that need a person (the webhook event order.customer_message), of the caller's orders or of one order. */
  orderMessageReceived: OrderMessageEvent;
  /** Events of the caller's orders (merchant and mode), or of one order when orderId is given. */
  orderStatusChanged: OrderStatusEvent;
};


/** Live updates over the graphql-transport-ws websocket at /graphql. */
export type SubscriptionOrderMessageReceivedArgs = {
  orderId?: InputMaybe<Scalars['ID']['input']>;
};


/** Live updates over the graphql-transport-ws websocket at /graphql. */
export type SubscriptionOrderStatusChangedArgs = {
  orderId?: InputMaybe<Scalars['ID']['input']>;
};

/** The result of updateConfirmationPolicy. */
export type UpdateConfirmationPolicyPayload = {
  __typename?: 'UpdateConfirmationPolicyPayload';
  /** The policy as stored; null when userErrors is not empty. */
  policy?: Maybe<ConfirmationPolicy>;
  /** Why the policy was refused (VALIDATION_ERROR with the field path); empty on success. */
  userErrors: Array<UserError>;
};

/** A change to a webhook endpoint: only the given fields change. */
export type UpdateWebhookEndpointInput = {
  /** A new description; an empty string clears it. */
  description?: InputMaybe<Scalars['String']['input']>;
  /** Enable or disable; re-enabling an endpoint disabled after 410 Gone clears its disabledReason. */
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
  /** A new list of event names (at least one). */
  events?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Send x-webhook-signature-256 as well (true) or stop sending it (false). */
  legacySignature?: InputMaybe<Scalars['Boolean']['input']>;
  /** A new URL (same rules as on creation). */
  url?: InputMaybe<Scalars['String']['input']>;
};

/** The result of updateWebhookEndpoint. */
export type UpdateWebhookEndpointPayload = {
  __typename?: 'UpdateWebhookEndpointPayload';
  /** The endpoint after the change; null on a userError. */
  endpoint?: Maybe<WebhookEndpoint>;
  /** Empty on success; VALIDATION_ERROR, NOT_FOUND. */
  userErrors: Array<UserError>;
};

/** A person signed in to the console. */
export type User = {
  __typename?: 'User';
  /** Lower-cased e-mail the user signs in with. */
  email: Scalars['String']['output'];
  /** Assigned by the service. */
  id: Scalars['ID']['output'];
  /** What the user may do. */
  role: UserRole;
};

/**
 * A problem with the request that the caller can act on (a business outcome, not a server error).
 * `code` is the REST error code of the same case.
 */
export type UserError = {
  __typename?: 'UserError';
  /**
   * VALIDATION_ERROR (a field out of bounds; see `field`), DUPLICATE_EXTERNAL_ORDER_ID, PROVIDER_REJECTED (the
   * provider refused the message; the order is stored FAILED and returned), PROVIDER_UNAVAILABLE (the provider
   * could not be reached or is not configured; the order is stored FAILED and returned), NOT_FOUND,
   * ORDER_NOT_PENDING.
   */
  code: Scalars['String']['output'];
  /** The provider's numeric error code (PROVIDER_REJECTED, PROVIDER_UNAVAILABLE), otherwise null. */
  errorCode?: Maybe<Scalars['Int']['output']>;
  /** The path to the input field at fault, e.g. ["input", "items", "0", "quantity"]; null when no single field is. */
  field?: Maybe<Array<Scalars['String']['output']>>;
  /** What went wrong, localised by Accept-Language (en, ar). */
  message: Scalars['String']['output'];
};

/** What a console user may do. */
export type UserRole =
  /** Everything the merchant's API keys can do, and managing keys and webhooks. */
  | 'ADMIN'
  /** The follow-up desk: reads orders, conversations and stats, records answers, replies and exports; nothing else. */
  | 'AGENT'
  /** Queries only: every mutation is refused with FORBIDDEN, and secrets are never shown. */
  | 'VIEWER';

/** Who is calling, for whom, and in which mode. */
export type Viewer = {
  __typename?: 'Viewer';
  /** The caller's merchant. */
  merchant: Merchant;
  /** The mode every field answers in: the API key's mode, or the session's X-OCS-Mode (connection_init mode). */
  mode: KeyMode;
  /** The signed-in console user; null when the caller is an API key. */
  user?: Maybe<User>;
};

/** One attempt to deliver an event. */
export type WebhookAttempt = {
  __typename?: 'WebhookAttempt';
  /** When the attempt started. */
  at: Scalars['DateTime']['output'];
  /** How long the attempt took. */
  durationMs: Scalars['Int']['output'];
  /** Why it failed (e.g. HTTP 500, timeout after 15000 ms); null on success. */
  error?: Maybe<Scalars['String']['output']>;
  /** The receiver's HTTP status; null when no response arrived. */
  statusCode?: Maybe<Scalars['Int']['output']>;
};

/** One event for one endpoint, with every attempt (the REST delivery log's entry). */
export type WebhookDelivery = {
  __typename?: 'WebhookDelivery';
  /** Every attempt, oldest first. */
  attempts: Array<WebhookAttempt>;
  /** When the delivery was created. */
  createdAt: Scalars['DateTime']['output'];
  /** The endpoint it goes to. */
  endpointId: Scalars['ID']['output'];
  /** The event name, e.g. order.confirmed. */
  event: Scalars['String']['output'];
  /** The event id: the webhook-id header of every attempt. */
  eventId: Scalars['ID']['output'];
  /** Assigned by the service. */
  id: Scalars['ID']['output'];
  /** The order the event is about. */
  orderId: Scalars['ID']['output'];
  /** Where the delivery is. */
  status: WebhookDeliveryStatus;
};

/** A page of the delivery log, newest first (Relay connection). */
export type WebhookDeliveryConnection = {
  __typename?: 'WebhookDeliveryConnection';
  /** The deliveries of this page with their cursors, newest first. */
  edges: Array<WebhookDeliveryEdge>;
  /** Where this page is in the list. */
  pageInfo: PageInfo;
};

/** One delivery of a page and the cursor that continues after it. */
export type WebhookDeliveryEdge = {
  __typename?: 'WebhookDeliveryEdge';
  /** Opaque; pass it as `after` to continue after this delivery. */
  cursor: Scalars['String']['output'];
  /** The delivery. */
  node: WebhookDelivery;
};

/** Which deliveries webhookDeliveries returns; every given condition must hold. */
export type WebhookDeliveryFilter = {
  /** Only this endpoint's deliveries. */
  endpointId?: InputMaybe<Scalars['ID']['input']>;
  /** Only this order's deliveries. */
  orderId?: InputMaybe<Scalars['ID']['input']>;
  /** Any of these statuses (an empty list means any status). */
  status?: InputMaybe<Array<WebhookDeliveryStatus>>;
};

/** Where a webhook delivery is. */
export type WebhookDeliveryStatus =
  /** No attempt left, or the receiver answered 410 Gone. */
  | 'DEAD'
  /** Due, or waiting for its next retry. */
  | 'PENDING'
  /** A 2xx arrived. */
  | 'SUCCEEDED';

/** A receiver of the merchant's webhook events (for the mode it was created in). */
export type WebhookEndpoint = {
  __typename?: 'WebhookEndpoint';
  /** When it was created. */
  createdAt: Scalars['DateTime']['output'];
  /** Free text for the merchant's records. */
  description?: Maybe<Scalars['String']['output']>;
  /** Why the service disabled it (e.g. the receiver answered 410 Gone); null otherwise. */
  disabledReason?: Maybe<Scalars['String']['output']>;
  /** Whether deliveries are made to it. */
  enabled: Scalars['Boolean']['output'];
  /** The event names it receives (order.created, order.confirmed, order.canceled, order.failed, ...). */
  events: Array<Scalars['String']['output']>;
  /** Assigned by the service. */
  id: Scalars['ID']['output'];
  /** Whether deliveries also carry x-webhook-signature-256 (a body-only HMAC without a timestamp, so replayable); the Standard Webhooks headers are always sent. */
  legacySignature: Scalars['Boolean']['output'];
  /** While in the future, deliveries are also signed with the secret before the last rotation. */
  previousSecretExpiresAt?: Maybe<Scalars['DateTime']['output']>;
  /** When it last changed. */
  updatedAt: Scalars['DateTime']['output'];
  /** Where events are POSTed. */
  url: Scalars['String']['output'];
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  AnswerChannel: AnswerChannel;
  ApiKey: ResolverTypeWrapper<ApiKey>;
  AuditActor: ResolverTypeWrapper<AuditActor>;
  AuditActorKind: AuditActorKind;
  AuditEntry: ResolverTypeWrapper<AuditEntry>;
  AuditEntryConnection: ResolverTypeWrapper<AuditEntryConnection>;
  AuditEntryEdge: ResolverTypeWrapper<AuditEntryEdge>;
  AuditLogFilter: AuditLogFilter;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  CancelOrderPayload: ResolverTypeWrapper<Omit<CancelOrderPayload, 'order'> & { order?: Maybe<ResolversTypes['Order']> }>;
  ConfirmationPolicy: ResolverTypeWrapper<ConfirmationPolicy>;
  ConfirmationPolicyInput: ConfirmationPolicyInput;
  ConnectWooCommerceStoreInput: ConnectWooCommerceStoreInput;
  ConversationWindow: ResolverTypeWrapper<ConversationWindow>;
  CountPrecision: CountPrecision;
  CreateApiKeyPayload: ResolverTypeWrapper<CreateApiKeyPayload>;
  CreateOrderInput: CreateOrderInput;
  CreateOrderPayload: ResolverTypeWrapper<Omit<CreateOrderPayload, 'order'> & { order?: Maybe<ResolversTypes['Order']> }>;
  CreateWebhookEndpointInput: CreateWebhookEndpointInput;
  CreateWebhookEndpointPayload: ResolverTypeWrapper<CreateWebhookEndpointPayload>;
  CustomerAction: CustomerAction;
  CustomerAnswer: CustomerAnswer;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  DeleteWebhookEndpointPayload: ResolverTypeWrapper<DeleteWebhookEndpointPayload>;
  DeliveryStatus: DeliveryStatus;
  FailureCount: ResolverTypeWrapper<FailureCount>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  GettingStarted: ResolverTypeWrapper<GettingStarted>;
  GettingStartedStep: ResolverTypeWrapper<GettingStartedStep>;
  GettingStartedStepKey: GettingStartedStepKey;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  JSON: ResolverTypeWrapper<Scalars['JSON']['output']>;
  KeyMode: KeyMode;
  Merchant: ResolverTypeWrapper<Merchant>;
  MessageDirection: MessageDirection;
  MessageKind: MessageKind;
  MessageSender: MessageSender;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Order: ResolverTypeWrapper<OrderSource>;
  OrderConnection: ResolverTypeWrapper<OrderConnectionSource>;
  OrderEdge: ResolverTypeWrapper<Omit<OrderEdge, 'node'> & { node: ResolversTypes['Order'] }>;
  OrderFilter: OrderFilter;
  OrderItem: ResolverTypeWrapper<OrderItem>;
  OrderItemInput: OrderItemInput;
  OrderMessage: ResolverTypeWrapper<OrderMessage>;
  OrderMessageEvent: ResolverTypeWrapper<Omit<OrderMessageEvent, 'order'> & { order: ResolversTypes['Order'] }>;
  OrderStats: ResolverTypeWrapper<OrderStats>;
  OrderStatsBucket: ResolverTypeWrapper<OrderStatsBucket>;
  OrderStatsFigures: ResolverTypeWrapper<OrderStatsFigures>;
  OrderStatus: OrderStatus;
  OrderStatusEvent: ResolverTypeWrapper<Omit<OrderStatusEvent, 'order'> & { order: ResolversTypes['Order'] }>;
  OrderTimelineEntry: ResolverTypeWrapper<OrderTimelineEntry>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  QuietHours: ResolverTypeWrapper<QuietHours>;
  QuietHoursInput: QuietHoursInput;
  RecordCustomerAnswerPayload: ResolverTypeWrapper<Omit<RecordCustomerAnswerPayload, 'order'> & { order?: Maybe<ResolversTypes['Order']> }>;
  RetryWebhookDeliveryPayload: ResolverTypeWrapper<RetryWebhookDeliveryPayload>;
  RevokeApiKeyPayload: ResolverTypeWrapper<RevokeApiKeyPayload>;
  RotateWebhookEndpointSecretPayload: ResolverTypeWrapper<RotateWebhookEndpointSecretPayload>;
  SallaLinkCodePayload: ResolverTypeWrapper<SallaLinkCodePayload>;
  SendOrderMessagePayload: ResolverTypeWrapper<SendOrderMessagePayload>;
  SmsFallback: ResolverTypeWrapper<SmsFallback>;
  SmsFallbackInput: SmsFallbackInput;
  StatsInterval: StatsInterval;
  StoreActivity: ResolverTypeWrapper<StoreActivity>;
  StoreConnection: ResolverTypeWrapper<StoreConnectionView>;
  StoreConnectionPayload: ResolverTypeWrapper<Omit<StoreConnectionPayload, 'connection'> & { connection?: Maybe<ResolversTypes['StoreConnection']> }>;
  StoreConnectionStatus: StoreConnectionStatus;
  StorePlatform: StorePlatform;
  StoreSettings: ResolverTypeWrapper<StoreSettings>;
  StoreSettingsInput: StoreSettingsInput;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  UpdateConfirmationPolicyPayload: ResolverTypeWrapper<UpdateConfirmationPolicyPayload>;
  UpdateWebhookEndpointInput: UpdateWebhookEndpointInput;
  UpdateWebhookEndpointPayload: ResolverTypeWrapper<UpdateWebhookEndpointPayload>;
  User: ResolverTypeWrapper<User>;
  UserError: ResolverTypeWrapper<UserError>;
  UserRole: UserRole;
  Viewer: ResolverTypeWrapper<Viewer>;
  WebhookAttempt: ResolverTypeWrapper<WebhookAttempt>;
  WebhookDelivery: ResolverTypeWrapper<WebhookDelivery>;
  WebhookDeliveryConnection: ResolverTypeWrapper<WebhookDeliveryConnection>;
  WebhookDeliveryEdge: ResolverTypeWrapper<WebhookDeliveryEdge>;
  WebhookDeliveryFilter: WebhookDeliveryFilter;
  WebhookDeliveryStatus: WebhookDeliveryStatus;
  WebhookEndpoint: ResolverTypeWrapper<WebhookEndpoint>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  ApiKey: ApiKey;
  AuditActor: AuditActor;
  AuditEntry: AuditEntry;
  AuditEntryConnection: AuditEntryConnection;
  AuditEntryEdge: AuditEntryEdge;
  AuditLogFilter: AuditLogFilter;
  Boolean: Scalars['Boolean']['output'];
  CancelOrderPayload: Omit<CancelOrderPayload, 'order'> & { order?: Maybe<ResolversParentTypes['Order']> };
  ConfirmationPolicy: ConfirmationPolicy;
  ConfirmationPolicyInput: ConfirmationPolicyInput;
  ConnectWooCommerceStoreInput: ConnectWooCommerceStoreInput;
  ConversationWindow: ConversationWindow;
  CreateApiKeyPayload: CreateApiKeyPayload;
  CreateOrderInput: CreateOrderInput;
  CreateOrderPayload: Omit<CreateOrderPayload, 'order'> & { order?: Maybe<ResolversParentTypes['Order']> };
  CreateWebhookEndpointInput: CreateWebhookEndpointInput;
  CreateWebhookEndpointPayload: CreateWebhookEndpointPayload;
  DateTime: Scalars['DateTime']['output'];
  DeleteWebhookEndpointPayload: DeleteWebhookEndpointPayload;
  FailureCount: FailureCount;
  Float: Scalars['Float']['output'];
  GettingStarted: GettingStarted;
  GettingStartedStep: GettingStartedStep;
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  JSON: Scalars['JSON']['output'];
  Merchant: Merchant;
  Mutation: Record<PropertyKey, never>;
  Order: OrderSource;
  OrderConnection: OrderConnectionSource;
  OrderEdge: Omit<OrderEdge, 'node'> & { node: ResolversParentTypes['Order'] };
  OrderFilter: OrderFilter;
  OrderItem: OrderItem;
  OrderItemInput: OrderItemInput;
  OrderMessage: OrderMessage;
  OrderMessageEvent: Omit<OrderMessageEvent, 'order'> & { order: ResolversParentTypes['Order'] };
  OrderStats: OrderStats;
  OrderStatsBucket: OrderStatsBucket;
  OrderStatsFigures: OrderStatsFigures;
  OrderStatusEvent: Omit<OrderStatusEvent, 'order'> & { order: ResolversParentTypes['Order'] };
  OrderTimelineEntry: OrderTimelineEntry;
  PageInfo: PageInfo;
  Query: Record<PropertyKey, never>;
  QuietHours: QuietHours;
  QuietHoursInput: QuietHoursInput;
  RecordCustomerAnswerPayload: Omit<RecordCustomerAnswerPayload, 'order'> & { order?: Maybe<ResolversParentTypes['Order']> };
  RetryWebhookDeliveryPayload: RetryWebhookDeliveryPayload;
  RevokeApiKeyPayload: RevokeApiKeyPayload;
  RotateWebhookEndpointSecretPayload: RotateWebhookEndpointSecretPayload;
  SallaLinkCodePayload: SallaLinkCodePayload;
  SendOrderMessagePayload: SendOrderMessagePayload;
  SmsFallback: SmsFallback;
  SmsFallbackInput: SmsFallbackInput;
  StoreActivity: StoreActivity;
  StoreConnection: StoreConnectionView;
  StoreConnectionPayload: Omit<StoreConnectionPayload, 'connection'> & { connection?: Maybe<ResolversParentTypes['StoreConnection']> };
  StoreSettings: StoreSettings;
  StoreSettingsInput: StoreSettingsInput;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  UpdateConfirmationPolicyPayload: UpdateConfirmationPolicyPayload;
  UpdateWebhookEndpointInput: UpdateWebhookEndpointInput;
  UpdateWebhookEndpointPayload: UpdateWebhookEndpointPayload;
  User: User;
  UserError: UserError;
  Viewer: Viewer;
  WebhookAttempt: WebhookAttempt;
  WebhookDelivery: WebhookDelivery;
  WebhookDeliveryConnection: WebhookDeliveryConnection;
  WebhookDeliveryEdge: WebhookDeliveryEdge;
  WebhookDeliveryFilter: WebhookDeliveryFilter;
  WebhookEndpoint: WebhookEndpoint;
};

export type ApiKeyResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ApiKey'] = ResolversParentTypes['ApiKey']> = {
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastUsedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['KeyMode'], ParentType, ContextType>;
  prefix?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  revokedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
};

export type AuditActorResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AuditActor'] = ResolversParentTypes['AuditActor']> = {
  id?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['AuditActorKind'], ParentType, ContextType>;
  label?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type AuditEntryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AuditEntry'] = ResolversParentTypes['AuditEntry']> = {
  action?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  actor?: Resolver<ResolversTypes['AuditActor'], ParentType, ContextType>;
  address?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  target?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
};

export type AuditEntryConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AuditEntryConnection'] = ResolversParentTypes['AuditEntryConnection']> = {
  edges?: Resolver<Array<ResolversTypes['AuditEntryEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type AuditEntryEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AuditEntryEdge'] = ResolversParentTypes['AuditEntryEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['AuditEntry'], ParentType, ContextType>;
};

export type CancelOrderPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CancelOrderPayload'] = ResolversParentTypes['CancelOrderPayload']> = {
  order?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type ConfirmationPolicyResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ConfirmationPolicy'] = ResolversParentTypes['ConfirmationPolicy']> = {
  expireAfter?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  followUpAfter?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  quietHours?: Resolver<Maybe<ResolversTypes['QuietHours']>, ParentType, ContextType>;
  reminders?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  smsFallback?: Resolver<Maybe<ResolversTypes['SmsFallback']>, ParentType, ContextType>;
};

export type ConversationWindowResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ConversationWindow'] = ResolversParentTypes['ConversationWindow']> = {
  closesAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  lastCustomerMessageAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  open?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type CreateApiKeyPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateApiKeyPayload'] = ResolversParentTypes['CreateApiKeyPayload']> = {
  apiKey?: Resolver<Maybe<ResolversTypes['ApiKey']>, ParentType, ContextType>;
  key?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type CreateOrderPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateOrderPayload'] = ResolversParentTypes['CreateOrderPayload']> = {
  order?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type CreateWebhookEndpointPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CreateWebhookEndpointPayload'] = ResolversParentTypes['CreateWebhookEndpointPayload']> = {
  endpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType>;
  secret?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type DeleteWebhookEndpointPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['DeleteWebhookEndpointPayload'] = ResolversParentTypes['DeleteWebhookEndpointPayload']> = {
  deletedId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type FailureCountResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FailureCount'] = ResolversParentTypes['FailureCount']> = {
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  errorCode?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  meaning?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type GettingStartedResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GettingStarted'] = ResolversParentTypes['GettingStarted']> = {
  remaining?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  steps?: Resolver<Array<ResolversTypes['GettingStartedStep']>, ParentType, ContextType>;
};

export type GettingStartedStepResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GettingStartedStep'] = ResolversParentTypes['GettingStartedStep']> = {
  done?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  key?: Resolver<ResolversTypes['GettingStartedStepKey'], ParentType, ContextType>;
};

export interface JsonScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSON'], any> {
  name: 'JSON';
}

export type MerchantResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Merchant'] = ResolversParentTypes['Merchant']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  cancelOrder?: Resolver<ResolversTypes['CancelOrderPayload'], ParentType, ContextType, RequireFields<MutationCancelOrderArgs, 'id'>>;
  connectWooCommerceStore?: Resolver<ResolversTypes['StoreConnectionPayload'], ParentType, ContextType, RequireFields<MutationConnectWooCommerceStoreArgs, 'input'>>;
  createApiKey?: Resolver<ResolversTypes['CreateApiKeyPayload'], ParentType, ContextType, RequireFields<MutationCreateApiKeyArgs, 'mode'>>;
  createOrder?: Resolver<ResolversTypes['CreateOrderPayload'], ParentType, ContextType, RequireFields<MutationCreateOrderArgs, 'input'>>;
  createSallaLinkCode?: Resolver<ResolversTypes['SallaLinkCodePayload'], ParentType, ContextType, RequireFields<MutationCreateSallaLinkCodeArgs, 'mode'>>;
  createWebhookEndpoint?: Resolver<ResolversTypes['CreateWebhookEndpointPayload'], ParentType, ContextType, RequireFields<MutationCreateWebhookEndpointArgs, 'input'>>;
  deleteWebhookEndpoint?: Resolver<ResolversTypes['DeleteWebhookEndpointPayload'], ParentType, ContextType, RequireFields<MutationDeleteWebhookEndpointArgs, 'id'>>;
  disconnectStore?: Resolver<ResolversTypes['StoreConnectionPayload'], ParentType, ContextType, RequireFields<MutationDisconnectStoreArgs, 'id'>>;
  recordCustomerAnswer?: Resolver<ResolversTypes['RecordCustomerAnswerPayload'], ParentType, ContextType, RequireFields<MutationRecordCustomerAnswerArgs, 'action' | 'channel' | 'orderId'>>;
  retryWebhookDelivery?: Resolver<ResolversTypes['RetryWebhookDeliveryPayload'], ParentType, ContextType, RequireFields<MutationRetryWebhookDeliveryArgs, 'id'>>;
  revokeApiKey?: Resolver<ResolversTypes['RevokeApiKeyPayload'], ParentType, ContextType, RequireFields<MutationRevokeApiKeyArgs, 'id'>>;
  rotateWebhookEndpointSecret?: Resolver<ResolversTypes['RotateWebhookEndpointSecretPayload'], ParentType, ContextType, RequireFields<MutationRotateWebhookEndpointSecretArgs, 'id'>>;
  sendOrderMessage?: Resolver<ResolversTypes['SendOrderMessagePayload'], ParentType, ContextType, RequireFields<MutationSendOrderMessageArgs, 'orderId' | 'text'>>;
  updateConfirmationPolicy?: Resolver<ResolversTypes['UpdateConfirmationPolicyPayload'], ParentType, ContextType, RequireFields<MutationUpdateConfirmationPolicyArgs, 'input'>>;
  updateStoreConnection?: Resolver<ResolversTypes['StoreConnectionPayload'], ParentType, ContextType, RequireFields<MutationUpdateStoreConnectionArgs, 'id' | 'input'>>;
  updateWebhookEndpoint?: Resolver<ResolversTypes['UpdateWebhookEndpointPayload'], ParentType, ContextType, RequireFields<MutationUpdateWebhookEndpointArgs, 'id' | 'input'>>;
};

export type OrderResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Order'] = ResolversParentTypes['Order']> = {
  confirmationUrl?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  conversationWindow?: Resolver<ResolversTypes['ConversationWindow'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  customerAction?: Resolver<Maybe<ResolversTypes['CustomerAction']>, ParentType, ContextType>;
  customerAddress?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  customerName?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  customerPhone?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  deliveryStatus?: Resolver<Maybe<ResolversTypes['DeliveryStatus']>, ParentType, ContextType>;
  errorCode?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  externalOrderId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  failureReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  items?: Resolver<Array<ResolversTypes['OrderItem']>, ParentType, ContextType>;
  messages?: Resolver<Array<ResolversTypes['OrderMessage']>, ParentType, ContextType>;
  shippingCost?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['OrderStatus'], ParentType, ContextType>;
  subtotal?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  timeline?: Resolver<Array<ResolversTypes['OrderTimelineEntry']>, ParentType, ContextType>;
  totalCost?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  webhookDeliveries?: Resolver<Maybe<Array<ResolversTypes['WebhookDelivery']>>, ParentType, ContextType>;
};

export type OrderConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderConnection'] = ResolversParentTypes['OrderConnection']> = {
  edges?: Resolver<Array<ResolversTypes['OrderEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  totalCountPrecision?: Resolver<ResolversTypes['CountPrecision'], ParentType, ContextType>;
};

export type OrderEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderEdge'] = ResolversParentTypes['OrderEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
};

export type OrderItemResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderItem'] = ResolversParentTypes['OrderItem']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  productName?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  quantity?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  totalPrice?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  unitPrice?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  variantName?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type OrderMessageResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderMessage'] = ResolversParentTypes['OrderMessage']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  direction?: Resolver<ResolversTypes['MessageDirection'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['MessageKind'], ParentType, ContextType>;
  sender?: Resolver<ResolversTypes['MessageSender'], ParentType, ContextType>;
  status?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  text?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type OrderMessageEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderMessageEvent'] = ResolversParentTypes['OrderMessageEvent']> = {
  message?: Resolver<ResolversTypes['OrderMessage'], ParentType, ContextType>;
  order?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type OrderStatsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderStats'] = ResolversParentTypes['OrderStats']> = {
  buckets?: Resolver<Array<ResolversTypes['OrderStatsBucket']>, ParentType, ContextType>;
  from?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  interval?: Resolver<ResolversTypes['StatsInterval'], ParentType, ContextType>;
  timeZone?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  to?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  totals?: Resolver<ResolversTypes['OrderStatsFigures'], ParentType, ContextType>;
};

export type OrderStatsBucketResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderStatsBucket'] = ResolversParentTypes['OrderStatsBucket']> = {
  answerRate?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  answered?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  canceled?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  confirmationRate?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  confirmed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  expired?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failuresByErrorCode?: Resolver<Array<ResolversTypes['FailureCount']>, ParentType, ContextType>;
  pending?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  start?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  timeToAnswerP50Seconds?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  timeToAnswerP90Seconds?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
};

export type OrderStatsFiguresResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderStatsFigures'] = ResolversParentTypes['OrderStatsFigures']> = {
  answerRate?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  answered?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  canceled?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  confirmationRate?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  confirmed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  created?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  expired?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failuresByErrorCode?: Resolver<Array<ResolversTypes['FailureCount']>, ParentType, ContextType>;
  pending?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  timeToAnswerP50Seconds?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  timeToAnswerP90Seconds?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
};

export type OrderStatusEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderStatusEvent'] = ResolversParentTypes['OrderStatusEvent']> = {
  event?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  order?: Resolver<ResolversTypes['Order'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type OrderTimelineEntryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OrderTimelineEntry'] = ResolversParentTypes['OrderTimelineEntry']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  detail?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  source?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type PageInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = {
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  apiKeys?: Resolver<Array<ResolversTypes['ApiKey']>, ParentType, ContextType>;
  auditLog?: Resolver<ResolversTypes['AuditEntryConnection'], ParentType, ContextType, RequireFields<QueryAuditLogArgs, 'first'>>;
  confirmationPolicy?: Resolver<ResolversTypes['ConfirmationPolicy'], ParentType, ContextType>;
  gettingStarted?: Resolver<ResolversTypes['GettingStarted'], ParentType, ContextType>;
  order?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType, RequireFields<QueryOrderArgs, 'id'>>;
  orderStats?: Resolver<ResolversTypes['OrderStats'], ParentType, ContextType, RequireFields<QueryOrderStatsArgs, 'from' | 'interval' | 'timeZone' | 'to'>>;
  orders?: Resolver<ResolversTypes['OrderConnection'], ParentType, ContextType, RequireFields<QueryOrdersArgs, 'first'>>;
  storeConnections?: Resolver<Array<ResolversTypes['StoreConnection']>, ParentType, ContextType>;
  viewer?: Resolver<ResolversTypes['Viewer'], ParentType, ContextType>;
  webhookDeliveries?: Resolver<ResolversTypes['WebhookDeliveryConnection'], ParentType, ContextType, RequireFields<QueryWebhookDeliveriesArgs, 'first'>>;
  webhookEndpoints?: Resolver<Array<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType>;
};

export type QuietHoursResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['QuietHours'] = ResolversParentTypes['QuietHours']> = {
  end?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  start?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timeZone?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type RecordCustomerAnswerPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RecordCustomerAnswerPayload'] = ResolversParentTypes['RecordCustomerAnswerPayload']> = {
  order?: Resolver<Maybe<ResolversTypes['Order']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type RetryWebhookDeliveryPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RetryWebhookDeliveryPayload'] = ResolversParentTypes['RetryWebhookDeliveryPayload']> = {
  delivery?: Resolver<Maybe<ResolversTypes['WebhookDelivery']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type RevokeApiKeyPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RevokeApiKeyPayload'] = ResolversParentTypes['RevokeApiKeyPayload']> = {
  apiKey?: Resolver<Maybe<ResolversTypes['ApiKey']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type RotateWebhookEndpointSecretPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RotateWebhookEndpointSecretPayload'] = ResolversParentTypes['RotateWebhookEndpointSecretPayload']> = {
  endpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType>;
  secret?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type SallaLinkCodePayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SallaLinkCodePayload'] = ResolversParentTypes['SallaLinkCodePayload']> = {
  code?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type SendOrderMessagePayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SendOrderMessagePayload'] = ResolversParentTypes['SendOrderMessagePayload']> = {
  message?: Resolver<Maybe<ResolversTypes['OrderMessage']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type SmsFallbackResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SmsFallback'] = ResolversParentTypes['SmsFallback']> = {
  errorCodes?: Resolver<Array<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type StoreActivityResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StoreActivity'] = ResolversParentTypes['StoreActivity']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  detail?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  orderId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  storeOrderId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type StoreConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StoreConnection'] = ResolversParentTypes['StoreConnection']> = {
  activity?: Resolver<Array<ResolversTypes['StoreActivity']>, ParentType, ContextType, RequireFields<StoreConnectionActivityArgs, 'first'>>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastOrderAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['KeyMode'], ParentType, ContextType>;
  platform?: Resolver<ResolversTypes['StorePlatform'], ParentType, ContextType>;
  settings?: Resolver<ResolversTypes['StoreSettings'], ParentType, ContextType>;
  shop?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['StoreConnectionStatus'], ParentType, ContextType>;
};

export type StoreConnectionPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StoreConnectionPayload'] = ResolversParentTypes['StoreConnectionPayload']> = {
  connection?: Resolver<Maybe<ResolversTypes['StoreConnection']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type StoreSettingsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['StoreSettings'] = ResolversParentTypes['StoreSettings']> = {
  cancelOnCustomerCancel?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  cancelOnExpiry?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  codOnly?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  codPaymentNames?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  holdFulfillmentUntilConfirmed?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  language?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  tagCanceled?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  tagConfirmed?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  tagExpired?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  tagFailed?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  orderMessageReceived?: SubscriptionResolver<ResolversTypes['OrderMessageEvent'], "orderMessageReceived", ParentType, ContextType, Partial<SubscriptionOrderMessageReceivedArgs>>;
  orderStatusChanged?: SubscriptionResolver<ResolversTypes['OrderStatusEvent'], "orderStatusChanged", ParentType, ContextType, Partial<SubscriptionOrderStatusChangedArgs>>;
};

export type UpdateConfirmationPolicyPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UpdateConfirmationPolicyPayload'] = ResolversParentTypes['UpdateConfirmationPolicyPayload']> = {
  policy?: Resolver<Maybe<ResolversTypes['ConfirmationPolicy']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type UpdateWebhookEndpointPayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UpdateWebhookEndpointPayload'] = ResolversParentTypes['UpdateWebhookEndpointPayload']> = {
  endpoint?: Resolver<Maybe<ResolversTypes['WebhookEndpoint']>, ParentType, ContextType>;
  userErrors?: Resolver<Array<ResolversTypes['UserError']>, ParentType, ContextType>;
};

export type UserResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['User'] = ResolversParentTypes['User']> = {
  email?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  role?: Resolver<ResolversTypes['UserRole'], ParentType, ContextType>;
};

export type UserErrorResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UserError'] = ResolversParentTypes['UserError']> = {
  code?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errorCode?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  field?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ViewerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Viewer'] = ResolversParentTypes['Viewer']> = {
  merchant?: Resolver<ResolversTypes['Merchant'], ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['KeyMode'], ParentType, ContextType>;
  user?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType>;
};

export type WebhookAttemptResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookAttempt'] = ResolversParentTypes['WebhookAttempt']> = {
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  durationMs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  statusCode?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
};

export type WebhookDeliveryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookDelivery'] = ResolversParentTypes['WebhookDelivery']> = {
  attempts?: Resolver<Array<ResolversTypes['WebhookAttempt']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  endpointId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  event?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  eventId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  orderId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['WebhookDeliveryStatus'], ParentType, ContextType>;
};

export type WebhookDeliveryConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookDeliveryConnection'] = ResolversParentTypes['WebhookDeliveryConnection']> = {
  edges?: Resolver<Array<ResolversTypes['WebhookDeliveryEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
};

export type WebhookDeliveryEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookDeliveryEdge'] = ResolversParentTypes['WebhookDeliveryEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['WebhookDelivery'], ParentType, ContextType>;
};

export type WebhookEndpointResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['WebhookEndpoint'] = ResolversParentTypes['WebhookEndpoint']> = {
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  disabledReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  events?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  legacySignature?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  previousSecretExpiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  ApiKey?: ApiKeyResolvers<ContextType>;
  AuditActor?: AuditActorResolvers<ContextType>;
  AuditEntry?: AuditEntryResolvers<ContextType>;
  AuditEntryConnection?: AuditEntryConnectionResolvers<ContextType>;
  AuditEntryEdge?: AuditEntryEdgeResolvers<ContextType>;
  CancelOrderPayload?: CancelOrderPayloadResolvers<ContextType>;
  ConfirmationPolicy?: ConfirmationPolicyResolvers<ContextType>;
  ConversationWindow?: ConversationWindowResolvers<ContextType>;
  CreateApiKeyPayload?: CreateApiKeyPayloadResolvers<ContextType>;
  CreateOrderPayload?: CreateOrderPayloadResolvers<ContextType>;
  CreateWebhookEndpointPayload?: CreateWebhookEndpointPayloadResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  DeleteWebhookEndpointPayload?: DeleteWebhookEndpointPayloadResolvers<ContextType>;
  FailureCount?: FailureCountResolvers<ContextType>;
  GettingStarted?: GettingStartedResolvers<ContextType>;
  GettingStartedStep?: GettingStartedStepResolvers<ContextType>;
  JSON?: GraphQLScalarType;
  Merchant?: MerchantResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  Order?: OrderResolvers<ContextType>;
  OrderConnection?: OrderConnectionResolvers<ContextType>;
  OrderEdge?: OrderEdgeResolvers<ContextType>;
  OrderItem?: OrderItemResolvers<ContextType>;
  OrderMessage?: OrderMessageResolvers<ContextType>;
  OrderMessageEvent?: OrderMessageEventResolvers<ContextType>;
  OrderStats?: OrderStatsResolvers<ContextType>;
  OrderStatsBucket?: OrderStatsBucketResolvers<ContextType>;
  OrderStatsFigures?: OrderStatsFiguresResolvers<ContextType>;
  OrderStatusEvent?: OrderStatusEventResolvers<ContextType>;
  OrderTimelineEntry?: OrderTimelineEntryResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  QuietHours?: QuietHoursResolvers<ContextType>;
  RecordCustomerAnswerPayload?: RecordCustomerAnswerPayloadResolvers<ContextType>;
  RetryWebhookDeliveryPayload?: RetryWebhookDeliveryPayloadResolvers<ContextType>;
  RevokeApiKeyPayload?: RevokeApiKeyPayloadResolvers<ContextType>;
  RotateWebhookEndpointSecretPayload?: RotateWebhookEndpointSecretPayloadResolvers<ContextType>;
  SallaLinkCodePayload?: SallaLinkCodePayloadResolvers<ContextType>;
  SendOrderMessagePayload?: SendOrderMessagePayloadResolvers<ContextType>;
  SmsFallback?: SmsFallbackResolvers<ContextType>;
  StoreActivity?: StoreActivityResolvers<ContextType>;
  StoreConnection?: StoreConnectionResolvers<ContextType>;
  StoreConnectionPayload?: StoreConnectionPayloadResolvers<ContextType>;
  StoreSettings?: StoreSettingsResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  UpdateConfirmationPolicyPayload?: UpdateConfirmationPolicyPayloadResolvers<ContextType>;
  UpdateWebhookEndpointPayload?: UpdateWebhookEndpointPayloadResolvers<ContextType>;
  User?: UserResolvers<ContextType>;
  UserError?: UserErrorResolvers<ContextType>;
  Viewer?: ViewerResolvers<ContextType>;
  WebhookAttempt?: WebhookAttemptResolvers<ContextType>;
  WebhookDelivery?: WebhookDeliveryResolvers<ContextType>;
  WebhookDeliveryConnection?: WebhookDeliveryConnectionResolvers<ContextType>;
  WebhookDeliveryEdge?: WebhookDeliveryEdgeResolvers<ContextType>;
  WebhookEndpoint?: WebhookEndpointResolvers<ContextType>;
};

