import { randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Console passwords, hashed with scrypt (memory-hard, built into Node: no dependency, no install script).
 *
 * Parameters: N = 2^16, r = 8, p = 2, one of OWASP's recommended scrypt settings (64 MiB per hash, about 0.2 s on
 * one core here). scrypt runs on libuv's thread pool (4 threads), so at most 4 hashes run at once: 256 MiB at
 * worst. The stored form names its parameters (`scrypt$16$8$2$<salt>$<hash>`), so they can be raised later and
 * old hashes still verify.
 */
const LOG2_N = 16;
const BLOCK_SIZE = 8;
const PARALLELISM = 2;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

/** Bounds on what a person may choose (the upper one bounds the work a sign-in request can cause). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

const STORED = /^scrypt\$(\d{1,2})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number, length: number): Promise<Buffer> {
  const N = 2 ** log2N;
  // maxmem must cover 128 * N * r bytes (plus slack); Node's default (32 MiB) would refuse these parameters.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, LOG2_N, BLOCK_SIZE, PARALLELISM, KEY_LENGTH);
  return `scrypt$${LOG2_N}$${BLOCK_SIZE}$${PARALLELISM}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Constant-time comparison; a malformed stored hash verifies nothing (after doing the same work). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = STORED.exec(stored);
  if (!match) {
    await derive(password, randomBytes(SALT_BYTES), LOG2_N, BLOCK_SIZE, PARALLELISM, KEY_LENGTH);
    return false;
  }
  const [, log2N, r, p, salt, hash] = match;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(log2N), Number(r), Number(p), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | null = null;

/**
 * A hash of nothing anyone knows, verified against when the e-mail is unknown, so that a wrong e-mail costs the
 * same time as a wrong password (the answer must not tell whether an account exists).
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString("base64url"));
  return dummy;
}

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

/** 24 characters from a 57-letter alphabet without look-alikes (about 140 bits). */
export function generatePassword(length = 24): string {
  let password = "";
  for (let i = 0; i < length; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  return password;
}
