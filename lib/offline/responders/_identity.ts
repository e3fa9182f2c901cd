/** @module Helpers of the offline responders that read who an agent is: its occupation and home in its own phrases, said in the first person. */
import { baseVerb, firstClause, firstName } from "./_speech.ts";

/** Kin and friends: "is the mother of …" or "is a good friend" says who someone is close to, not their work. */
const TIES =
  /^(?:\w+ ){0,2}(?:friends?|fans?|neighbou?rs?|regulars?|mother|father|parents?|sons?|daughters?|wife|husband|sisters?|brothers?|cousins?)\b/i;
/**
 * How a phrase states an occupation, right after the name: a role ("is a baker", "is the town
 * clerk"), retirement, or work ("works at", "owns", "manages", "teaches").
 */
const OCCUPATION =
  /^(?:is (?:a|an|the) |is (?:now )?retired\b|(?:now )?works (?:at|as|for|in)\b|owns\b|manages\b|teaches\b|tends\b|keeps (?:the|a)\b)/i;
/** How a phrase says where someone lives and with whom. */
const HOME = /^(?:lives|shares|has lived)\b/i;

/** What a phrase says about `name`, when it opens with the name (or the first name); else null. */
export function about(phrase: string, name: string): string | null {
  const text = phrase.trim();
  for (const opening of [name, firstName(name)]) {
    if (text.startsWith(`${opening} `)) return text.slice(opening.length + 1).trim();
  }
  return null;
}

/** The first of `phrases` that states `name`'s occupation, as a predicate ("owns Marigold Cafe …"), or null. */
export function occupationIn(phrases: readonly string[], name: string): string | null {
  for (const phrase of phrases) {
    const predicate = about(phrase, name);
    if (predicate === null || !OCCUPATION.test(predicate)) continue;
    if (TIES.test(predicate.replace(/^is (?:a|an|the) /i, ""))) continue;
    return predicate;
  }
  return null;
}

/** The first of `phrases` that says where and with whom `name` lives, as a predicate, or null. */
export function homeIn(phrases: readonly string[], name: string): string | null {
  for (const phrase of phrases) {
    const predicate = about(phrase, name);
    if (predicate !== null && HOME.test(predicate)) return predicate;
  }
  return null;
}

/** "he" or "she" as the phrases speak of the agent, or null when they do not say. */
function pronounsOf(phrases: readonly string[]): "he" | "she" | null {
  const text = phrases.join(" ").toLowerCase();
  const he = (text.match(/\b(?:he|his|him|himself)\b/g) ?? []).length;
  const she = (text.match(/\b(?:she|her|hers|herself)\b/g) ?? []).length;
  return he === she ? null : he > she ? "he" : "she";
}

/** Words after which "her" is the object ("teases her about"), not the possessive ("her barista"). */
const AFTER_OBJECT =
  /^(?:about|and|as|at|for|from|in|into|on|to|with|the|a|an|that|this|how|what|when|because|but|or|so|more|most|well|too|very|$)/i;

/** A predicate about the agent as the agent would say it: "owns her cafe" → "own my cafe". */
function ownPronouns(predicate: string, pronoun: "he" | "she" | null): string {
  if (pronoun === "he") {
    return predicate.replace(/\bhis\b/g, "my").replace(/\bhimself\b/g, "myself").replace(
      /\bhim\b/g,
      "me",
    );
  }
  if (pronoun === "she") {
    return predicate.replace(/\bherself\b/g, "myself").replace(
      /\bher\b(\s+(\S+))?/g,
      (_, gap: string | undefined, next: string | undefined) =>
        `${next === undefined || AFTER_OBJECT.test(next) ? "me" : "my"}${gap ?? ""}`,
    );
  }
  return predicate;
}

/**
 * A predicate about the agent in its own words, first clause only: "is a baker who starts
 * before dawn" → "I'm a baker who starts before dawn", "owns The Copper Kettle" → "I own The
 * Copper Kettle", "lives with his daughter" → "I live with my daughter" (the pronouns as
 * `phrases`, the agent's description, speak of it).
 */
export function selfSaid(predicate: string, phrases: readonly string[]): string {
  const clause = ownPronouns(firstClause(predicate), pronounsOf(phrases));
  // An adverb before the verb stays before it: "often sees" → "often see".
  const adverb = /^(?:often|usually|always|sometimes|still|now|also|never|rarely|mostly|really) /i
    .exec(clause)?.[0] ?? "";
  const [verb, ...tail] = clause.slice(adverb.length).split(" ");
  const rest = tail.join(" ");
  const lower = verb.toLowerCase();
  if (lower === "is") return `I'm ${adverb}${rest}`;
  if (lower === "has") return `I have ${adverb}${rest}`;
  if (lower === "was") return `I was ${adverb}${rest}`;
  if (/^[a-z]+s$/.test(lower)) return `I ${adverb}${baseVerb(lower)} ${rest}`.trim();
  return `I ${clause}`;
}
