/** The figures' pure rules: UTC days, thousandths back to exact decimals, and the run-out day. */
import { describe, expect, it } from "vitest";
import { dayOf, daysUpTo, dayText, fromThousandths, perDay, runOutDay } from "../../src/figures/figures-rules";

describe("days", () => {
  it("counts UTC days as the triggers do (created_at / 86400000)", () => {
    expect(dayOf(Date.UTC(2026, 10, 27, 0, 0, 0))).toBe(Math.floor(Date.UTC(2026, 10, 27) / 86_400_000));
    expect(dayOf(Date.UTC(2026, 10, 27, 23, 59, 59, 999))).toBe(dayOf(Date.UTC(2026, 10, 27)));
    expect(dayText(dayOf(Date.UTC(2026, 10, 27, 12)))).toBe("2026-11-27");
    expect(daysUpTo(10, 3)).toEqual([8, 9, 10]);
  });
});

describe("amounts", () => {
  it("turns thousandths into the exact decimal", () => {
    expect(fromThousandths(1234575491).toFixed()).toBe("1234575.491");
    expect(fromThousandths(-2500).toFixed()).toBe("-2.5");
    expect(perDay("18.5", 30).toDecimalPlaces(3).toFixed()).toBe("0.617");
  });
});

describe("the run-out day", () => {
  it("is today plus the whole days the amount lasts at the rate", () => {
    expect(runOutDay("100", "30", 1000)).toBe(1003);
    expect(runOutDay("90", "30", 1000)).toBe(1003);
    expect(runOutDay("89.99", "30", 1000)).toBe(1002);
    expect(runOutDay(5, 10, 1000)).toBe(1000);
  });

  it("is today when nothing is left, and none when it does not fall or lasts past the horizon", () => {
    expect(runOutDay("0", "1", 1000)).toBe(1000);
    expect(runOutDay("10", "0", 1000)).toBeNull();
    expect(runOutDay("90", "1", 1000)).toBe(1090);
    expect(runOutDay("91", "1", 1000)).toBeNull();
    expect(runOutDay("91", "1", 1000, 100)).toBe(1091);
  });
});
