import { renderSmallvilleArchive } from "../../dev/build_template_archives.ts";
import { assertGeneratedFresh } from "../_helpers/generated_file.ts";

Deno.test("towns/smallville_archive.gen.ts matches the town smallville.ts describes (run `deno task templates:build`)", async () => {
  await assertGeneratedFresh(
    "towns/smallville_archive.gen.ts",
    renderSmallvilleArchive,
    "templates:build",
  );
});
