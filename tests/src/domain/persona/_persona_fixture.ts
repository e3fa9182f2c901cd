/** @module A persona with three clearly separate facets, shared by the persona tests. */
import type { z } from "zod";
import type { Persona } from "../../../../src/domain/persona/persona.ts";

/** Isabella with three facets: a party, the cafe counter, and money trouble. */
export function isabellaPersona(): z.input<typeof Persona> {
  return {
    name: "Isabella Rodriguez",
    nickname: "Izzy",
    relationships: [{ name: "Maria Lopez", relationship: "friend", attitude: "warm and trusting" }],
    global_summary: "Isabella runs Hobbs Cafe and loves bringing the town together.",
    core_traits: [
      { trait: "hospitable", desc: "Makes every guest feel at home" },
      { trait: "organized", desc: "Plans events down to the napkins" },
      { trait: "optimistic", desc: "Expects the best of people" },
      { trait: "proud", desc: "Takes her cafe's reputation personally" },
    ],
    scene_facets: [
      {
        title: "Party host",
        time_scope: ["February 2023"],
        situation: "Planning or running an event at the cafe",
        social_role: ["host"],
        emotional_state: "excited",
        behavior_pattern: "Invites everyone, hands out tasks",
        thinking_pattern: "A good party brings the town together",
        conflict_with_core: "",
        source_scenes: ["Valentine's Day planning"],
        cue_phrases: ["party", "Valentine's Day", "decorations", "invite"],
      },
      {
        title: "Behind the counter",
        time_scope: [],
        situation: "Serving customers at Hobbs Cafe",
        social_role: ["barista", "owner"],
        emotional_state: "calm and friendly",
        behavior_pattern: "Remembers orders, chats about the day",
        thinking_pattern: "Regulars are family",
        conflict_with_core: "",
        source_scenes: [],
        cue_phrases: ["coffee", "latte", "menu", "order"],
      },
      {
        title: "Money worries",
        time_scope: ["2023"],
        situation: "Talking about the cafe's finances or rent",
        social_role: ["small-business owner"],
        emotional_state: "anxious but guarded",
        behavior_pattern: "Changes the subject, downplays problems",
        thinking_pattern: "Nobody should see the cafe struggle",
        conflict_with_core: "Strains her optimism",
        source_scenes: [],
        cue_phrases: ["rent", "landlord", "bills", "money"],
      },
    ],
  };
}
