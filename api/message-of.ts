/**
 * The text of anything thrown, for a message, a log line or a condition: the one way every
 * folder says what went wrong (proc/, which may import only types of api/, keeps its own).
 *
 * Guarantees: an Error gives its `message` (not its name or stack); anything else is
 * `String(value)`. It never throws on a plain value.
 */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
