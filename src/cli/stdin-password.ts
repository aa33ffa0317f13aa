import { CliError } from "./errors.ts";

/** More than any password we accept (256 characters): a larger stdin is refused rather than read on. */
const MAX_STDIN_BYTES = 4096;

/**
 * SPEC §10: when stdin is not a terminal, its first line is the password (a trailing CR/LF is not part of it).
 * An empty stdin (`</dev/null`, a closed pipe, an empty line) gives undefined, and a terminal is never read:
 * the caller then generates a password and shows it once.
 */
export async function passwordFromStdin(stdin: NodeJS.ReadStream = process.stdin): Promise<string | undefined> {
  if (stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_STDIN_BYTES) throw new CliError(`stdin carries more than ${MAX_STDIN_BYTES} bytes; pipe the password as one line.`);
    chunks.push(buffer);
  }
  const line = Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0];
  return line === "" ? undefined : line;
}
