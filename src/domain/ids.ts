import { getRandomValues } from "node:crypto";
import { v7 } from "uuid";

/**
 * Random bytes for ids, taken 16 at a time from a pool filled 4 KiB at a time: `uuid` asks the CSPRNG for 16 bytes on
 * every id, which cost about 3 % of the create path's CPU (bench:rest profile; an order takes several ids).
 */
const RANDOM_POOL = new Uint8Array(4096);
let randomOffset = RANDOM_POOL.length;
function pooledRandom(count: number): Uint8Array {
  if (randomOffset + count > RANDOM_POOL.length) {
    getRandomValues(RANDOM_POOL);
    randomOffset = 0;
  }
  const bytes = RANDOM_POOL.subarray(randomOffset, randomOffset + count);
  randomOffset += count;
  return bytes;
}

/**
 * `byteCount` random bytes (at most 64) as base64url, from the same pool: for identifiers that are not secrets (the
 * simulator's message ids). Secrets (keys, session tokens, webhook secrets) take their bytes from the CSPRNG directly.
 */
export function randomIdText(byteCount: number): string {
  if (!Number.isInteger(byteCount) || byteCount < 1 || byteCount > 64) throw new RangeError(`byteCount ${byteCount}: 1 to 64`);
  const bytes = pooledRandom(byteCount);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** The last id's millisecond and counter: ids of one process stay strictly ordered within a millisecond, as uuid's own. */
const state = { msecs: -Infinity, seq: 0 };

/** Time-ordered UUIDs (v7): new rows land at the right edge of their indexes. */
export const newId = (): string => {
  const random = pooledRandom(16);
  const now = Date.now();
  if (now > state.msecs) {
    // A fresh random 31-bit counter each millisecond (uuid's v7Sequence), so ids are not guessable from each other.
    state.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
    state.msecs = now;
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++;
  }
  return v7({ random, msecs: state.msecs, seq: state.seq });
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Malformed ids are answered like unknown ones (404), so they are checked before reaching the database. */
export const isUuid = (value: string): boolean => UUID.test(value);
