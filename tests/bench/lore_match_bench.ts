/**
 * @module Benchmark of lore matching (issue 22): one prompt's dialogue against 1,000 entries. The
 * target is ≤ 1 ms per prompt. "as read" uses entries fresh from storage (keys normalised on
 * the spot, as each reply reads the lore document); "again" the same entry objects a second time.
 */
import { matchLore, type WorldLoreEntry } from "../../src/domain/social/mod.ts";

const PLACES = ["mill", "bridge", "tavern", "gate", "chapel", "market", "well", "forge", "dock"];
const THINGS = ["toll", "ghost", "smuggler", "harvest", "fever", "wedding", "debt", "key", "map"];

/** 1,000 entries: 1–3 keys each, a third with secondary keys, a tenth secret, a few constant. */
function entries(): WorldLoreEntry[] {
  return Array.from({ length: 1000 }, (_, i) => ({
    id: `e${i}`,
    keys: [`${PLACES[i % 9]} ${THINGS[(i * 7) % 9]} ${i}`, `${THINGS[i % 9]}${i}`].slice(
      0,
      1 + (i % 2),
    ),
    ...(i % 3 === 0 ? { secondaryKeys: [THINGS[(i + 1) % 9], PLACES[(i + 2) % 9]] } : {}),
    content: `Entry ${i}: what the town knows about the ${PLACES[i % 9]} and the ${THINGS[i % 9]}.`,
    ...(i % 100 === 0 ? { constant: true } : {}),
    knownBy: i % 4 === 0 ? ["brom", "ilse"] : "all",
    ...(i % 10 === 0 ? { minTrust: 0.3 } : {}),
  }));
}

/** Four turns and a new message: the text a reply matches keys in (about 600 characters). */
const DIALOGUE = [
  "Mara: Good evening, guard. Is the bridge open tonight?",
  "Brom Hale: It is, but mind the toll. Two copper, no haggling.",
  "Mara: I heard a smuggler was seen near the old mill after the harvest.",
  "Brom Hale: Folk talk. The mill has been empty since the flood; only the miller's ghost stories remain.",
  "Mara: And the chapel? They say there is a debt the priest never paid, and a key nobody can find. Tell me about the mill toll 41 and the gate map 512.",
].join("\n");

const stored = JSON.stringify(entries());
const warm = entries();
const query = { text: DIALOGUE, agentId: "brom", trust: 0.5 };

Deno.bench("matchLore() 1,000 entries as read from storage, one prompt", (b) => {
  const fresh = JSON.parse(stored) as WorldLoreEntry[];
  b.start();
  matchLore(fresh, query);
  b.end();
});

Deno.bench("matchLore() 1,000 entries again, one prompt", () => {
  matchLore(warm, query);
});
