/**
 * The durable webhook inbox: every delivery the receiver answers 202 is first appended here, and
 * the answer waits for the disk (`fdatasync`). Its files live in `<state.root>/webhook-inbox/`
 * as numbered segments (`000000000001.seg`, …), each a run of records:
 *
 * ```
 * [u32 LE length of payload][u32 LE crc32 of payload][payload]
 * payload "D": "D" [u32 LE meta length] {"seq","id","ev","at"} body bytes   (a delivery)
 * payload "S": "S" [seq, seq, …] as JSON                                   (those settled)
 * ```
 *
 * - **Group commit.** Appends gather and are written together, at most once every
 *   `paceMs` under load (the intake's pace, `async/pacer.ts`), with one `fdatasync` per batch;
 *   every append of a batch resolves once that batch is on disk. While one batch syncs, the next
 *   gathers.
 * - **Settled** marks are appended with the next batch and not synced on their own: a mark lost
 *   to an OS crash costs a replay that the session registry then settles as a duplicate.
 * - **Replay.** {@linkcode Inbox.open} reads every segment and gives back the deliveries not
 *   settled, in arrival (`seq`) order; new appends go to a new segment.
 * - **Torn records.** A record cut short (a crash mid-write) ends what is read of its segment:
 *   the rest is skipped and told to `onTorn` (the segment is cut back to its last whole record),
 *   never a refusal to open. A record whose checksum fails is skipped alone (and told), and the
 *   records after it are read.
 * - **Compaction and bound.** Segments roll at `segmentBytes`; the oldest segments are deleted
 *   once all their deliveries are settled, and an old one holding few unsettled deliveries has
 *   them copied forward (same `seq`) and is deleted after the copy is synced; a copy whose write
 *   or sync fails leaves them in the old segment, which stays until a later copy is synced. The
 *   files never exceed `maxBytes`: an append that would is refused ({@linkcode InboxFullError}).
 *
 * One owner per folder (the intake worker); files are read and written synchronously but synced
 * asynchronously, so a sync never blocks the thread.
 *
 * @module
 */
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { pacer } from "../async/mod.ts";

/** Default bound on the inbox's files (256 MiB). */
export const DEFAULT_INBOX_MAX_BYTES = 256 * 1024 * 1024;
/** Default size at which a segment rolls (8 MiB). */
export const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;

/** The inbox's files would exceed their bound: the delivery is refused (503). */
export class InboxFullError extends Error {
  override name = "InboxFullError";
}

/** One accepted delivery, as stored. */
export interface InboxEntry {
  /** Arrival order, over restarts. */
  seq: number;
  deliveryId: string;
  ghEvent: string;
  /** When it was accepted (ISO time). */
  at: string;
}

/** What a torn record left (told to `onTorn`). */
export interface TornRecord {
  segment: string;
  offset: number;
  /** Bytes skipped (cut from the segment). */
  bytes: number;
  reason: "short" | "checksum";
}

/** Options of {@linkcode Inbox.open}. */
export interface InboxOptions {
  dir: string;
  /** Most bytes of the inbox's files; default {@linkcode DEFAULT_INBOX_MAX_BYTES}. */
  maxBytes?: number;
  /** A segment's size at which it rolls; default {@linkcode DEFAULT_SEGMENT_BYTES}. */
  segmentBytes?: number;
  /** The least time (ms) between two batches under load; default 1. */
  paceMs?: number;
  /** Told each torn record found while opening. */
  onTorn?: (torn: TornRecord) => void;
  /** Told when a sync or write fails (the appends waiting on it are refused). */
  onError?: (error: unknown) => void;
}

interface Where {
  segment: number;
  offset: number;
  length: number;
}

interface Segment {
  n: number;
  path: string;
  bytes: number;
  /** Unsettled deliveries whose newest copy is here. */
  live: Set<number>;
  liveBytes: number;
  /** While its unsettled deliveries are copied forward: their places here, until the copy syncs. */
  copies?: Map<number, Where>;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const HEADER = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const TYPE_D = 0x44;
const TYPE_S = 0x53;

function segmentName(n: number): string {
  return `${String(n).padStart(12, "0")}.seg`;
}

function frame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, payload.length, true);
  view.setUint32(4, crc32(payload) >>> 0, true);
  out.set(payload, HEADER);
  return out;
}

