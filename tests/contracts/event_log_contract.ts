/** @module Contract cases every EventLog adapter must pass. */
import assert from "node:assert/strict";
import type { LoggedEvent, NewEvent } from "../../src/ports/event_log.ts";
import { at, type ContractCases, newWorldId } from "./_contract_support.ts";

function event(type: string, extra: Record<string, unknown> = {}): NewEvent {
  return { type, at: at(0), ...extra };
}

/** Registers the EventLog cases. */
export function eventLogContract(cases: ContractCases): void {
  cases.add(
    "EventLog.append() numbers events 1, 2, 3 in order and returns their fields",
    async (s) => {
      const world = newWorldId();
      const first = await s.events.append(world, [
        event("tick", { minutes: 10 }),
        event("agent.moved", { agentId: "klaus", to: ["the Ville", "cafe"], nested: { ok: true } }),
      ]);
      assert.deepEqual(first, [
        { type: "tick", at: at(0), minutes: 10, seq: 1 },
        {
          type: "agent.moved",
          at: at(0),
          agentId: "klaus",
          to: ["the Ville", "cafe"],
          nested: { ok: true },
          seq: 2,
        },
      ]);
      const second = await s.events.append(world, [event("tick", { note: "naïve ☕" })]);
      assert.deepEqual(second, [{ type: "tick", at: at(0), note: "naïve ☕", seq: 3 }]);
      assert.deepEqual(await s.events.read(world, 0, 10), [...first, ...second]);
    },
  );

  cases.add("EventLog.append() of no events returns none and uses no seq", async (s) => {
    const world = newWorldId();
    assert.deepEqual(await s.events.append(world, []), []);
    assert.deepEqual(await s.events.read(world, 0, 10), []);
    const [logged] = await s.events.append(world, [event("tick")]);
    assert.equal(logged.seq, 1);
  });

  cases.add(
    "EventLog.append() keeps seq gap-free and batches contiguous under 20 concurrent appends",
    async (s) => {
      const world = newWorldId();
      const batches = await Promise.all(
        Array.from({ length: 20 }, (_, writer) =>
          s.events.append(world, [
            event("step", { writer, part: 0 }),
            event("step", { writer, part: 1 }),
          ])),
      );
      for (const batch of batches) {
        assert.equal(batch.length, 2);
        assert.equal(batch[1].seq, batch[0].seq + 1, "A batch takes consecutive seqs");
        assert.deepEqual(batch.map((e) => e.part), [0, 1], "A batch keeps its order");
      }
      const seqs = batches.flat().map((e) => e.seq).sort((a, b) => a - b);
      assert.deepEqual(seqs, Array.from({ length: 40 }, (_, i) => i + 1));
      const read = await s.events.read(world, 0, 100);
      assert.deepEqual(read.map((e) => e.seq), seqs);
      const stored = new Map(read.map((e) => [e.seq, e]));
      for (const e of batches.flat()) assert.deepEqual(stored.get(e.seq), e);
    },
  );

  cases.add(
    "EventLog.read() returns events after a seq, oldest first, at most limit",
    async (s) => {
      const world = newWorldId();
      const logged: LoggedEvent[] = [];
      for (let i = 0; i < 4; i++) {
        logged.push(
          ...await s.events.append(world, [event("e", { i: 2 * i }), event("e", { i: 2 * i + 1 })]),
        );
      }
      assert.deepEqual(await s.events.read(world, 0, 3), logged.slice(0, 3));
      assert.deepEqual(await s.events.read(world, 3, 3), logged.slice(3, 6));
      assert.deepEqual(await s.events.read(world, 6, 3), logged.slice(6, 8));
      assert.deepEqual(await s.events.read(world, 8, 3), []);
      assert.deepEqual(await s.events.read(world, 100, 3), []);
      assert.deepEqual(await s.events.read(world, 5, 1), [logged[5]]);
      assert.deepEqual((await s.events.read(world, 0, 1000)).map((e) => e.i), [
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
      ]);
    },
  );

  cases.add("EventLog keeps each world's events and seq apart", async (s) => {
    const a = newWorldId();
    const b = newWorldId();
    await s.events.append(a, [event("a1"), event("a2")]);
    const [b1] = await s.events.append(b, [event("b1")]);
    assert.equal(b1.seq, 1, "Each world counts from 1");
    const [a3] = await s.events.append(a, [event("a3")]);
    assert.equal(a3.seq, 3);
    assert.deepEqual((await s.events.read(a, 0, 10)).map((e) => e.type), ["a1", "a2", "a3"]);
    assert.deepEqual((await s.events.read(b, 0, 10)).map((e) => e.type), ["b1"]);
    assert.deepEqual(await s.events.read(newWorldId(), 0, 10), []);
  });

  cases.add(
    "EventLog.waitForAppend() wakes on this process's append, times out, and stops on abort",
    async (s) => {
      const world = newWorldId();
      const other = newWorldId();
      const started = performance.now();
      await s.events.waitForAppend(world, 0, { timeoutMs: 30 });
      assert.ok(performance.now() - started >= 25, "Without an append it waits the timeout");

      const waiting = s.events.waitForAppend(world, 0, { timeoutMs: 10_000 });
      let woken = false;
      void waiting.then(() => woken = true);
      await s.events.append(other, [event("elsewhere")]);
      // Real time: that nothing happens has no event to wait on.
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(woken, false, "An append to another world does not wake it");
      const appendedAt = performance.now();
      await s.events.append(world, [event("here")]);
      await waiting;
      assert.ok(performance.now() - appendedAt < 1_000, "It wakes at once on an append");

      const past = performance.now();
      await s.events.waitForAppend(world, 0, { timeoutMs: 10_000 });
      assert.ok(performance.now() - past < 1_000, "Already past `after`: it resolves at once");
      const again = performance.now();
      await s.events.waitForAppend(world, 0, { timeoutMs: 30 });
      assert.ok(
        performance.now() - again >= 25,
        "Asked again with nothing appended since, it waits (a reader whose read found nothing)",
      );

      const stop = new AbortController();
      const aborted = s.events.waitForAppend(world, 1, { timeoutMs: 10_000, signal: stop.signal });
      stop.abort();
      await aborted;
    },
  );

  cases.add("EventLog.latest() is the newest seq, 0 for an empty log", async (s) => {
    const world = newWorldId();
    assert.equal(await s.events.latest(world), 0);
    await s.events.append(world, [event("a"), event("b")]);
    assert.equal(await s.events.latest(world), 2);
    await s.events.append(world, [event("c")]);
    assert.equal(await s.events.latest(world), 3);
  });

  cases.add(
    "EventLog.remove() drops one agent's events (others keep their seq) or the whole log",
    async (s) => {
      const world = newWorldId();
      const other = newWorldId();
      await s.events.append(world, [
        event("a", { agentId: "ann" }),
        event("b", { agentId: "bob" }),
        event("tick"),
        event("c", { agentId: "ann" }),
        event("d", { agentId: "bob" }),
      ]);
      await s.events.append(other, [event("x", { agentId: "ann" })]);
      assert.equal(await s.events.remove(world, { agentId: "ann" }), 2);
      assert.deepEqual((await s.events.read(world, 0, 10)).map((e) => [e.seq, e.type]), [
        [2, "b"],
        [3, "tick"],
        [5, "d"],
      ]);
      assert.deepEqual(
        (await s.events.read(world, 2, 2)).map((e) => e.seq),
        [3, 5],
        "gaps skipped",
      );
      assert.equal(await s.events.latest(world), 5, "seqs are never reused");
      const [next] = await s.events.append(world, [event("e")]);
      assert.equal(next.seq, 6);
      assert.equal(await s.events.remove(world), 4);
      assert.deepEqual(await s.events.read(world, 0, 10), []);
      assert.equal(await s.events.latest(world), 0);
      assert.equal((await s.events.append(world, [event("again")]))[0].seq, 1);
      assert.equal((await s.events.read(other, 0, 10)).length, 1, "other worlds untouched");
    },
  );
}
