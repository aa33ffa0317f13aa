import net from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 request written byte for byte (fetch normalises paths such as `/a/../b`, so traversal and
 * malformed-request tests need the raw socket). Connection: close; the whole answer is read.
 */
export function rawRequest(baseUrl: string, requestLine: string, headers: Record<string, string> = {}, body = ""): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      const head = Object.entries({ host: url.host, connection: "close", ...headers })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      socket.write(`${requestLine}\r\n${head}\r\n${body}`);
    });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => resolve(parseResponse(Buffer.concat(chunks).toString("utf8"))));
  });
}

export function parseResponse(text: string): RawResponse {
  const [head, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...headerLines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}