function deliveryPayload(entry: InboxEntry, body: Uint8Array): Uint8Array {
  const meta = encoder.encode(
    JSON.stringify({ seq: entry.seq, id: entry.deliveryId, ev: entry.ghEvent, at: entry.at }),
  );
  const payload = new Uint8Array(5 + meta.length + body.length);
  payload[0] = TYPE_D;
  new DataView(payload.buffer).setUint32(1, meta.length, true);
  payload.set(meta, 5);
  payload.set(body, 5 + meta.length);
  return payload;
}

function settlePayload(seqs: number[]): Uint8Array {
  const json = encoder.encode(JSON.stringify(seqs));
  const payload = new Uint8Array(1 + json.length);
  payload[0] = TYPE_S;
  payload.set(json, 1);
  return payload;
}

/** The durable inbox of one receiver. */
export class Inbox {
  readonly dir: string;
  readonly maxBytes: number;
  readonly #segmentBytes: number;
  readonly #onError: (error: unknown) => void;
  readonly #segments: Segment[] = [];
  readonly #where = new Map<number, Where>();
  #file!: Deno.FsFile;
  #current!: Segment;
  #nextSeq = 1;
  #bytes = 0;
  /** Framed records waiting for the next batch, and who waits for it. */
  #chunks: Uint8Array[] = [];
  #chunkBytes = 0;
  #waiters: Waiter[] = [];
  #settled: number[] = [];
  /** Segments compacted, their copies gathering: deleted once the batch holding those is synced. */
  #retiring: Segment[] = [];
  /** Files of segments rolled over: synced with the next batch, then closed. */
  #rolled: Deno.FsFile[] = [];
  #syncing = false;
  #closed = false;
  readonly #pace: { schedule(): void; ran(): void };
  #failure?: Error;

  private constructor(opts: InboxOptions) {
    this.dir = opts.dir;
    this.maxBytes = opts.maxBytes ?? DEFAULT_INBOX_MAX_BYTES;
    this.#segmentBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.#onError = opts.onError ?? (() => {});
    this.#pace = pacer(() => this.#flush(), { intervalMs: opts.paceMs ?? 1 });
  }

  /**
   * Opens (creating) the inbox in `opts.dir`; returns it and the deliveries accepted and not
   * settled, in arrival order. Throws only when the folder cannot be created or read.
   */
  static open(opts: InboxOptions): { inbox: Inbox; pending: InboxEntry[] } {
    Deno.mkdirSync(opts.dir, { recursive: true });
    const inbox = new Inbox(opts);
    const pending = inbox.#scan(opts.onTorn ?? (() => {}));
    inbox.#roll();
    return { inbox, pending };
  }

  /** Bytes of the inbox's files (written and gathering). */
  get bytes(): number {
    return this.#bytes + this.#chunkBytes;
  }

