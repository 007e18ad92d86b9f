/**
 * The session registry's write side: one JSON file per session in `routing.registryDir`
 * (`<slug>.json`, read by {@linkcode RegistryDir}), one live (active or paused) session per work
 * item. Every change is a read-modify-write of that file under an OS lock on `<slug>.lock` beside
 * it (`_lock.ts`), so the daemon and a CLI verb updating one record never lose each other's
 * update; the write itself is atomic (temp file + rename), so readers never see a torn file. A
 * delivery's note ({@linkcode SessionStore.touch}) is a line appended to the session's deliveries
 * log instead, taken into the file at its next write (`state/_deliveries_log.ts`).
 *
 * ```ts
 * const store = new SessionStore({ registry: new RegistryDir(dir), events });
 * await store.register({ item, harness: "claude", harnessSessionId: id, cwd, tmuxTarget: "", url: "" });
 * await store.touch(item.ref, "delivery-1");
 * await store.close(item.ref);
 * ```
 *
 * @module
 */
import { join } from "node:path";
import type { EventSink } from "../../events/mod.ts";
import { RECENT_DELIVERIES, type RegistryDir, type SessionRecord } from "../../state/registry.ts";
import { GITHUB_HOST, parseWorkItem, slugOf, type WorkItemRef } from "../../state/work_item.ts";
import type { DispatchSessions, RegisterInput, SessionPatch, TouchOptions } from "../seams.ts";
import { countLaunch, countRun, freshUsage, grant, type SessionUsage } from "../../state/usage.ts";
import { withFileLock } from "./_lock.ts";

export { RECENT_DELIVERIES };
export type { RegisterInput, SessionPatch };

/** Options of {@linkcode SessionStore}. */
export interface SessionStoreOptions {
  registry: RegistryDir;
  /** Where `session.registered` and `session.closed` go. */
  events: EventSink;
  /** The clock; default `new Date()`. */
  now?: () => Date;
}

/** What a {@linkcode SessionStore.mutate} step answers: the record to write (if any), and a result. */
export interface Mutation<T> {
  write?: SessionRecord;
  /**
   * Write it without waiting for the disk (`false`): still atomic, and safe across a crash of
   * this process, but an OS crash may bring the previous version back. For bookkeeping whose
   * loss costs little (a touch); default true.
   */
  durable?: boolean;
  result: T;
}

/** A live session already owns the work item (`existing`); `force` replaces it. */
export class SessionExistsError extends Error {
  override name = "SessionExistsError";
  readonly existing: SessionRecord;
  constructor(existing: SessionRecord) {
    super(
      `an active session already exists for ${existing.workItem.ref} ` +
        `(harness=${existing.harness}, id=${existing.harnessSessionId}); use --force to replace it`,
    );
    this.existing = existing;
  }
}

const isLive = (r: SessionRecord | undefined): r is SessionRecord =>
  r !== undefined && r.status !== "closed";

function itemOf(ref: string): WorkItemRef {
  const item = parseWorkItem(ref);
  if (!item) {
    throw new RangeError(
      `"${ref}" is not a work item ref (expected github:OWNER/REPO#N or github:HOST/OWNER/REPO#N)`,
    );
  }
  return item;
}

/** The record's `workItem` for `item` (a host only off github.com). */
function workItemField(item: WorkItemRef): SessionRecord["workItem"] {
  return {
    ref: item.ref,
    provider: "github",
    ...(item.host !== GITHUB_HOST ? { host: item.host } : {}),
    owner: item.owner,
    repo: item.repo,
    number: item.number,
  };
}

/**
 * A new session's usage: its launch joins the item's launches of the last day (kept from the
 * session before it), and what its first run reported is counted.
 */
function usageOf(
  input: RegisterInput,
  previous: SessionRecord | undefined,
  now: Date,
): SessionUsage {
  const fresh = freshUsage({ now, launches: previous?.usage?.launches ?? [] });
  return input.use ? countRun(fresh, input.use) : fresh;
}

