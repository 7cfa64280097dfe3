/**
 * Whether the canonical (JCS) text of a JSON value is longer than some number of characters,
 * told without writing it. The predicates that compare a commit's value with a rule's
 * argument (`oracle_attests`, `post_to`) compare texts: a value whose text is longer than
 * the argument cannot be equal to it, and the text of an attestation's value may run to
 * megabytes while an argument is a few characters.
 *
 * Each part of a value adds at least so many characters to its text, whatever it holds: a
 * string at least its length and two quotes (escapes only lengthen it), a member name the same
 * and a colon, a number one digit, `true`, `false` and `null` their letters, a container its
 * brackets and the commas between its items. So the count is a lower bound of the text's
 * length, and it stops as soon as it passes `limit`: about `limit` steps however big the
 * value, never the sort of a wide object's member names that writing the text begins with.
 * A wide parsed object's members are taken from the names its parser kept (memberNames.ts):
 * listing them would be one piece of work of the object's size.
 *
 * For plain JSON data, which is all a commit holds: anything else is not counted (canonicalize
 * refuses it; the caller then writes the text, and meets that refusal as before).
 */
import { DEFAULT_LIMITS } from "./limits.js";
import { memberNamesOf } from "./memberNames.js";

/** True when canonicalize(value) certainly has more than `limit` characters; false when it may have `limit` or fewer. */
export function canonicalTextLongerThan(value: unknown, limit: number): boolean {
  return left(value, limit, 0) < 0;
}

/** `room` less a lower bound of the length of `value`'s canonical text; stops once below 0. */
function left(value: unknown, room: number, depth: number): number {
  switch (typeof value) {
    case "string":
      return room - value.length - 2;
    case "number":
      return room - 1;
    case "boolean":
      return room - (value ? 4 : 5);
    case "object":
      break;
    default:
      return room;
  }
  if (value === null) return room - 4;
  // canonicalize refuses deeper nesting; its brackets are a lower bound all the same.
  if (depth >= DEFAULT_LIMITS.jsonDepth) return room - 2;
  if (Array.isArray(value)) {
    // Brackets and commas first: a long array settles it without a look at its items.
    room -= 2 + Math.max(0, value.length - 1);
    for (let i = 0; i < value.length && room >= 0; i++) room = left(value[i], room, depth + 1);
    return room;
  }
  const names = memberNamesOf(value);
  if (names !== undefined) {
    room -= 2 + Math.max(0, names.length - 1);
    for (let i = 0; i < names.length && room >= 0; i++) {
      const name = names[i]!;
      room -= name.length + 3;
      if (room >= 0) room = left((value as Record<string, unknown>)[name], room, depth + 1);
    }
    return room;
  }
  room -= 2;
  let first = true;
  for (const name in value) {
    if (room < 0) break;
    room -= name.length + 3 + (first ? 0 : 1);
    first = false;
    if (room >= 0) room = left((value as Record<string, unknown>)[name], room, depth + 1);
  }
  return room;
}
