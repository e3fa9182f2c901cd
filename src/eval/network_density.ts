/**
 * @module Relationship network density: the share of agent pairs who both remember each other.
 * @see Generative Agents §6–7 "relationship network density"; Park et al. 2023 §7.1 (0.167 → 0.74)
 */
import type { MemoryTexts } from "./diffusion.ts";

/** An agent as the measures name it. */
export interface Person {
  id: string;
  name: string;
}

/** The density and the pairs behind it. */
export interface Density {
  /** Pairs who both have a memory naming the other, over all pairs; 0 with fewer than two. */
  density: number;
  /** Those pairs, as `[id, id]` in the order of `people`. */
  pairs: [string, string][];
}

/**
 * Which people a text names: by full name, or by first name alone (whole word, as written) when
 * no one else has that first name. The speaker's own name is not excluded here.
 */
export function namedPeople(text: string, people: readonly Person[]): Set<string> {
  return new Set(namers(people).filter((n) => n.test(text)).map((n) => n.id));
}

/**
 * Network density: each unordered pair of agents is an edge when both have at least one memory
 * naming the other; density = edges / (n·(n−1)/2).
 */
export function networkDensity(people: readonly Person[], memories: MemoryTexts): Density {
  const patterns = namers(people);
  const knowsOf = new Map<string, Set<string>>();
  for (const person of people) {
    const known = new Set<string>();
    for (const text of memories.get(person.id) ?? []) {
      for (const n of patterns) {
        if (n.id !== person.id && !known.has(n.id) && n.test(text)) known.add(n.id);
      }
    }
    knowsOf.set(person.id, known);
  }
  const pairs: [string, string][] = [];
  for (let i = 0; i < people.length; i++) {
    for (let j = i + 1; j < people.length; j++) {
      const a = people[i].id;
      const b = people[j].id;
      if (knowsOf.get(a)!.has(b) && knowsOf.get(b)!.has(a)) pairs.push([a, b]);
    }
  }
  const all = (people.length * (people.length - 1)) / 2;
  return { density: all === 0 ? 0 : pairs.length / all, pairs };
}

interface Namer {
  id: string;
  /** Matches the full name in any case, or the unique first name as written. */
  test(text: string): boolean;
}

function namers(people: readonly Person[]): Namer[] {
  const firstCount = new Map<string, number>();
  for (const p of people) {
    const first = firstName(p.name);
    firstCount.set(first, (firstCount.get(first) ?? 0) + 1);
  }
  return people.map((p) => {
    const first = firstName(p.name);
    const full = wholeWord(escape(p.name.trim()).replace(/\s+/g, "\\s+"), "iu");
    // A first name may be an ordinary word too ("Grace"), so only as written, capitalised.
    const alone = first !== p.name.trim() && firstCount.get(first) === 1
      ? wholeWord(escape(first), "u")
      : null;
    return { id: p.id, test: (text) => full.test(text) || (alone?.test(text) ?? false) };
  });
}

function wholeWord(source: string, flags: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${source}(?![\\p{L}\\p{N}])`, flags);
}

function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? "";
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
