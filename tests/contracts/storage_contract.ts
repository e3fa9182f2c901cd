/** @module The one contract suite every Storage backend runs: every port's documented behaviour. */
import assert from "node:assert/strict";
import { ContractCases, type ContractOptions, type OpenStorage } from "./_contract_support.ts";
import { documentStoreContract } from "./document_store_contract.ts";
import { eventLogContract } from "./event_log_contract.ts";
import { idempotencyStoreContract } from "./idempotency_store_contract.ts";
import { lockContract } from "./lock_contract.ts";
import { memoryStoreContract } from "./memory_store_contract.ts";
import { memoryUpkeepContract } from "./memory_upkeep_contract.ts";
import { memorySinceContract, memoryWriteContract } from "./memory_write_contract.ts";
import { removalContract } from "./removal_contract.ts";
import { usageLedgerContract } from "./usage_ledger_contract.ts";
import { rateLimiterContract } from "./rate_limiter_contract.ts";
import { auditLogContract } from "./audit_log_contract.ts";
import { vectorIndexContract } from "./vector_index_contract.ts";
import { unitOfWorkContract } from "./unit_of_work_contract.ts";

export type { ContractOptions, OpenStorage };

/**
 * Registers the storage contract as `Deno.test` cases named `${name}: <case>`. Each case opens a
 * fresh Storage with `open()`, uses world, agent and key names of its own (random suffixes, so a
 * shared hosted backend needs no cleanup between runs) and closes the storage in `finally`.
 *
 * @param name Prefix of every test name, e.g. "kv" or "upstash".
 * @param open Opens a Storage; called once per case.
 * @param options `skip` maps a case name (without the prefix) to the reason the adapter cannot
 * meet it; an unknown name throws, so a typo cannot hide a case.
 *
 * @example
 * ```ts
 * storageContract("kv", () => openKvStorage({ dimensions: 8 }));
 * ```
 */
export function storageContract(
  name: string,
  open: OpenStorage,
  options: ContractOptions = {},
): void {
  const cases = new ContractCases(name, open, options);

  cases.add("Storage.ping() resolves while the backend answers", async (s) => {
    await s.ping();
    assert.ok(s.kind === "embedded" || s.kind === "upstash");
  });

  memoryStoreContract(cases);
  memoryWriteContract(cases);
  memorySinceContract(cases);
  memoryUpkeepContract(cases);
  vectorIndexContract(cases);
  documentStoreContract(cases);
  lockContract(cases);
  eventLogContract(cases);
  idempotencyStoreContract(cases);
  usageLedgerContract(cases);
  rateLimiterContract(cases);
  auditLogContract(cases);
  removalContract(cases);
  unitOfWorkContract(cases);
  cases.assertSkipsKnown();
}
