/** @module What a memory says, in a few words about the one who remembers it: for offline reflection and summaries. */
import { progressive } from "./_activities.ts";
import { bare, clip, firstClause, newsOf } from "./_speech.ts";

/**
 * What a memory tells about `self`, as a predicate to follow its name ("has been talking with
 * Sofia Marchetti", "often sees Jun Park having lunch", "spends time working at the cafe").
 */
export function predicateOf(memory: string, self: string): string {
  const text = memory.trim();
  const plan = /^.+?'s plan for \w+ \d{4}-\d\d-\d\d, [\d:–-]+ at [^:]+: (.+)$/s.exec(text);
  if (plan) {
    return `spends time ${progressive(firstClause(plan[1])).replace(/^carrying on /, "")}`;
  }
  const said = /^(.+?) said to (.+?): "(.*)"$/s.exec(text);
  const told = /^(.+?) told me that "(.*)"$/s.exec(text);
  if (said || told) {
    const other = said ? (said[1] === self ? said[2] : said[1]) : told![1];
    const news = newsOf(text, self);
    return news !== null && news.origin !== self
      ? `heard ${news.origin} say “${news.words}”`
      : `has been talking with ${other}`;
  }
  const object = /^the (.+?) in the .+? is (.+)$/s.exec(text);
  if (object) return `notices that the ${object[1]} is ${clip(object[2], 60)}`;
  const first = self.split(" ")[0];
  for (const name of [self, first]) {
    if (text.startsWith(`${name} `)) return clip(firstClause(text.slice(name.length + 1)), 160);
  }
  const saw = /^(\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*)*) is (.+)$/su.exec(text);
  if (saw) return `often sees ${saw[1]} ${clip(firstClause(saw[2]), 80)}`;
  return `remembers that ${clip(firstClause(bare(text)), 160)}`;
}
