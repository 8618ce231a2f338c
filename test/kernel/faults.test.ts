/**
 * The fault seams themselves (src/kernel/faults.ts): which call through a seam an armed fault fails, so
 * that the fault-injection suite can fail the second or a later call of a seam, not only the first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { armFault, clearFaults, firedFaults, InjectedFault, io } from "../../src/kernel/faults";

afterEach(clearFaults);

/** Makes `count` calls through `seam`; what each one did: "ok", or the `when` of the fault it met. */
async function callsThrough(seam: string, count: number): Promise<{ outcomes: string[]; made: number }> {
  let made = 0;
  const outcomes: string[] = [];
  for (let index = 0; index < count; index += 1) {
    try {
      await io(seam, async () => {
        made += 1;
      });
      outcomes.push("ok");
    } catch (error) {
      outcomes.push(error instanceof InjectedFault ? error.when : String(error));
    }
  }
  return { outcomes, made };
}

describe("armFault", () => {
  it("fails the first call by default, then lets calls through", async () => {
    armFault("seam.a", { when: "before" });
    expect(await callsThrough("seam.a", 3)).toEqual({ outcomes: ["before", "ok", "ok"], made: 2 });
  });

  it("with skip, lets that many calls through before the first failure", async () => {
    armFault("seam.b", { when: "before", skip: 2 });
    expect(await callsThrough("seam.b", 4)).toEqual({ outcomes: ["ok", "ok", "before", "ok"], made: 3 });
    expect(firedFaults()).toEqual(["seam.b:before"]);
  });

  it("an `after` fault with skip makes every call and loses the answer of the one after the skipped ones", async () => {
    armFault("seam.c", { when: "after", skip: 1, times: 2 });
    expect(await callsThrough("seam.c", 4)).toEqual({ outcomes: ["ok", "after", "after", "ok"], made: 4 });
  });

  it("a skip longer than the calls made never fires", async () => {
    armFault("seam.d", { when: "before", skip: 5 });
    expect(await callsThrough("seam.d", 3)).toEqual({ outcomes: ["ok", "ok", "ok"], made: 3 });
    expect(firedFaults()).toEqual([]);
  });
});
