/** @module The rule for operations on a world's or an agent's data: a missing owner answers its `*_not_found` first. */
import type { Deps } from "../../ports/mod.ts";
import type { WorldId } from "../../domain/mod.ts";
import { getWorld } from "./world_store.ts";

/** An operation on the data of what `key` names (a world, an agent), given what it was asked. */
export type OwnedDataOperation<K, I, O> = (
  deps: Pick<Deps, "storage">,
  key: K,
  input: I,
) => Promise<O>;

/**
 * `operation`, made to run `check` first (which throws when `key` names nothing), so a missing
 * world or agent is never mistaken for one without that data.
 */
export function checkedFirst<K, I, O>(
  check: (deps: Pick<Deps, "storage">, key: K) => Promise<unknown>,
  operation: OwnedDataOperation<K, I, O>,
): OwnedDataOperation<K, I, O> {
  return async (deps, key, input) => {
    await check(deps, key);
    return await operation(deps, key, input);
  };
}

/** `operation` answering `world_not_found` before it reads or writes anything. */
export function ofExistingWorld<I, O>(
  operation: OwnedDataOperation<WorldId, I, O>,
): OwnedDataOperation<WorldId, I, O> {
  return checkedFirst(getWorld, operation);
}
