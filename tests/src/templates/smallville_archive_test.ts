import assert from "node:assert/strict";
import { renderSmallvilleArchive } from "../../../dev/build_template_archives.ts";

Deno.test("src/templates/smallville_archive.gen.ts matches the town smallville.ts describes (run `deno task templates:build`)", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../../src/templates/smallville_archive.gen.ts", import.meta.url),
  );
  assert.ok(
    committed === await renderSmallvilleArchive(),
    "src/templates/smallville_archive.gen.ts is stale: run `deno task templates:build` and commit it",
  );
});
