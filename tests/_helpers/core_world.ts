/** @module A world made through the core (no HTTP), the way most core tests start. */
import type { z } from "zod";
import type { Deps } from "../../src/ports/deps.ts";
import type { WorldId } from "../../src/domain/ids.ts";
import { CreateWorldInput, type World } from "../../src/domain/world/world.ts";
import { createWorld } from "../../src/app/world/world_store.ts";

/** The start the core tests share: the Smallville template's own first morning. */
export const TEST_START = "2023-02-13T07:00:00";

/** A world made with `fields` (its start {@linkcode TEST_START} unless given), and its id. */
export async function coreWorld(
  deps: Pick<Deps, "storage" | "ids">,
  fields: z.input<typeof CreateWorldInput>,
): Promise<{ world: World; id: WorldId }> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ startTime: TEST_START, ...fields }),
  );
  return { world, id: world.id as WorldId };
}
