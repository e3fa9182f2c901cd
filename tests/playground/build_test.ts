import { renderAssets } from "../../playground/build.ts";
import { assertGeneratedFresh } from "../_helpers/generated_file.ts";

Deno.test("playground/assets.gen.ts matches playground/public/ (run `deno task playground:build`)", async () => {
  await assertGeneratedFresh(
    "playground/assets.gen.ts",
    renderAssets,
    "playground:build",
  );
});
