import { createHash, randomBytes } from "node:crypto";

/** The cookie's value: 32 random bytes, base64url (43 characters). Only its SHA-256 is stored. */
export function generateSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export function isSessionTokenFormat(token: string): boolean {
  return TOKEN_FORMAT.test(token);
}

/** 256 random bits need no slow hash: SHA-256 makes the stored ids useless as cookies and keeps lookups indexed. */
export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
