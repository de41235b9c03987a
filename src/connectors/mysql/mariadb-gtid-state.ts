/**
 * MariaDB's GTID position: per replication domain, the last GTID (domain-server-sequence).
 * Printed as MariaDB prints @@gtid_binlog_pos: `0-1-57,1-2-9`, domains in ascending order.
 */
export class MariaDbGtidState {
  readonly #domains = new Map<number, { server: number; seq: bigint }>();

  static parse(text: string): MariaDbGtidState {
    const state = new MariaDbGtidState();
    for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) state.add(part);
    return state;
  }

  /** Records `domain-server-seq` as the domain's latest GTID. */
  add(gtid: string): void {
    const m = /^(\d+)-(\d+)-(\d+)$/.exec(gtid.trim());
    if (!m) throw new Error(`'${gtid}' is not a MariaDB GTID (domain-server-sequence)`);
    this.set(Number(m[1]), Number(m[2]), BigInt(m[3]!));
  }

  set(domain: number, server: number, seq: bigint): void {
    this.#domains.set(domain, { server, seq });
  }

  /** Takes each domain of `other` that is unknown here or further along there. */
  merge(other: MariaDbGtidState): void {
    for (const [domain, d] of other.#domains) {
      const mine = this.#domains.get(domain);
      if (!mine || mine.seq < d.seq) this.#domains.set(domain, d);
    }
  }

  toString(): string {
    return [...this.#domains]
      .sort(([a], [b]) => a - b)
      .map(([domain, { server, seq }]) => `${domain}-${server}-${seq}`)
      .join(',');
  }
}
