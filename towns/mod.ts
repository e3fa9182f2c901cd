/**
 * @module The ready-made towns this project ships, as the catalog the entry points give the core
 * (`services.ts`): `template: "smallville"` in `POST /v1/worlds`, `deno task simulate` and the
 * playground create their worlds from it.
 */
import type { TownCatalog } from "../src/app/mod.ts";
import { smallvilleTown } from "./smallville.ts";
import { SMALLVILLE_ARCHIVE } from "./smallville_archive.gen.ts";

export { SMALLVILLE_START, smallvilleTown } from "./smallville.ts";

/** Every shipped town, by template name. */
export const TOWNS: TownCatalog = {
  smallville: { town: smallvilleTown, archive: SMALLVILLE_ARCHIVE },
};
