/**
 * Text hygiene over HTTP: control characters and lone surrogates are refused (or, in cards,
 * stripped), JSON nested too deep is refused, and card limits answer 422 naming the limit.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { blankPng, writePngText } from "../../lib/png_text.ts";
import { maraData, maraV2, pngCard } from "../src/domain/persona/_card_fixture.ts";

async function worldApp() {
  const deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const res = await app.request(
    "/v1/worlds",
    json({ id: "w", name: "W", startTime: "2023-02-13T07:00:00" }),
  );
  assert.equal(res.status, 201);
  return { app, deps };
}

function json(body: unknown, method = "POST"): RequestInit {
  return {
    method,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

function card(data: Record<string, unknown>) {
  return { spec: "chara_card_v2", spec_version: "2.0", data: { ...maraData(), ...data } };
}

Deno.test("JSON bodies with control characters or lone surrogates are refused, naming the field", async () => {
  const { app, deps } = await worldApp();
  await using _ = deps;
  const bell = await app.request(
    "/v1/worlds/w/agents",
    json({ id: "a", name: "Ann\u0007", description: "a baker" }),
  );
  assert.equal(bell.status, 400);
  const body = await bell.json();
  assert.equal(body.error.code, "invalid_request");
  assert.match(body.error.message, /"name".*control character/);
  // A lone surrogate sent as a JSON escape.
  const lone = await app.request(
    "/v1/worlds/w/agents",
    json('{"id":"a","name":"Ann","description":"half \\ud83c emoji"}'),
  );
  assert.equal(lone.status, 400);
  assert.match((await lone.json()).error.message, /"description".*surrogate/);
  const fine = await app.request(
    "/v1/worlds/w/agents",
    json({ id: "a", name: "Ann", description: "a baker;\n\tshe likes bread 🍞" }),
  );
  assert.equal(fine.status, 201);
});

Deno.test("JSON nested 10,000 levels deep is refused with 400, in a body and in a card's extensions", async () => {
  const { app, deps } = await worldApp();
  await using _ = deps;
  const deep = "[".repeat(10_000) + "]".repeat(10_000);
  const res = await app.request(
    "/v1/worlds/w/agents",
    json(`{"id":"a","name":"x","description":${deep}}`),
  );
  assert.equal(res.status, 400);
  assert.match((await res.json()).error.message, /nested deeper than 64/);
  const cardText = JSON.stringify(card({})).replace(
    '"extensions":{"talkativeness":"0.5"}',
    `"extensions":{"deep":${deep}}`,
  );
  const asJson = await app.request("/v1/worlds/w/agents/import", json(cardText));
  assert.equal(asJson.status, 400);
  // The same card inside a PNG.
  const bytes = new TextEncoder().encode(cardText);
  const deepPng = await app.request("/v1/worlds/w/agents/import", {
    method: "POST",
    headers: { "content-type": "image/png" },
    body: writePngText(blankPng(), { chara: btoa(String.fromCharCode(...bytes)) }),
  });
  assert.equal(deepPng.status, 400);
  assert.equal((await deepPng.json()).error.details.problem, "too_deep");
  const png = pngCard({ chara: JSON.parse(cardText.replace(deep, "0")) });
  assert.equal(
    (await app.request("/v1/worlds/w/agents/import", {
      method: "POST",
      headers: { "content-type": "image/png" },
      body: png,
    })).status,
    201,
    "the shallow card imports",
  );
});

Deno.test("card imports strip control characters instead of refusing the card", async () => {
  const { app, deps } = await worldApp();
  await using _ = deps;
  const res = await app.request(
    "/v1/worlds/w/agents/import?id=mara",
    json(card({ description: "{{char}} is a\u0007 captain.\u0000 She flies." })),
  );
  assert.equal(res.status, 201, await res.clone().text());
  const agent = await res.json();
  assert.equal(agent.description, "Mara Vell is a captain. She flies.");
});

Deno.test("card limits answer 422 naming the limit instead of cutting the card", async () => {
  const { app, deps } = await worldApp();
  await using _ = deps;
  const entries = Array.from({ length: 101 }, (_, i) => ({
    keys: [`k${i}`],
    content: `Fact number ${i}.`,
    enabled: true,
    insertion_order: i,
    extensions: {},
  }));
  const cases: [Record<string, unknown>, string][] = [
    [{ character_book: { entries } }, "loreEntries"],
    [{ description: "x".repeat(8001) }, "description"],
    [{ mes_example: "y".repeat(6001) }, "examples"],
    [{ name: "N".repeat(101) }, "name"],
  ];
  for (const [data, limit] of cases) {
    const res = await app.request("/v1/worlds/w/agents/import", json(card(data)));
    assert.equal(res.status, 422, limit);
    const body = await res.json();
    assert.equal(body.error.code, "unprocessable");
    assert.equal(body.error.details.limit, limit);
  }
  const ok = await app.request(
    "/v1/worlds/w/agents/import",
    json(card({ character_book: { entries: entries.slice(0, 100) } })),
  );
  assert.equal(ok.status, 201, await ok.clone().text());
  assert.equal((await ok.json()).lore.length, 100);
  assert.ok(maraV2());
});
