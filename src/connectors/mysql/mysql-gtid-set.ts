/**
 * A MySQL GTID set (`3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,...`): per server UUID, the
 * transaction numbers as merged closed intervals. Tagged GTIDs (MySQL 8.3+) are not supported.
 */
export class MySqlGtidSet {
  readonly #sids = new Map<string, Array<[bigint, bigint]>>();

  static parse(text: string): MySqlGtidSet {
    const set = new MySqlGtidSet();
    for (const part of text.replace(/\s+/g, '').split(',').filter(Boolean)) {
      const [uuid, ...ranges] = part.split(':');
      if (!uuid || !UUID.test(uuid) || ranges.length === 0) throw new Error(`'${part}' is not a MySQL GTID set element (uuid:N[-M][:...])`);
      for (const range of ranges) {
        const m = /^(\d+)(?:-(\d+))?$/.exec(range);
        if (!m) throw new Error(`'${range}' in '${part}' is not an interval (tagged GTIDs are not supported)`);
        set.addInterval(uuid, BigInt(m[1]!), BigInt(m[2] ?? m[1]!));
      }
    }
    return set;
  }

  /** Reads the binary form (as in COM_BINLOG_DUMP_GTID and PREVIOUS_GTIDS events). */
  static decode(data: Buffer): MySqlGtidSet {
    const set = new MySqlGtidSet();
    let at = 0;
    const u64 = () => {
      const v = data.readBigUInt64LE(at);
      at += 8;
      return v;
    };
    const sids = u64();
    for (let i = 0n; i < sids; i++) {
      const hex = data.toString('hex', at, at + 16);
      at += 16;
      const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      const n = u64();
      for (let j = 0n; j < n; j++) {
        const start = u64();
        set.addInterval(uuid, start, u64() - 1n);
      }
    }
    return set;
  }

  /** Adds every interval of another set. */
  merge(other: MySqlGtidSet): void {
    for (const [uuid, iv] of other.#sids) for (const [s, e] of iv) this.addInterval(uuid, s, e);
  }

  /** Adds one GTID, `uuid:N`. */
  add(gtid: string): void {
    const i = gtid.lastIndexOf(':');
    const uuid = gtid.slice(0, i);
    if (i < 0 || !UUID.test(uuid)) throw new Error(`'${gtid}' is not a MySQL GTID (uuid:N)`);
    const n = BigInt(gtid.slice(i + 1));
    this.addInterval(uuid, n, n);
  }

  addInterval(uuid: string, first: bigint, last: bigint): void {
    const key = uuid.toLowerCase();
    const intervals = [...(this.#sids.get(key) ?? []), [first, last] as [bigint, bigint]].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const merged: Array<[bigint, bigint]> = [];
    for (const [s, e] of intervals) {
      const top = merged[merged.length - 1];
      if (top && s <= top[1] + 1n) top[1] = e > top[1] ? e : top[1];
      else merged.push([s, e]);
    }
    this.#sids.set(key, merged);
  }

  toString(): string {
    return [...this.#sids]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([uuid, iv]) => `${uuid}:${iv.map(([s, e]) => (s === e ? `${s}` : `${s}-${e}`)).join(':')}`)
      .join(',');
  }

  /** The binary form COM_BINLOG_DUMP_GTID carries: sids, each with [start, end) intervals. */
  encode(): Buffer {
    const sids = [...this.#sids];
    const size = 8 + sids.reduce((n, [, iv]) => n + 16 + 8 + iv.length * 16, 0);
    const out = Buffer.alloc(size);
    let at = out.writeBigUInt64LE(BigInt(sids.length), 0);
    for (const [uuid, iv] of sids) {
      at += Buffer.from(uuid.replace(/-/g, ''), 'hex').copy(out, at);
      at = out.writeBigUInt64LE(BigInt(iv.length), at);
      for (const [s, e] of iv) {
        at = out.writeBigUInt64LE(s, at);
        at = out.writeBigUInt64LE(e + 1n, at);
      }
    }
    return out;
  }
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
