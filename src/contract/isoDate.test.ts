import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseIsoDate, parseIsoDateTime } from "./isoDate.js";

test("dates must be real calendar dates", () => {
  assert.equal(parseIsoDate("2024-02-29"), Date.UTC(2024, 1, 29));
  assert.equal(parseIsoDate("1970-01-01"), 0);
  for (const bad of [
    "2023-02-29",
    "1900-02-29",
    "2024-13-01",
    "2024-00-10",
    "2024-04-31",
    "2024-1-01",
    "24-01-01",
    "2024-01-01T00:00Z",
    " 2024-01-01",
    "2024-01-00",
  ]) {
    assert.equal(parseIsoDate(bad), null, bad);
  }
  assert.equal(parseIsoDate("2000-02-29"), Date.UTC(2000, 1, 29));
  assert.equal(parseIsoDate("0050-01-01"), new Date("0050-01-01T00:00:00Z").getTime());
});

test("property: every real date since year 1 parses to the instant Date gives", () => {
  fc.assert(
    fc.property(
      fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }),
      (d) => {
        const text = d.toISOString().slice(0, 10);
        assert.equal(parseIsoDate(text), Date.parse(`${text}T00:00:00Z`));
      },
    ),
  );
});

test("date-times need a zone and valid fields; offsets move the instant", () => {
  const z = Date.UTC(2024, 4, 1, 12, 0, 0);
  assert.equal(parseIsoDateTime("2024-05-01T12:00:00Z"), z);
  assert.equal(parseIsoDateTime("2024-05-01T12:00Z"), z);
  assert.equal(parseIsoDateTime("2024-05-01T14:00:00+02:00"), z);
  assert.equal(parseIsoDateTime("2024-05-01T14:00:00+0200"), z);
  assert.equal(parseIsoDateTime("2024-05-01T10:30:00-01:30"), z);
  assert.equal(parseIsoDateTime("2024-05-01T13:00:00+01"), z);
  assert.equal(parseIsoDateTime("2024-05-01T12:00:00.5Z"), z + 500);
  assert.equal(parseIsoDateTime("2024-05-01T12:00:00.123456789Z"), z + 123);
  for (const bad of [
    "2024-05-01T12:00:00",
    "2024-05-01 12:00:00Z",
    "2024-05-01T24:00:00Z",
    "2024-05-01T12:60:00Z",
    "2024-05-01T12:00:60Z",
    "2024-02-30T12:00:00Z",
    "2024-05-01T12:00:00+24:00",
    "2024-05-01T12:00:00+02:60",
    "2024-05-01",
    "2024-05-01t12:00:00z",
    "2024-05-01T12:00:00.Z",
  ]) {
    assert.equal(parseIsoDateTime(bad), null, bad);
  }
});
