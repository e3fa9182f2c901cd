/** @module Contract cases every AuditLog adapter must pass. */
import assert from "node:assert/strict";
import type { AuditEntry } from "../../src/ports/audit_log.ts";
import { type ContractCases, suffix } from "./_contract_support.ts";

function entry(overrides: Partial<AuditEntry>): Omit<AuditEntry, "id"> {
  return {
    at: new Date().toISOString(),
    method: "POST",
    route: "/v1/worlds/{world}/tick",
    keyId: null,
    worldId: null,
    agentId: null,
    status: 200,
    requestId: crypto.randomUUID(),
    ms: 12.5,
    ...overrides,
  };
}

const KEEP = { retentionDays: 30 };

/** Registers the AuditLog cases. */
export function auditLogContract(cases: ContractCases): void {
  cases.add("AuditLog.append() stores entries that list() returns newest first", async (s) => {
    const worldId = `w-${suffix()}`;
    const first = await s.audit.append(entry({ worldId, status: 201 }), KEEP);
    const second = await s.audit.append(entry({ worldId, agentId: "klaus" }), KEEP);
    assert.ok(first.id < second.id, "ids sort by time");
    const page = await s.audit.list({ worldId }, { ...KEEP, now: Date.now() });
    assert.deepEqual(page.entries, [second, first]);
    assert.equal(page.cursor, null);
  });

  cases.add("AuditLog.list() filters by world and by key, and pages with a cursor", async (s) => {
    const worldId = `w-${suffix()}`;
    const keyId = `k_${suffix()}`;
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push(await s.audit.append(entry({ worldId, keyId }), KEEP));
    await s.audit.append(entry({ worldId, keyId: `k_${suffix()}` }), KEEP);
    await s.audit.append(entry({ worldId: `w-${suffix()}`, keyId }), KEEP);
    const now = Date.now();
    const page1 = await s.audit.list({ worldId, keyId, limit: 3 }, { ...KEEP, now });
    assert.deepEqual(page1.entries.map((e) => e.id), mine.slice(2).reverse().map((e) => e.id));
    assert.ok(page1.cursor);
    const page2 = await s.audit.list({ worldId, keyId, limit: 3, cursor: page1.cursor }, {
      ...KEEP,
      now,
    });
    assert.deepEqual(page2.entries.map((e) => e.id), mine.slice(0, 2).reverse().map((e) => e.id));
    assert.equal(page2.cursor, null);
    assert.equal((await s.audit.list({ worldId }, { ...KEEP, now })).entries.length, 6);
    assert.equal((await s.audit.list({ keyId }, { ...KEEP, now })).entries.length, 6);
  });

  cases.add("AuditLog.list() leaves out entries older than the retention", async (s) => {
    const worldId = `w-${suffix()}`;
    await s.audit.append(entry({ worldId }), { retentionDays: 1 });
    const later = Date.now() + 2 * 86_400_000;
    assert.deepEqual(
      (await s.audit.list({ worldId }, { retentionDays: 1, now: later })).entries,
      [],
    );
  });
}
