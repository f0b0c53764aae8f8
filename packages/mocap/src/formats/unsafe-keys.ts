/**
 * Names a file may not use as keys. Written into a plain object, `__proto__` reaches
 * Object.prototype (and with it every object of the process: issue 20's calibration .toml made
 * every session read a data-sharing choice nobody made), `constructor` and `prototype` a class.
 * Every reader that turns a file's names into object keys refuses them, and builds its objects
 * without a prototype as a second line.
 */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export class UnsafeKeyError extends Error {
  override name = 'UnsafeKeyError';
  constructor(
    readonly key: string,
    where: string,
  ) {
    super(`${where}: "${key}" cannot be used as a name (__proto__, constructor and prototype are refused)`);
  }
}

export const isUnsafeKey = (key: string): boolean => UNSAFE_KEYS.has(key);

/** Throws UnsafeKeyError when `key` is one of the refused names; `where` says which file and place. */
export function refuseUnsafeKey(key: string, where: string): void {
  if (UNSAFE_KEYS.has(key)) throw new UnsafeKeyError(key, where);
}

/** Throws UnsafeKeyError for the first refused name anywhere in a parsed value (objects and arrays, any depth). */
export function refuseUnsafeKeysIn(value: unknown, where: string): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== 'object' || item === null || ArrayBuffer.isView(item)) continue;
    for (const key of Object.keys(item)) {
      if (!Array.isArray(item)) refuseUnsafeKey(key, where);
      pending.push((item as Record<string, unknown>)[key]);
    }
  }
}
