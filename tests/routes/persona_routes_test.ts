/**
 * Persona, card import/export, in-character replies and interviews over HTTP: on both storage
 * backends with the offline model, and end to end against the fake OpenAI server, whose
 * recorded prompts prove what was (and was not) sent.
 */
import assert from "node:assert/strict";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { Persona } from "../../src/domain/persona/persona.ts";
import { blankPng } from "../../lib/png_text.ts";
import { startBackends } from "../_helpers/backends.ts";
import { fakeModelEnv, respondAnswer } from "../_helpers/fake_model.ts";
import type { RequestTarget } from "../_helpers/http_call.ts";
import { overHttp, withServer } from "../_helpers/in_process_server.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { CREATOR_SECRET, maraV2, maraV3, pngCard } from "../src/domain/persona/_card_fixture.ts";
import { isabellaPersona } from "../src/domain/persona/_persona_fixture.ts";

const { backends, close } = await startBackends();

/** Calls the API; bodies are JSON as the server sent it. */
type Caller = (
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
  // deno-lint-ignore no-explicit-any
) => Promise<{ status: number; body: any }>;

/** A {@linkcode Caller} for an app in process or a server over HTTP; raw bytes go as they are. */
function caller(target: RequestTarget): Caller {
  return async (method, path, body, contentType) => {
    const raw = body instanceof Uint8Array;
    const res = await target.request(path, {
      method,
      headers: body === undefined ? {} : { "content-type": contentType ?? "application/json" },
      body: body === undefined
        ? undefined
        : raw
        ? body as Uint8Array<ArrayBuffer>
        : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
}

const CLAIM = "You promised me yesterday that I could have the cafe for free";

async function town(call: Caller, world: string) {
  const w = await call("POST", "/v1/worlds", {
    id: world,
    name: "Smallville",
    startTime: "2023-02-13T07:00:00",
  });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  const a = await call("POST", `/v1/worlds/${world}/agents`, {
    id: "isabella",
    name: "Isabella Rodriguez",
    traits: "friendly, outgoing",
    description:
      "Isabella Rodriguez is the owner of Hobbs Cafe; she is planning a Valentine's Day party at the cafe",
  });
  assert.equal(a.status, 201, JSON.stringify(a.body));
  return `/v1/worlds/${world}/agents/isabella`;
}

/** The flows the issue lists, through any caller (in-process app or a real server). */
async function personaFlows(call: Caller, world: string): Promise<{ loreMemoryId: string }> {
  const a = await town(call, world);

  // A persona is set and read back.
  const put = await call("PUT", `${a}/persona`, isabellaPersona());
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const got = await call("GET", `${a}/persona`);
  assert.deepEqual(got.body, Persona.parse(isabellaPersona()));

  // A message whose words cue one facet gets it ranked first; replies start with "Name:".
  const cued = await call("POST", `${a}/respond`, {
    message: "Can I help with the decorations for the party?",
    speaker: { name: "Maria Lopez", description: "a regular at the cafe" },
    facets: 1,
  });
  assert.equal(cued.status, 200, JSON.stringify(cued.body));
  assert.deepEqual(cued.body.facets.map((f: { title: string }) => f.title), ["Party host"]);
  assert.equal(cued.body.stages.select.ranking[0].title, "Party host");
  assert.match(cued.body.reply, /^Isabella Rodriguez: /);
  assert.deepEqual(
    cued.body.stored.map((s: { provenance: string }) => s.provenance),
    ["told_by:Maria Lopez", "self"],
  );

  // An inner-voice directive is stored with its provenance.
  const inner = await call("POST", `${a}/respond`, {
    message: "Remember to order more roses for the party",
    mode: "inner_voice",
  });
  assert.equal(inner.status, 200, JSON.stringify(inner.body));
  const innerMemory = await call("GET", `${a}/memories/${inner.body.stored[0].id}`);
  assert.equal(innerMemory.body.provenance, "inner_voice");
  assert.equal(innerMemory.body.description, "Remember to order more roses for the party");

  // A stranger's false claim is stored only as told_by.
  const claim = await call("POST", `${a}/respond`, { message: CLAIM });
  assert.equal(claim.status, 200, JSON.stringify(claim.body));
  assert.match(claim.body.reply, /^Isabella Rodriguez: /);
  const page = await call("GET", `${a}/memories?limit=100`);
  const withClaim = page.body.memories.filter((m: { description: string }) =>
    m.description.includes("the cafe for free")
  );
  assert.equal(withClaim.length, 1, JSON.stringify(withClaim));
  assert.equal(withClaim[0].provenance, "told_by:A stranger");
  assert.equal(withClaim[0].kind, "chat");

  // JSON and PNG cards import; lorebook knowledge is recallable; a broken PNG is a 400.
  const fromJson = await call("POST", `/v1/worlds/${world}/agents/import?id=mara`, maraV3());
  assert.equal(fromJson.status, 201, JSON.stringify(fromJson.body));
  assert.equal(fromJson.body.name, "Mara Vell");
  assert.equal(fromJson.body.card.spec, "chara_card_v3");
  const png = pngCard({ chara: maraV2(), ccv3: maraV3("Mara of the Kestrel") });
  const fromPng = await call("POST", `/v1/worlds/${world}/agents/import`, png, "image/png");
  assert.equal(fromPng.status, 201, JSON.stringify(fromPng.body));
  assert.equal(fromPng.body.name, "Mara of the Kestrel", "the ccv3 chunk wins");
  const v2Png = pngCard({ chara: maraV2() });
  const fromV2 = await call(
    "POST",
    `/v1/worlds/${world}/agents/import?id=mara2`,
    v2Png,
    "image/png",
  );
  assert.equal(fromV2.status, 201);
  assert.equal(fromV2.body.card.spec, "chara_card_v2");

  const m = `/v1/worlds/${world}/agents/mara`;
  const loreMemoryId = fromJson.body.lore.find((l: { keys: string[] }) => l.keys[0] === "Moonstone")
    .memoryId;
  const asked = await call("POST", `${m}/respond`, {
    message: "Where is the Moonstone hidden?",
    speaker: { name: "a stowaway" },
  });
  assert.equal(asked.status, 200, JSON.stringify(asked.body));
  const used = asked.body.memories.find((x: { id: string }) => x.id === loreMemoryId);
  assert.match(used.description, /hidden under the floor of the old mill/);
  assert.equal(
    asked.body.stages.recall.memories.find((x: { id: string }) => x.id === loreMemoryId).via,
    "lore",
  );

  const broken = png.slice(0, png.length - 30);
  const bad = await call("POST", `/v1/worlds/${world}/agents/import`, broken, "image/png");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "invalid_request");
  assert.match(bad.body.error.message, /^Cannot read the PNG card: /);
  assert.ok(["truncated", "bad_crc", "no_iend"].includes(bad.body.error.details.problem));
  const noCard = await call("POST", `/v1/worlds/${world}/agents/import`, blankPng(), "image/png");
  assert.equal(noCard.status, 400);
  assert.equal(noCard.body.error.details.problem, "no_card_in_png");
  const badJson = await call(
    "POST",
    `/v1/worlds/${world}/agents/import`,
    new TextEncoder().encode("{nope"),
    "application/json",
  );
  assert.equal(badJson.status, 400);
  assert.equal(badJson.body.error.details.problem, "malformed_json");

  // Creator notes appear nowhere the API returns.
  const card = await call("GET", `${m}/persona/card`);
  assert.equal(card.status, 200);
  assert.equal(card.body.spec, "chara_card_v2");
  assert.equal(card.body.data.creator_notes, "");
  const returned = [
    fromJson.body,
    fromPng.body,
    asked.body,
    card.body,
    (await call("GET", `${m}/persona`)).body,
    (await call("GET", `${m}/memories?limit=500`)).body,
    (await call("GET", `${m}`)).body,
  ];
  assert.doesNotMatch(JSON.stringify(returned), new RegExp(CREATOR_SECRET));
  return { loreMemoryId };
}

for (const backend of backends) {
  const opts = {
    sanitizeOps: backend.name === "embedded",
    sanitizeResources: backend.name === "embedded",
  };
  const withApp = async (fn: (call: Caller) => Promise<void>) => {
    await using deps = await makeTestDeps({ storage: await backend.open() });
    await fn(caller(createApp(deps, { logger: silentLogger })));
  };

  Deno.test({
    name: `[${backend.name}] persona, respond and card import flows work over HTTP`,
    ...opts,
    fn: () =>
      withApp(async (call) => {
        const { loreMemoryId } = await personaFlows(call, "smallville");
        const retrieved = await call("POST", "/v1/worlds/smallville/agents/mara/retrieve", {
          query: "Where is the Moonstone?",
          k: 3,
        });
        const ids = retrieved.body.memories.map((x: { id: string }) => x.id);
        assert.ok(ids.includes(loreMemoryId), "lore is recallable by retrieval");
      }),
  });

  Deno.test({
    name: `[${backend.name}] persona routes validate input and report missing things`,
    ...opts,
    fn: () =>
      withApp(async (call) => {
        const a = await town(call, "v");
        const none = await call("GET", `${a}/persona`);
        assert.equal(none.status, 404);
        assert.equal(none.body.error.code, "not_found");
        assert.match(none.body.error.message, /PUT .*\/persona/);
        const few = await call("PUT", `${a}/persona`, {
          ...isabellaPersona(),
          core_traits: [{ trait: "kind" }],
        });
        assert.equal(few.status, 400);
        assert.equal(few.body.error.details.issues[0].path, "core_traits");
        const unknown = await call("PUT", "/v1/worlds/v/agents/nobody/persona", isabellaPersona());
        assert.equal(unknown.body.error.code, "agent_not_found");
        const extra = await call("POST", `${a}/respond`, { message: "hi", tone: "rude" });
        assert.equal(extra.status, 400);
        const taken = await call("POST", "/v1/worlds/v/agents/import?id=isabella", maraV2());
        assert.equal(taken.status, 409);
        const text = await call(
          "POST",
          "/v1/worlds/v/agents/import",
          new TextEncoder().encode("hello"),
          "text/plain",
        );
        assert.equal(text.status, 415);
        assert.equal(text.body.error.code, "unsupported_media_type");
        assert.equal(text.body.error.details.problem, "unsupported_content_type");
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] persona/build derives and stores a persona; interview runs the battery`,
    ...opts,
    fn: () =>
      withApp(async (call) => {
        const a = await town(call, "b");
        const built = await call("POST", `${a}/persona/build`, {});
        assert.equal(built.status, 200, JSON.stringify(built.body));
        assert.equal(built.body.saved, true);
        assert.ok(built.body.persona.core_traits.length >= 4);
        assert.equal(built.body.usage.calls, 1);
        assert.deepEqual((await call("GET", `${a}/persona`)).body, built.body.persona);
        const dry = await call("POST", `${a}/persona/build`, {
          narrative: "Isabella once hosted a jazz night. She worries about rent.",
          save: false,
        });
        assert.equal(dry.body.saved, false);
        assert.deepEqual((await call("GET", `${a}/persona`)).body, built.body.persona);

        const before = (await call("GET", `${a}/memories?limit=500`)).body.memories.length;
        const interview = await call("POST", `${a}/interview`, { ablation: "no_reflection" });
        assert.equal(interview.status, 200, JSON.stringify(interview.body));
        assert.equal(interview.body.transcript.length, 25);
        assert.match(interview.body.transcript[0].answer, /^Isabella Rodriguez: /);
        const after = (await call("GET", `${a}/memories?limit=500`)).body.memories.length;
        assert.equal(after, before, "interviews write no memory");
      }),
  });
}

Deno.test({
  name:
    "persona flows run on the OpenAI client against the fake server, which never sees creator notes or unselected facets",
  fn: async () => {
    await using fake = await startFakeOpenAi();
    await withServer({ env: fakeModelEnv(fake) }, async (server) => {
      // Scripted where the flow needs a particular answer; everything else is generated from
      // the request's JSON schema.
      fake.script(
        "respond",
        respondAnswer("Oh, I'd love that!"),
        respondAnswer("Noted."),
        respondAnswer("I never said that."),
      );
      await personaFlows(caller(overHttp(server.url)), "remote");

      const respondRequests = fake.requests.filter((r) => r.kind === "respond");
      assert.ok(respondRequests.length >= 4);
      const first = respondRequests[0].messages!.map((m) => m.content).join("\n");
      assert.match(first, /Party host/);
      assert.doesNotMatch(first, /Behind the counter|Money worries/, "only the selected facet");
      const claimPrompt = respondRequests[2].messages!.map((m) => m.content).join("\n");
      assert.match(claimPrompt, /<<<MESSAGE_DATA\n"You promised me yesterday/);
      const marasPrompt = respondRequests[3].messages!.map((m) => m.content).join("\n");
      assert.match(marasPrompt, /old mill/, "lore recalled by its key reaches the prompt");
      assert.match(marasPrompt, /<<<CARD_DATA[\s\S]*Ignore all previous instructions/);
      assert.doesNotMatch(
        respondRequests[3].messages![0].content,
        /Ignore all previous instructions|pirate speak/,
        "card text never enters the instructions",
      );
      assert.ok(fake.requests.some((r) => r.kind === "persona_build"));
      const everything = JSON.stringify(fake.requests.map((r) => r.body));
      assert.doesNotMatch(
        everything,
        new RegExp(CREATOR_SECRET),
        "no creator notes in any request",
      );
      assert.deepEqual(fake.pending(), {});
    });
  },
});

Deno.test({
  name: "persona routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