/** Orders records by host, owner, repo, then number (so `#9` comes before `#10`). */
function byRef(a: SessionRecord, b: SessionRecord): number {
  const [x, y] = [a.workItem, b.workItem];
  return (x.host ?? "").localeCompare(y.host ?? "") || x.owner.localeCompare(y.owner) ||
    x.repo.localeCompare(y.repo) || x.number - y.number;
}

/** The registry, written. */
export class SessionStore implements DispatchSessions {
  readonly registry: RegistryDir;
  readonly #events: EventSink;
  readonly #now: () => Date;

  constructor(opts: SessionStoreOptions) {
    this.registry = opts.registry;
    this.#events = opts.events;
    this.#now = opts.now ?? (() => new Date());
  }

  /** The current time as the records write it. */
  nowIso(): string {
    return this.#now().toISOString();
  }

  /** The lock file of a work item's record. */
  lockPathOf(item: WorkItemRef): string {
    return join(this.registry.dir, `${slugOf(item)}.lock`);
  }

  /**
   * The one read-modify-write: under the item's lock, reads its record afresh (any status;
   * `undefined` when none or unreadable), hands it to `step`, writes what `step` says to write.
   */
  async mutate<T>(
    ref: string,
    step: (current: SessionRecord | undefined) => Promise<Mutation<T>> | Mutation<T>,
  ): Promise<T> {
    const item = itemOf(ref);
    return await withFileLock(this.lockPathOf(item), async () => {
      const { write, result, durable } = await step(await this.registry.get(item.ref));
      if (write) await this.registry.write(write, { durable });
      return result;
    });
  }

