import { describe, expect, it } from "vitest";
import { cappedBackoff } from "../../src/kernel/backoff";

describe("capped exponential backoff", () => {
  it("starts at `first` after one failure and doubles after each further one", () => {
    expect([1, 2, 3, 4, 5].map((failures) => cappedBackoff(failures, 10, 1_000))).toEqual([10, 20, 40, 80, 160]);
  });

  it("never exceeds the cap, however many failures", () => {
    expect(cappedBackoff(7, 10, 500)).toBe(500);
    expect(cappedBackoff(1_000, 10, 500)).toBe(500);
    expect(cappedBackoff(Number.MAX_SAFE_INTEGER, 2_000, 300_000)).toBe(300_000);
  });

  it("counts no failure (or less) as the first", () => {
    expect(cappedBackoff(0, 10, 1_000)).toBe(10);
    expect(cappedBackoff(-3, 10, 1_000)).toBe(10);
  });
});
