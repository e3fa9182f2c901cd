import { renderSmallvilleArchive } from "../../../../dev/build_template_archives.ts";
import { assertGeneratedFresh } from "../../../_helpers/generated_file.ts";

Deno.test("src/app/templates/smallville_archive.gen.ts matches the town smallville.ts describes (run `deno task templates:build`)", async () => {
  await assertGeneratedFresh(
    "src/app/templates/smallville_archive.gen.ts",
    renderSmallvilleArchive,
    "templates:build",
  );
});