  /** Registers a session (see {@linkcode RegisterInput}); emits `session.registered`. */
  async register(input: RegisterInput): Promise<SessionRecord> {
    const { record, replaced } = await this.mutate(input.item.ref, (current) => {
      if (isLive(current) && !input.force) throw new SessionExistsError(current);
      const now = this.#now(); // one instant: the record's creation is its launch
      const record: SessionRecord = {
        workItem: workItemField(input.item),
        harness: input.harness,
        harnessSessionId: input.harnessSessionId,
        cwd: input.cwd,
        status: "active",
        createdAt: now.toISOString(),
        lastEventAt: null,
        tmuxTarget: input.tmuxTarget ?? "",
        recentDeliveries: [],
        url: input.url ?? "",
        usage: usageOf(input, current, now),
      };
      return { write: record, result: { record, replaced: isLive(current) } };
    });
    this.#events.emit("session.registered", {
      work_item: record.workItem.ref,
      harness: record.harness,
      harness_session_id: record.harnessSessionId,
      cwd: record.cwd,
      tmux_target: record.tmuxTarget,
      replaced,
    });
    return record;
  }

  /** The live (active or paused) session of `ref`, read afresh. */
  live(ref: string): Promise<SessionRecord | undefined> {
    return this.registry.live(ref);
  }

  /** The record of `ref` whatever its status (a closed one too). */
  get(ref: string): Promise<SessionRecord | undefined> {
    return this.registry.get(ref);
  }

  /** Every record (closed ones too), sorted by ref; unreadable files are skipped with a warning. */
  async list(): Promise<SessionRecord[]> {
    return (await this.registry.listAll()).sort(byRef);
  }

  /** Changes the record of `ref` (whatever its status); `undefined` when there is none. */
  update(ref: string, patch: SessionPatch): Promise<SessionRecord | undefined> {
    return this.mutate(ref, (current) => {
      if (!current) return { result: undefined };
      const { awaitingInput, launch, grant: granting, ...rest } = patch;
      const next: SessionRecord = { ...current, ...rest };
      // the counts change where they are kept: what the deliveries log added is in `current`
      if (next.usage && launch) next.usage = countLaunch(next.usage, this.#now());
      if (next.usage && granting) next.usage = grant(next.usage, this.#now());
      // `null` closes the agent's open question
      if (awaitingInput === null) delete next.awaitingInput;
      else if (awaitingInput !== undefined) next.awaitingInput = awaitingInput;
      // no failing check is no field (as a record from before it)
      if (next.ciFailing?.length === 0) delete next.ciFailing;
      return { write: next, result: next };
    });
  }

  /**
   * Notes deliveries to the live session of `ref`: `lastEventAt` is now, and each delivery id
   * joins `recentDeliveries` in order (the last {@linkcode RECENT_DELIVERIES}, newest last; a
   * repeat moves to the end). `undefined` when there is no live session.
   */
  touch(
    ref: string,
    deliveryIds: string | string[],
    opts: TouchOptions = {},
  ): Promise<SessionRecord | undefined> {
    const ids = typeof deliveryIds === "string" ? [deliveryIds] : deliveryIds;
    const by = opts.by?.length ? { by: opts.by } : {};
    const use = opts.use ? { use: opts.use } : {};
    const item = itemOf(ref);
    // a line appended to the session's deliveries log, not a rewrite of its file: a note per
    // batch, and a rename each would be most of a burst's time on the daemon's thread
    return withFileLock(this.lockPathOf(item), async () => {
      const current = await this.registry.get(item.ref);
      if (!isLive(current)) return undefined;
      return await this.registry.note(current, { at: this.nowIso(), ids, ...by, ...use });
    });
  }

  /**
   * Marks deliveries in flight on the live session of `ref`, before their paste (a line of its
   * deliveries log; {@linkcode touch} settles them). A crash between the two leaves them marked,
   * and their redelivery is delivered again, flagged. `undefined` when there is no live session.
   */
  fly(
    ref: string,
    deliveryIds: string[],
    opts: { landed?: string[] } = {},
  ): Promise<SessionRecord | undefined> {
    const item = itemOf(ref);
    // `landed`: delivered before, their note still to come: taken as delivered in the same line
    const landed = opts.landed?.length ? { landed: opts.landed } : {};
    return withFileLock(this.lockPathOf(item), async () => {
      const current = await this.registry.get(item.ref);
      if (!isLive(current)) return undefined;
      return await this.registry.note(current, {
        at: this.nowIso(),
        ids: deliveryIds,
        flying: true,
        ...landed,
      });
    });
  }

  /**
   * One read for a turn's first questions: whether the record of `ref` (whatever its status)
   * remembers `deliveryId` as delivered (a duplicate) or as in flight (pasted, maybe, just before
   * a restart), and the live session, if any.
   */
  async lookup(
    ref: string,
    deliveryId: string,
  ): Promise<{ duplicate: boolean; inFlight?: boolean; live: SessionRecord | undefined }> {
    const record = await this.registry.get(ref);
    const duplicate = record?.recentDeliveries.includes(deliveryId) ?? false;
    const inFlight = !duplicate && (record?.inFlight?.includes(deliveryId) ?? false);
    return {
      duplicate,
      ...(inFlight ? { inFlight } : {}),
      live: isLive(record) ? record : undefined,
    };
  }

  /** Whether the record of `ref` remembers `deliveryId` among its recent deliveries. */
  async hasDelivery(ref: string, deliveryId: string): Promise<boolean> {
    return (await this.lookup(ref, deliveryId)).duplicate;
  }

  /**
   * Closes the live session of `ref` (status `closed`; the file is kept) and emits
   * `session.closed` with `reason` (default `close`). `undefined` when there is none.
   */
  async close(ref: string, opts: { reason?: string } = {}): Promise<SessionRecord | undefined> {
    const closed = await this.mutate(ref, (current) => {
      if (!isLive(current)) return { result: undefined };
      // a closed session awaits no input: its open question goes with it
      const { awaitingInput: _, ...rest } = current;
      const next: SessionRecord = { ...rest, status: "closed" };
      return { write: next, result: next };
    });
    if (closed) this.noteClosed(closed, opts.reason ?? "close");
    return closed;
  }

  /** Emits `session.closed` for a record closed through {@linkcode mutate}. */
  noteClosed(record: SessionRecord, reason: string): void {
    this.#events.emit("session.closed", {
      work_item: record.workItem.ref,
      harness: record.harness,
      harness_session_id: record.harnessSessionId,
      reason,
    });
  }
}
