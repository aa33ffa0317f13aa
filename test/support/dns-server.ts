import dns2 from "dns2";

const { Packet } = dns2;

/**
 * A small authoritative DNS server on loopback UDP (dns2) with a zone the test changes as it goes: answers A and
 * AAAA for the names it knows, NXDOMAIN for the rest, TTL 0. Point WEBHOOK_DNS_SERVERS at `address`.
 */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as WEBHOOK_DNS_SERVERS takes it. */
  readonly address: string;
  /** Every question asked so far, as `name/TYPE`. */
  readonly queries: string[];
  /** Sets (or replaces) a name's addresses; IPv6 ones are served as AAAA. */
  set(name: string, addresses: string[]): void;
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, string[]>();
  const queries: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = question.name.toLowerCase().replace(/\.$/, "");
      const type = question.type === Packet.TYPE.AAAA ? "AAAA" : question.type === Packet.TYPE.A ? "A" : String(question.type);
      queries.push(`${name}/${type}`);
      const addresses = zone.get(name);
      if (!addresses) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
        return send(response);
      }
      for (const address of addresses) {
        const v6 = address.includes(":");
        if ((type === "AAAA") !== v6) continue;
        // dns2 encodes plain answer objects; its type wants a Resource instance.
        response.answers.push({ name: question.name, type: v6 ? Packet.TYPE.AAAA : Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 0, address } as never);
      }
      send(response);
    },
  });
  const listening = new Promise<void>((resolve) => server.on("listening", () => resolve()));
  await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  await listening;
  const { udp } = server.addresses() as { udp: { port: number } };
  return {
    address: `127.0.0.1:${udp.port}`,
    queries,
    set(name, addresses) {
      zone.set(name.toLowerCase(), addresses);
    },
    async close() {
      await server.close();
    },
  };
}
