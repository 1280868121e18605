/**
 * "Is this a JSON object?" for values of unknown shape (parsed JSON, a message off a socket, a
 * file's content): the one predicate every folder asks it with.
 *
 * Guarantees: true exactly for a non-null object that is not an array (a plain object, or any
 * other non-array object); it narrows to `Record<string, unknown>`, so every field read from
 * it is still `unknown` and checked before use.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
