/**
 * The member names of the wide objects that parseJsonInSlices built, kept as it read them.
 * Listing the keys of an object of hundreds of thousands of members is one piece of work
 * for V8, whatever asks (Object.keys, for-in even when it stops at the first key,
 * JSON.stringify): 200-250 ms for 400,000 members on a loaded 2-core machine. The sliced
 * paths (commitHashInSlices) take the names from here instead, and never list them at once.
 *
 * Only the parser remembers names, for objects nobody else holds yet; the hub never adds or
 * removes members of a parsed value (values are stored and hashed as received), so the
 * names stay the object's own keys.
 */

/** Members from which the parser remembers an object's names: listing fewer takes a millisecond or two. */
export const WIDE_OBJECT = 8 * 1024;

const names = new WeakMap<object, readonly string[]>();

/** Remembers `keys` as the own keys of `object` (the parser's, once it is built). */
export function rememberMemberNames(object: object, keys: readonly string[]): void {
  names.set(object, keys);
}

/** The names the parser remembered for `object`, in the text's order, or undefined. */
export function memberNamesOf(object: object): readonly string[] | undefined {
  return names.get(object);
}

/** Object.keys(object), but a wide parsed object's remembered names instead of listing them again. */
export function ownKeys(object: object): readonly string[] {
  return names.get(object) ?? Object.keys(object);
}
