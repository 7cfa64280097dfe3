/**
 * Strict ISO 8601 calendar dates and date-times (docs/language.md), returning epoch
 * milliseconds so `before`/`after` compare the exact instant that was validated.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Extended format only; the zone is required (Z, ±HH:MM, ±HHMM or ±HH); seconds optional.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2})(?::?(\d{2}))?)$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function utc(year: number, month: number, day: number, h = 0, m = 0, s = 0, ms = 0): number {
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(h, m, s, ms);
  return d.getTime();
}

/** Epoch ms of midnight UTC of a real calendar date `YYYY-MM-DD`, or null. */
export function parseIsoDate(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return utc(year, month, day);
}

/**
 * Epoch ms of an ISO 8601 date-time with a zone, e.g. `2024-02-29T23:59:59.5+01:00`, or
 * null. Leap seconds (`:60`) and hour 24 are refused: no instant can be computed for them.
 */
export function parseIsoDateTime(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, "0").slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offset = 0;
  if (m[8] !== "Z") {
    const oh = Number(m[10]);
    const om = m[11] === undefined ? 0 : Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return utc(year, month, day, hour, minute, second, ms) - offset;
}
