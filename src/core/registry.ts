import { UserError } from "./errors.js";

/**
 * A name → definition table: verifiers by `type`, aggregators by `type`, estimators and schedules by `name`.
 * Read-only once built; {@link Registry.with} makes a new table with more entries (a spec's plugins).
 */
export interface Registry<T> {
  /** What the entries are, for messages (`verifier type`, `estimator`). */
  readonly kind: string;
  /** The entry named `name`; `undefined` when there is none. */
  get(name: string): T | undefined;
  has(name: string): boolean;
  /** Every name, sorted. */
  names(): string[];
  /** Every entry, in registration order. */
  values(): T[];
  /**
   * A new registry with `more` added after this one's entries (this one is unchanged).
   * @throws {DuplicateNameError} when a name is already taken, here or earlier in `more`.
   */
  with(more: readonly T[]): Registry<T>;
}

/** Two definitions with one name: the second would silently replace the first, so it is refused. */
export class DuplicateNameError extends UserError {
  constructor(
    readonly kind: string,
    readonly duplicate: string,
  ) {
    super(`${kind} "${duplicate}" is already registered`);
    this.name = "DuplicateNameError";
  }
}

/**
 * Builds a registry from definitions, keyed by `keyOf` (the definition's `type` or `name`).
 * Source: verl's `register_adv_est` raises on a second registration of a name (`verl/trainer/ppo/core_algos.py`);
 * so does this.
 * @param kind what the entries are, for messages (`verifier type`).
 * @throws {DuplicateNameError} when two definitions share a name.
 */
export function defineRegistry<T>(kind: string, keyOf: (item: T) => string, items: readonly T[]): Registry<T> {
  const map = new Map<string, T>();
  for (const item of items) {
    const name = keyOf(item);
    if (map.has(name)) throw new DuplicateNameError(kind, name);
    map.set(name, item);
  }
  return {
    kind,
    get: (name) => map.get(name),
    has: (name) => map.has(name),
    names: () => [...map.keys()].sort(),
    values: () => [...map.values()],
    with: (more) => defineRegistry(kind, keyOf, [...map.values(), ...more]),
  };
}
