import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../lib/offline/local_embedder.ts";
import {
  dialogueText,
  embedDialogue,
  facetText,
  rankFacets,
  selectFacets,
} from "../../../src/mind/facet_selection.ts";
import { Persona } from "../../../src/domain/persona/persona.ts";
import type { Embedder } from "../../../src/ports/embedder.ts";
import { isabellaPersona } from "../domain/persona/_persona_fixture.ts";

const persona = Persona.parse(isabellaPersona());
const flat = [0, 0, 0];

/** The facets ranked for `message` after `history`, by cues alone (every embedding score equal). */
const cued = (message: string, history = "") =>
  rankFacets(persona.scene_facets, { history, message }, flat);

Deno.test("rankFacets() puts the facet whose cue phrases the message says first", () => {
  const ranking = cued("I can't pay the rent this month, can you?");
  assert.equal(ranking[0].title, "Money worries");
  assert.equal(ranking[0].cue, 1);
  assert.deepEqual(ranking[0].matched, ["rent"]);
  assert.equal(ranking[1].cue, 0);
});

Deno.test("rankFacets() matches inflected and multi-word cues, and counts earlier turns half", async (t) => {
  await t.step("plural and possessive forms", () => {
    const r = cued("Are the parties for valentine's day still on?");
    assert.equal(r[0].title, "Party host");
    assert.deepEqual(r[0].matched.sort(), ["Valentine's Day", "party"]);
    assert.equal(r[0].cue, 1, "capped at 1");
  });
  await t.step("a cue said two turns ago", () => {
    const r = cued("Thanks!", "Visitor: I'd like a latte please");
    assert.equal(r[0].title, "Behind the counter");
    assert.equal(r[0].cue, 0.5);
  });
  await t.step("the message outweighs the history", () => {
    const r = cued("By the way, who pays your bills?", "Visitor: one coffee please");
    assert.equal(r[0].title, "Money worries");
  });
});

Deno.test("rankFacets() orders uncued facets by embedding relevance, ties by persona order", () => {
  const r = rankFacets(persona.scene_facets, { history: "", message: "hmm" }, [0.1, 0.3, 0.2]);
  assert.deepEqual(r.map((f) => f.title), ["Behind the counter", "Money worries", "Party host"]);
  const tie = rankFacets(persona.scene_facets, { history: "", message: "hmm" }, flat);
  assert.deepEqual(tie.map((f) => f.index), [0, 1, 2]);
});

Deno.test("selectFacets() keeps the top facets and none without a persona", () => {
  const s = selectFacets(persona, {
    cues: { history: "", message: "the landlord called" },
    relevance: flat,
  }, { top: 1 });
  assert.deepEqual(s.selected.map((f) => f.title), ["Money worries"]);
  assert.equal(s.ranking.length, 3);
  assert.deepEqual(
    selectFacets(null, { cues: { history: "", message: "x" }, relevance: [] }).selected,
    [],
  );
});

Deno.test("embedDialogue() embeds queries and facet texts in one call", async () => {
  const inner = new LocalEmbedder();
  const batches: string[][] = [];
  const embedder: Embedder = {
    info: inner.info,
    embed(texts, attribution) {
      batches.push([...texts]);
      return inner.embed(texts, attribution);
    },
  };
  const query = dialogueText({ history: "", message: "What decorations for the party?" });
  const out = await embedDialogue({ embedder }, { persona, queries: [query, "money"] }, {
    operation: "t",
  });
  assert.equal(batches.length, 1);
  assert.deepEqual(batches[0], [query, "money", ...persona.scene_facets.map(facetText)]);
  assert.equal(out.relevance.length, 2);
  assert.equal(out.relevance[0].length, 3);
  assert.ok(out.relevance[0][0] > out.relevance[0][2], "the party facet is closer");
  assert.match(facetText(persona.scene_facets[0]), /^Party host\. Planning .*Cues: party, /);
});
