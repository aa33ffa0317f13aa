/** The context a store connection's sealed credentials are bound to (SecretBox additional data). */
export function credentialsContext(connectionId: string): string {
  return `store_connection:${connectionId}:credentials`;
}
