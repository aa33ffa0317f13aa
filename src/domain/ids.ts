import { v7 } from "uuid";

/** Time-ordered UUIDs (v7): new rows land at the right edge of their indexes. */
export const newId = (): string => v7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Malformed ids are answered like unknown ones (404), so they are checked before reaching the database. */
export const isUuid = (value: string): boolean => UUID.test(value);
