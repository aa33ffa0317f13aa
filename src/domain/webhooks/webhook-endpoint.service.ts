import { NotFoundError, ValidationError, WebhookEndpointLimitError } from "../errors.ts";
import { isUuid, newId } from "../ids.ts";
import { ORDER_EVENT_NAMES, type OrderEventName } from "../orders/order-state.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from "./webhook-endpoint.schemas.ts";
import type { WebhookEndpointChange, WebhookEndpointRecord, WebhookEndpointRepository } from "./webhook-endpoint.repository.ts";
import { generateWebhookSecret, SECRET_ROTATION_OVERLAP_MS } from "./webhook-secret.ts";
import { checkWebhookUrl } from "./url-guard.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { AuditSource } from "../audit/audit-log.ts";
import { endpointSecretContext } from "./endpoint-secret-context.ts";

/** Per merchant and mode: enough for any real integration, bounded so fan-out cost stays bounded. */
export const MAX_ENDPOINTS_PER_MODE = 20;

/** What the API shows of an endpoint. The secret is not part of it: it is shown once, on create and rotation. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string | null;
  events: OrderEventName[];
  enabled: boolean;
  /** Why the service disabled it (e.g. the receiver answered 410 Gone); null otherwise. */
  disabledReason: string | null;
  /** While set and in the future, deliveries are also signed with the secret before the last rotation. */
  previousSecretExpiresAt: string | null;
  /** Deliveries also carry x-webhook-signature-256 (body-only, replayable): only when the merchant asked. */
  legacySignature: boolean;
  createdAt: string;
  updatedAt: string;
}

export type WebhookEndpointWithSecret = WebhookEndpointView & { secret: string };

export interface WebhookEndpointServiceOptions {
  allowPrivateUrls: boolean;
  /** WEBHOOK_DNS_SERVERS (null: the system's). */
  dnsServers?: readonly string[] | null;
  /** Seals secrets before they are stored (SPEC §14). */
  secrets: SecretBox;
  clock?: () => Date;
}

export class WebhookEndpointService {
  private readonly clock: () => Date;

  constructor(
    private readonly endpoints: WebhookEndpointRepository,
    private readonly options: WebhookEndpointServiceOptions,
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  async create(scope: MerchantScope, input: CreateWebhookEndpointInput, audit: AuditSource): Promise<WebhookEndpointWithSecret> {
    await this.assertDeliverableUrl(input.url);
    if ((await this.endpoints.count(scope)) >= MAX_ENDPOINTS_PER_MODE) throw new WebhookEndpointLimitError(MAX_ENDPOINTS_PER_MODE);
    const id = newId();
    const secret = generateWebhookSecret();
    const record = await this.endpoints.insert(
      scope,
      {
        id,
        url: input.url,
        description: input.description || null,
        events: input.events ?? [...ORDER_EVENT_NAMES],
        enabled: input.enabled ?? true,
        legacySignature: input.legacySignature ?? false,
        secret: this.options.secrets.seal(secret, endpointSecretContext(id)),
        now: this.clock(),
      },
      audit,
    );
    return { ...this.view(record), secret };
  }

  async list(scope: MerchantScope): Promise<WebhookEndpointView[]> {
    return (await this.endpoints.list(scope)).map((record) => this.view(record));
  }

  async get(scope: MerchantScope, id: string): Promise<WebhookEndpointView> {
    return this.view(await this.find(scope, id));
  }

  async update(scope: MerchantScope, id: string, input: UpdateWebhookEndpointInput): Promise<WebhookEndpointView> {
    await this.find(scope, id);
    if (input.url !== undefined) await this.assertDeliverableUrl(input.url);
    const change: WebhookEndpointChange = {};
    if (input.url !== undefined) change.url = input.url;
    if (input.events !== undefined) change.events = input.events;
    if (input.description !== undefined) change.description = input.description || null;
    if (input.legacySignature !== undefined) change.legacySignature = input.legacySignature;
    if (input.enabled !== undefined) {
      change.enabled = input.enabled;
      // Whoever switches it now decides; an old automatic reason would only mislead.
      change.disabledReason = null;
    }
    const updated = await this.endpoints.update(scope, id, change, this.clock());
    if (!updated) throw new NotFoundError("webhookEndpoint");
    return this.view(updated);
  }

  async remove(scope: MerchantScope, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.endpoints.delete(scope, id))) throw new NotFoundError("webhookEndpoint");
  }

  /** A new secret signs from now on; the current one keeps signing alongside it for 24 h. */
  async rotateSecret(scope: MerchantScope, id: string, audit: AuditSource): Promise<WebhookEndpointWithSecret> {
    const endpoint = await this.find(scope, id);
    const now = this.clock();
    const secret = generateWebhookSecret();
    const sealed = this.options.secrets.seal(secret, endpointSecretContext(endpoint.id));
    const rotated = await this.endpoints.rotateSecret(scope, endpoint.id, sealed, new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS), now, audit);
    if (!rotated) throw new NotFoundError("webhookEndpoint");
    return { ...this.view(rotated), secret };
  }

  private async find(scope: MerchantScope, id: string): Promise<WebhookEndpointRecord> {
    const record = isUuid(id) ? await this.endpoints.find(scope, id) : null;
    if (!record) throw new NotFoundError("webhookEndpoint");
    return record;
  }

  private async assertDeliverableUrl(url: string): Promise<void> {
    const problem = await checkWebhookUrl(url, { allowPrivate: this.options.allowPrivateUrls, dnsServers: this.options.dnsServers });
    if (!problem) return;
    const key = problem === "format" ? "field.format.webhook_url" : `field.webhook_url.${problem}`;
    throw new ValidationError([{ field: "url", key }]);
  }

  private view(record: WebhookEndpointRecord): WebhookEndpointView {
    const overlapActive = record.previousSecretExpiresAt && record.previousSecretExpiresAt > this.clock();
    return {
      id: record.id,
      url: record.url,
      description: record.description,
      // Written only through the validated event list.
      events: record.events as OrderEventName[],
      enabled: record.enabled,
      disabledReason: record.disabledReason,
      previousSecretExpiresAt: overlapActive ? record.previousSecretExpiresAt!.toISOString() : null,
      legacySignature: record.legacySignature,
      createdAt: record.createdAt.toISOString(),
      updatedAt: record.updatedAt.toISOString(),
    };
  }
}
