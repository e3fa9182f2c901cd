/** @module Offline responder for the "reflection_questions" prompt: questions about the names and topics the memories mention most. */
import type {
  ReflectionQuestionsInput,
  ReflectionQuestionsOutput,
} from "../../../src/domain/mod.ts";
import { stem, STOP_WORDS, words } from "../text.ts";

/** Words of place names and calendar names: such a name is not a person to relate to. */
const NOT_A_PERSON =
  /\b(?:College|Cafe|Café|Hall|House|Park|Market|Pharmacy|Street|Row|Lofts?|Dorm|Pub|Kettle|Library|Town|Green|Shop|Bakery|Apartment|School|Square|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|Valentine's|Day)\b/;

/** Words too common in memories to be a topic ("plan", "said", "talking"). */
const NOT_A_TOPIC = new Set(
  "plan plans planned said told talking talked heard often spends time sees notices remembers"
    .split(" "),
);

// A capitalised word, possibly followed by more (a person's or a place's name).
const NAME = /\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*/gu;

/**
 * The longest name or topic a question names, in characters: a longer run of capitalised words
 * or a longer word (a 2,000-character observation may be one) is no name or topic, and would
 * push a question past the schema's 300 characters.
 */
const MAX_SUBJECT = 40;
/** The most words a name has ("Isabella Rodriguez", "Hobbs Cafe", "Sam Moore Junior"). */
const MAX_NAME_WORDS = 4;

/**
 * Names (runs of capitalised words) by how often they occur, most frequent first. A single
 * capitalised word counts only once it is also seen inside a sentence: at the start it may
 * just be a capitalised verb ("Ignore the …").
 */
function frequentNames(memories: readonly string[], exclude: ReadonlySet<string>): string[] {
  const counts = new Map<string, number>();
  const confirmed = new Set<string>();
  for (const memory of memories) {
    const start = memory.search(/\S/);
    for (const match of memory.matchAll(NAME)) {
      // A sentence-initial function word ("The", "She") is not a name; drop it from the run.
      const parts = match[0].replace(/'s$/, "").split(/\s+/);
      while (parts.length > 0 && STOP_WORDS.has(parts[0].toLowerCase())) parts.shift();
      const name = parts.join(" ");
      if (parts.length > MAX_NAME_WORDS || name.length > MAX_SUBJECT) continue;
      if (name.length < 2 || exclude.has(name.toLowerCase()) || NOT_A_PERSON.test(name)) continue;
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (parts.length > 1 || match.index !== start) confirmed.add(name);
    }
  }
  return ranked(counts).filter((name) => confirmed.has(name));
}

/** Content words by how often their stem occurs, as their first spelling, most frequent first. */
function frequentTopics(memories: readonly string[], exclude: ReadonlySet<string>): string[] {
  const counts = new Map<string, number>();
  const spelling = new Map<string, string>();
  for (const memory of memories) {
    for (const word of words(memory)) {
      if (
        word.length < 4 || word.length > MAX_SUBJECT || STOP_WORDS.has(word) || exclude.has(word) ||
        /\d/.test(word) ||
        NOT_A_TOPIC.has(word) || NOT_A_PERSON.test(word.charAt(0).toUpperCase() + word.slice(1))
      ) {
        continue;
      }
      const key = stem(word);
      if (!spelling.has(key)) spelling.set(key, word);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return ranked(counts).map((key) => spelling.get(key)!);
}

/** Keys by count (descending), ties in first-seen order. */
function ranked(counts: ReadonlyMap<string, number>): string[] {
  return [...counts.entries()]
    .map(([key, count], order) => ({ key, count, order }))
    .sort((a, b) => b.count - a.count || a.order - b.order)
    .map((e) => e.key);
}

/**
 * Answers with exactly `count` questions: first about the people and places named most often,
 * then about the most frequent topics, then general questions about the character; the ten general ones
 * alone cover the largest count a world allows, so the answer always has the requested length.
 */
export function answerReflectionQuestions(input: unknown): ReflectionQuestionsOutput {
  const { agentName, memories, count } = input as ReflectionQuestionsInput;
  const self = new Set(
    [agentName, ...agentName.split(/\s+/)].map((s) => s.toLowerCase()),
  );
  const names = frequentNames(memories, self);
  const nameWords = new Set(names.flatMap((n) => words(n)));
  const topics = frequentTopics(memories, new Set([...self, ...nameWords]));
  // A name, a topic, another name, another topic, …, then general questions.
  const specific = [0, 1, 2, 3].flatMap((i) =>
    [
      names[i] === undefined ? [] : [
        i < 2
          ? `What is the relationship between ${agentName} and ${names[i]}?`
          : `How does ${agentName} feel about ${names[i]}?`,
      ],
      topics[i] === undefined ? [] : [
        i < 2
          ? `Why does ${topics[i]} matter to ${agentName}?`
          : `What has ${agentName} learned about ${topics[i]}?`,
      ],
    ].flat()
  );
  const general = [
    `What is ${agentName} most passionate about?`,
    `What is ${agentName} worried about lately?`,
    `Who matters most to ${agentName} right now?`,
    `What goals is ${agentName} working towards?`,
    `How does ${agentName} usually spend the day?`,
    `What has changed in ${agentName}'s life recently?`,
    `What does ${agentName} enjoy most?`,
    `Which habits define ${agentName}?`,
    `What is ${agentName} looking forward to?`,
    `What does ${agentName} avoid?`,
  ];
  const questions = [...new Set([...specific, ...general])].slice(0, count);
  return { questions };
}
