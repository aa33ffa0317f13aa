import { SecretBox } from "../secrets/secret-box.ts";

/**
 * The context an endpoint's secrets are sealed under: a sealed value copied into another endpoint's row does not
 * open there (SecretBox binds it as additional data).
 */
export function endpointSecretContext(endpointId: string): string {
  return `webhook-endpoint:${endpointId.toLowerCase()}`;
}

/**
 * The plaintext of a stored endpoint secret. A value that is not sealed is one written before sealing existed
 * (or by an older instance during an upgrade): it is used as it is until the start-up step seals it
 * (seal-stored-secrets.ts).
 */
export function openEndpointSecret(box: SecretBox, endpointId: string, stored: string): string {
  return SecretBox.isSealed(stored) ? box.open(stored, endpointSecretContext(endpointId)) : stored;
}
