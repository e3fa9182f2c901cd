import assert from "node:assert/strict";
import { facetView, Persona, type RespondPromptInput } from "../../../../src/domain/mod.ts";
import {
  anonymisedInput,
  conditionPrompt,
  contraryFacetInput,
  noFacetInput,
} from "../../../../src/app/evaluation/mod.ts";
import { isabellaPersona } from "../../domain/persona/_persona_fixture.ts";

const persona = Persona.parse(isabellaPersona());

const input: RespondPromptInput = {
  agentName: "Isabella Rodriguez",
  mode: "chat",
  speaker: { name: "A visitor", description: null },
  now: "2023-02-13T10:00:00",
  anchor: {
    summary: "Name: Isabella Rodriguez\nIsabella owns Hobbs Cafe",
    home: null,
    workplace: "Hobbs Cafe",
    nickname: "Izzy",
    globalSummary: persona.global_summary,
    coreTraits: persona.core_traits,
    relationships: persona.relationships,
  },
  facets: [facetView(persona.scene_facets[0])],
  memories: [{
    text: "Maria Lopez offered to help Isabella decorate",
    when: "2023-02-13T09:00:00",
    source: "seen",
  }],
  plan: [],
  cardNotes: ["Speaks warmly"],
  history: [],
  message: "Who will win the election in 2030?",
  boundaryHints: ["The message mentions the year 2030, after the present year 2023."],
  disclosure: false,
};

const text = (p: { messages: { content: string }[] }) =>
  p.messages.map((m) => m.content).join("\n");

Deno.test("conditions: mrprompt is the respond prompt; without the protocol no steps or boundary check; without the schema a flat card", () => {
  const mrprompt = conditionPrompt(input, "mrprompt");
  assert.equal(mrprompt.kind, "respond");
  assert.match(text(mrprompt), /Anchor: take the profile/);
  assert.match(text(mrprompt), /BOUNDARY_DATA/);

  const schema = conditionPrompt(input, "schema");
  assert.equal(schema.kind, "respond_plain");
  assert.doesNotMatch(text(schema), /Anchor: take the profile|BOUNDARY_DATA/);
  assert.match(text(schema), /scene_facets/);
  assert.match(text(schema), /Party host/);

  const protocol = conditionPrompt(input, "protocol");
  assert.equal(protocol.kind, "respond");
  const flat = protocol.input as RespondPromptInput;
  assert.deepEqual(flat.facets, []);
  assert.deepEqual(flat.anchor.coreTraits, []);
  assert.match(flat.anchor.summary, /Personality: hospitable \(Makes every guest feel at home\)/);
  assert.match(flat.anchor.summary, /When Party host: Planning or running an event/);

  const card = conditionPrompt(input, "card");
  assert.equal(card.kind, "respond_plain");
  assert.doesNotMatch(text(card), /scene_facets|BOUNDARY_DATA/);
  assert.match(text(card), /Knows: Maria Lopez, friend/);

  const base = conditionPrompt(input, "base");
  assert.equal(base.kind, "respond_plain");
  const bare = base.input as RespondPromptInput;
  assert.equal(bare.anchor.summary, "Name: Isabella Rodriguez");
  assert.deepEqual(bare.cardNotes, []);
  assert.doesNotMatch(text(base), /hospitable|Party host|Speaks warmly/);
});

Deno.test("variants: the anonymised input names no one; the contrary facet is the one ranked last; no facets is none", () => {
  const anon = anonymisedInput(input, persona);
  const all = JSON.stringify(anon);
  assert.doesNotMatch(all, /Isabella|Rodriguez|Izzy|Maria|Lopez|Hobbs Cafe/);
  assert.equal(anon.agentName, "the character");
  assert.equal(anon.mode, "chat");
  assert.equal(anon.now, input.now);
  assert.match(anon.memories[0].text, /^Person A offered to help the character decorate$/);

  const ranking = [{ index: 0 }, { index: 1 }, { index: 2 }];
  assert.deepEqual(contraryFacetInput(input, persona, ranking).facets.map((f) => f.title), [
    "Money worries",
  ]);
  assert.deepEqual(noFacetInput(input).facets, []);
  assert.equal(input.facets.length, 1, "the original is not changed");
});
