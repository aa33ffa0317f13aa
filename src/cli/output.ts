import type { ApiKeyRecord } from "../domain/merchants/merchant.repository.ts";
import { displayUrl, type Route } from "./connection.ts";

/** Where results and notes go: results on stdout; notes (what the CLI did on the side) on stderr. */
export interface Output {
  /** In JSON mode stdout carries exactly one JSON object and notes are dropped. */
  readonly json: boolean;
  result(human: string, json: unknown): void;
  note(text: string): void;
}

export function createOutput(json: boolean, stdout = process.stdout, stderr = process.stderr): Output {
  return {
    json,
    result(human, value) {
      stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
    },
    note(text) {
      if (!json) stderr.write(`${text}\n`);
    },
  };
}

/** What may be shown of a key after its creation: never the key itself, never its hash. */
export interface KeyView {
  id: string;
  merchantId: string;
  mode: string;
  prefix: string;
  name: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function keyView(record: ApiKeyRecord): KeyView {
  return {
    id: record.id,
    merchantId: record.merchantId,
    mode: record.mode,
    prefix: record.prefix,
    name: record.name,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}

export function describeRoute(route: Route): string {
  switch (route.via) {
    case "server":
      return `Using the embedded database of the running server (pid ${route.pid}) in ${route.dataDir}.`;
    case "embedded":
      return `Using the embedded database in ${route.dataDir}.`;
    case "postgres":
      return `Using PostgreSQL at ${displayUrl(route.url)}.`;
  }
}

export function keyTable(keys: KeyView[]): string {
  const rows = [
    ["ID", "MODE", "PREFIX", "NAME", "CREATED", "LAST USED", "REVOKED"],
    ...keys.map((key) => [
      key.id,
      key.mode,
      `${key.prefix}…`,
      key.name ?? "-",
      key.createdAt,
      key.lastUsedAt ?? "never",
      key.revokedAt ?? "-",
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd()}`).join("\n");
}

export function userTable(users: { id: string; email: string; role: string; createdAt: string }[]): string {
  const rows = [["ID", "EMAIL", "ROLE", "CREATED"], ...users.map((user) => [user.id, user.email, user.role, user.createdAt])];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd()}`).join("\n");
}