  /**
   * Appends a delivery; resolves with its `seq` once it is on disk. Throws at once
   * {@linkcode InboxFullError} when it would exceed the bound; rejects when the write or the
   * sync fails (the delivery must then be refused).
   */
  append(d: { deliveryId: string; ghEvent: string; body: Uint8Array }): Promise<number> {
    if (this.#closed) return Promise.reject(new Error("the webhook inbox is closed"));
    if (this.#failure) {
      try {
        this.#roll(); // the disk may be writable again
        this.#failure = undefined;
      } catch {
        return Promise.reject(this.#failure);
      }
    }
    const seq = this.#nextSeq;
    const entry: InboxEntry = {
      seq,
      deliveryId: d.deliveryId,
      ghEvent: d.ghEvent,
      at: new Date().toISOString(),
    };
    const record = frame(deliveryPayload(entry, d.body));
    if (this.bytes + record.length > this.maxBytes) this.#compact();
    if (this.bytes + record.length > this.maxBytes) {
      throw new InboxFullError(
        `the webhook inbox in ${this.dir} holds ${this.bytes} bytes, its bound is ` +
          `${this.maxBytes} (webhooks.ghWebhook.inbox.maxBytes)`,
      );
    }
    this.#nextSeq++;
    this.#place(seq, record);
    return new Promise<number>((resolve, reject) => {
      this.#waiters.push({ seq, resolve: () => resolve(seq), reject });
      this.#pace.schedule();
    });
  }

  /** Marks `seq` settled (written with the next batch, not synced on its own). */
  settle(seq: number): void {
    if (!this.#forget(seq)) return;
    this.#settled.push(seq);
    if (!this.#closed) this.#pace.schedule();
  }

  /** The body of an unsettled delivery, read back from its segment. */
  body(seq: number): Uint8Array {
    const where = this.#where.get(seq);
    if (!where) throw new RangeError(`delivery ${seq} is not in the inbox`);
    const buffered = this.#buffered(where);
    const record = buffered ?? this.#readAt(where);
    const view = new DataView(record.buffer, record.byteOffset);
    const metaLength = view.getUint32(HEADER + 1, true);
    return record.subarray(HEADER + 5 + metaLength);
  }

  /** Writes what gathered (without waiting for the disk) and stops. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pace.ran();
    try {
      this.#writeOut();
    } catch { /* closing: the next open finds what reached the disk */ }
    for (const w of this.#waiters) w.reject(new Error("the webhook inbox closed"));
    this.#waiters = [];
    this.#file.close();
    if (!this.#syncing) { for (const f of this.#rolled) f.close(); }
    this.#rolled = [];
  }

  /** Puts a framed delivery record into the gathering batch, at the current segment. */
  #place(seq: number, record: Uint8Array): void {
    if (
      this.#current.bytes + this.#chunkBytes > 0 &&
      this.#current.bytes + this.#chunkBytes + record.length > this.#segmentBytes
    ) {
      try {
        this.#writeOut();
        this.#roll();
      } catch (error) {
        // what gathered is not on disk: its appends are refused, never answered by a later sync
        const waiters = this.#waiters;
        this.#waiters = [];
        this.#fail(error, waiters);
        throw error;
      }
    }
    const where: Where = {
      segment: this.#current.n,
      offset: this.#current.bytes + this.#chunkBytes,
      length: record.length,
    };
    this.#chunks.push(record);
    this.#chunkBytes += record.length;
    this.#unlive(seq);
    this.#where.set(seq, where);
    this.#current.live.add(seq);
    this.#current.liveBytes += record.length;
  }

  /** A record still in the gathering batch, if `where` is one. */
  #buffered(where: Where): Uint8Array | undefined {
    if (where.segment !== this.#current.n || where.offset < this.#current.bytes) return undefined;
    let at = this.#current.bytes;
    for (const chunk of this.#chunks) {
      if (at === where.offset) return chunk;
      at += chunk.length;
    }
    return undefined;
  }

  #readAt(where: Where): Uint8Array {
    const segment = this.#segments.find((s) => s.n === where.segment)!;
    using file = Deno.openSync(segment.path, { read: true });
    file.seekSync(where.offset, Deno.SeekMode.Start);
    const out = new Uint8Array(where.length);
    let got = 0;
    while (got < out.length) {
      const n = file.readSync(out.subarray(got));
      if (n === null) throw new Error(`${segment.path}: cut short at ${where.offset + got}`);
      got += n;
    }
    return out;
  }

  /** Writes the gathering records (and settled marks) to the current segment, unsynced. */
  #writeOut(): void {
    if (this.#settled.length > 0) {
      const mark = frame(settlePayload(this.#settled));
      this.#settled = [];
      this.#chunks.push(mark);
      this.#chunkBytes += mark.length;
    }
    if (this.#chunks.length === 0) return;
    const all = new Uint8Array(this.#chunkBytes);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    this.#chunks = [];
    this.#chunkBytes = 0;
    let rest = all;
    while (rest.length > 0) rest = rest.subarray(this.#file.writeSync(rest));
    this.#current.bytes += all.length;
    this.#bytes += all.length;
  }

  /** One batch: written, synced, its waiters answered; then the next, if one gathered. */
  #flush(): void {
    this.#pace.ran();
    if (this.#syncing || this.#closed) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    const retiring = this.#retiring;
    this.#retiring = [];
    try {
      this.#writeOut();
    } catch (error) {
      this.#fail(error, waiters, retiring);
      return;
    }
    const rolled = this.#rolled;
    if (waiters.length === 0 && retiring.length === 0 && rolled.length === 0) {
      this.#compactOrSay();
      return; // only settled marks: not synced on their own
    }
    this.#rolled = [];
    this.#syncing = true;
    const files = [...rolled, this.#file];
    Promise.all(files.map((f) => f.syncData())).then(() => {
      for (const w of waiters) w.resolve();
      for (const s of retiring) {
        s.copies = undefined;
        this.#delete(s);
      }
    }, (error) => this.#fail(error, waiters, retiring)).finally(() => {
      for (const f of rolled) f.close();
      this.#syncing = false;
      if (this.#closed) return;
      this.#compactOrSay();
      if (this.#waiters.length > 0 || this.#chunks.length > 0 || this.#settled.length > 0) {
        if (!this.#closed) this.#pace.schedule();
      }
    });
  }

  #fail(error: unknown, waiters: Waiter[], retiring: Segment[] = []): void {
    const err = error instanceof Error ? error : new Error(String(error));
    // the appends gathered meanwhile (a failed sync) are in the chunks dropped below: refused too,
    // or the next batch's sync would answer them for bytes that never reached the disk
    const refused = [...waiters, ...this.#waiters];
    this.#waiters = [];
    for (const w of refused) {
      w.reject(err);
      // refused (503): what reached the disk of it is marked settled, never replayed
      if (this.#forget(w.seq)) this.#settled.push(w.seq);
    }
    this.#onError(err);
    // what was gathered may be half written: a new segment, and the next appends try afresh;
    // copies in it were not synced, so their deliveries stay in the old segments (compacted later)
    this.#chunks = [];
    this.#chunkBytes = 0;
    for (const s of [...retiring, ...this.#retiring]) this.#keep(s);
    this.#retiring = [];
    if (this.#closed) return;
    try {
      this.#roll();
    } catch (e) {
      this.#failure = e instanceof Error ? e : new Error(String(e));
    }
  }

  /** {@linkcode #compact}, a failed copy told to `onError` (its copies were refused; the old segment stays). */
  #compactOrSay(): void {
    try {
      this.#compact();
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Deletes old segments all settled; copies forward the few unsettled of a sparse old one. */
  #compact(): void {
    while (this.#segments.length > 1) {
      const oldest = this.#segments[0];
      if (oldest === this.#current || oldest.copies) return; // its copies are not synced yet
      if (oldest.live.size === 0) {
        this.#delete(oldest);
        continue;
      }
      const sparse = oldest.liveBytes * 4 <= oldest.bytes;
      const crowded = this.bytes > this.maxBytes / 2;
      if (!sparse && !crowded) return;
      if (oldest.liveBytes * 2 > oldest.bytes) return; // copying would not win room
      oldest.copies = new Map();
      this.#retiring.push(oldest);
      try {
        for (const seq of [...oldest.live].sort((a, b) => a - b)) {
          const where = this.#where.get(seq)!;
          oldest.copies.set(seq, where);
          this.#place(seq, this.#readAt(where));
        }
      } catch (error) {
        const i = this.#retiring.indexOf(oldest);
        if (i >= 0) this.#retiring.splice(i, 1);
        this.#keep(oldest);
        throw error;
      }
      this.#pace.schedule();
      return;
    }
  }

  /** A compaction's copies were not synced: those unsettled are the old segment's again. */
  #keep(old: Segment): void {
    for (const [seq, where] of old.copies ?? []) {
      if (!this.#unlive(seq)) continue; // settled
      this.#where.set(seq, where);
      old.live.add(seq);
      old.liveBytes += where.length;
    }
    old.copies = undefined;
  }

  /**
   * Takes `seq` out of the live set of the segment holding its newest copy (its place stays in
   * `#where`); false when it has none (settled, or never placed).
   */
  #unlive(seq: number): boolean {
    const where = this.#where.get(seq);
    if (!where) return false;
    const segment = this.#segments.find((s) => s.n === where.segment);
    if (segment?.live.delete(seq)) segment.liveBytes -= where.length;
    return true;
  }

  /** `seq` is no longer unsettled: out of its segment and of `#where`; false when it was not. */
  #forget(seq: number): boolean {
    if (!this.#unlive(seq)) return false;
    this.#where.delete(seq);
    return true;
  }

  #delete(segment: Segment): void {
    const i = this.#segments.indexOf(segment);
    if (i < 0) return;
    try {
      Deno.removeSync(segment.path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return this.#onError(error);
    }
    this.#segments.splice(i, 1);
    this.#bytes -= segment.bytes;
  }

  #roll(): void {
    const n = (this.#segments.at(-1)?.n ?? 0) + 1;
    const path = join(this.dir, segmentName(n));
    const file = Deno.openSync(path, { write: true, create: true, truncate: true });
    // what was written to the segment before is synced (and the file closed) with the next batch
    if (this.#file) this.#rolled.push(this.#file);
    this.#file = file;
    this.#current = { n, path, bytes: 0, live: new Set(), liveBytes: 0 };
    this.#segments.push(this.#current);
  }

  /** Reads every segment; the unsettled deliveries in `seq` order. */
  #scan(onTorn: (torn: TornRecord) => void): InboxEntry[] {
    const names = [...Deno.readDirSync(this.dir)]
      .filter((e) => e.isFile && /^\d{12}\.seg$/.test(e.name))
      .map((e) => e.name)
      .sort();
    const entries = new Map<number, InboxEntry>();
    const settled = new Set<number>();
    for (const name of names) {
      const path = join(this.dir, name);
      const data = Deno.readFileSync(path);
      const segment: Segment = {
        n: Number(name.slice(0, 12)),
        path,
        bytes: 0,
        live: new Set(),
        liveBytes: 0,
      };
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      let at = 0;
      while (at < data.length) {
        const length = at + HEADER <= data.length ? view.getUint32(at, true) : -1;
        const torn = length < 0 || at + HEADER + length > data.length
          ? "short"
          : crc32(data.subarray(at + HEADER, at + HEADER + length)) >>> 0 !==
              view.getUint32(at + 4, true)
          ? "checksum"
          : undefined;
        if (torn === "checksum") {
          // a damaged record whose length still fits: only it is skipped, not the whole
          // (synced, answered) records after it
          onTorn({ segment: path, offset: at, bytes: HEADER + length, reason: torn });
          at += HEADER + length;
          continue;
        }
        if (torn) {
          onTorn({ segment: path, offset: at, bytes: data.length - at, reason: torn });
          Deno.truncateSync(path, at);
          break;
        }
        const payload = data.subarray(at + HEADER, at + HEADER + length);
        const record = { segment: segment.n, offset: at, length: HEADER + length };
        at += HEADER + length;
        if (payload[0] === TYPE_S) {
          for (const seq of JSON.parse(decoder.decode(payload.subarray(1)))) settled.add(seq);
        } else if (payload[0] === TYPE_D) {
          const metaLength = new DataView(payload.buffer, payload.byteOffset).getUint32(1, true);
          const meta = JSON.parse(decoder.decode(payload.subarray(5, 5 + metaLength)));
          const entry: InboxEntry = {
            seq: meta.seq,
            deliveryId: meta.id,
            ghEvent: meta.ev,
            at: meta.at,
          };
          entries.set(entry.seq, entry);
          this.#unlive(entry.seq);
          this.#where.set(entry.seq, record);
          segment.live.add(entry.seq);
          segment.liveBytes += record.length;
          this.#nextSeq = Math.max(this.#nextSeq, entry.seq + 1);
        }
      }
      segment.bytes = at;
      this.#bytes += at;
      this.#segments.push(segment);
    }
    for (const seq of settled) {
      entries.delete(seq);
      this.#forget(seq);
    }
    // the oldest segments left with nothing unsettled go at once (oldest first only: a later
    // segment may hold the settled marks of deliveries in an earlier one that stays)
    while (this.#segments.length > 0 && this.#segments[0].live.size === 0) {
      this.#delete(this.#segments[0]);
    }
    return [...entries.values()].sort((a, b) => a.seq - b.seq);
  }
}
