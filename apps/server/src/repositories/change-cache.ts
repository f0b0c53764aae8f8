import type { DatabaseHandle } from '@kinetrace/db';

/**
 * Channels the database notifies with a user id (triggers of migration 0005_change_notifications):
 * a write changed what the user's session list shows; a login of the user, or the user, changed.
 */
export const SESSION_LIST_CHANGES = 'session_list_changed';
export const SIGN_IN_CHANGES = 'sign_in_changed';

/** Entries kept at most; the least recently used go first. */
const MAX_ENTRIES = 2000;

/**
 * Frequent reads of one user's rows, answered by fewer queries: kept until the user's rows change
 * (`createChangeCache`) or shared while they run (`createSharedReads`).
 */
export interface ChangeCache<T> {
  get(key: string, read: () => Promise<T>, ownerOf: (value: T) => number | undefined): Promise<T>;
  /** Something of the user changed: their entries are read again. */
  changed(userId: number): void;
}

interface Entry<T> {
  value: Promise<T>;
  /** The user the value belongs to, once read. */
  owner?: number;
}

/**
 * Reads kept in memory, each belonging to one user and dropped when the database says something of that
 * user changed. An entry holds the read's promise, so that concurrent reads of one key share one query.
 * A change also drops every read still under way (whose user may not be known yet): whatever such a read
 * answers, a read that starts after the change reads again. Reads owned by no one, or failed, are not kept.
 */
export function createChangeCache<T>(): ChangeCache<T> {
  const entries = new Map<string, Entry<T>>();
  return {
    get(key, read, ownerOf) {
      const kept = entries.get(key);
      if (kept) {
        // Most recently used last (a Map keeps insertion order).
        entries.delete(key);
        entries.set(key, kept);
        return kept.value;
      }
      const entry: Entry<T> = { value: read() };
      entries.set(key, entry);
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      const forget = () => entries.get(key) === entry && entries.delete(key);
      void entry.value.then((value) => {
        entry.owner = ownerOf(value);
        if (entry.owner === undefined) forget();
      }, forget);
      return entry.value;
    },
    changed(userId) {
      for (const [key, entry] of entries) {
        if (entry.owner === undefined || entry.owner === userId) entries.delete(key);
      }
    },
  };
}

interface Flight<T> {
  /** The read under way. */
  running: Promise<T>;
  /** The read that callers who came during `running` share, started when it ends. */
  next?: Promise<T>;
}

/**
 * Reads shared while they run, and kept no longer: a caller that finds an identical read under way waits for
 * the next one, which starts when that one ends, because the read under way may have begun before the
 * caller's request and miss a write the caller has already seen. Fifty clients polling one list cost at most
 * two queries at a time instead of fifty, and every answer is read after its request arrived.
 */
export function createSharedReads<T>(): ChangeCache<T> {
  const flights = new Map<string, Flight<T>>();
  function start(key: string, read: () => Promise<T>): Promise<T> {
    const flight: Flight<T> = { running: read() };
    flights.set(key, flight);
    const ended = () => {
      if (flights.get(key) === flight && !flight.next) flights.delete(key);
    };
    flight.running.then(ended, ended);
    return flight.running;
  }
  return {
    get(key, read) {
      const flight = flights.get(key);
      if (!flight) return start(key, read);
      flight.next ??= flight.running.then(
        () => start(key, read),
        () => start(key, read),
      );
      return flight.next;
    },
    // Nothing outlives its read.
    changed() {},
  };
}

/**
 * A cache dropped by a channel's notifications, on a database that notifies this process of every change
 * before the writer goes on (the embedded PGlite database, which this process alone writes). On PostgreSQL,
 * which other processes write too and whose notifications arrive after the writer's answer, reads are only
 * shared while they run.
 */
export async function changeCacheFor<T>(database: DatabaseHandle, channel: string): Promise<ChangeCache<T>> {
  if (!database.listen) return createSharedReads<T>();
  const cache = createChangeCache<T>();
  await database.listen(channel, (payload) => cache.changed(Number(payload)));
  return cache;
}
