/**
 * @module Fact-update pairs for supersession (README "Memory upkeep"): an earlier fact, the news
 * that changes it, and a question whose best answer is the news. Shared by the offline
 * responder's test and the retrieval test on both backends; `UNRELATED` are news that update
 * nothing the agent holds, and `DISTRACTORS` facts about the same subjects that stay true.
 */

/** One fact that changed. */
export interface FactUpdate {
  before: string;
  after: string;
  query: string;
}

export const FACT_UPDATES: readonly FactUpdate[] = [
  {
    before: "The bakery is on Elm Street",
    after: "The bakery has moved to Oak Avenue",
    query: "Where is the bakery?",
  },
  {
    before: "Sam works at the pharmacy",
    after: "Sam now works at the library",
    query: "Where does Sam work?",
  },
  { before: "The well is dry", after: "The well is full again", query: "Is the well dry?" },
  {
    before: "The bakery sells bread for two coins",
    after: "The bakery now sells bread for three coins",
    query: "How much is bread at the bakery?",
  },
  {
    before: "The tavern is open until midnight",
    after: "The tavern is closed for repairs",
    query: "Is the tavern open?",
  },
  {
    before: "Maria is dating Tom",
    after: "Maria broke up with Tom",
    query: "Is Maria dating Tom?",
  },
  {
    before: "Klaus lives in the college dorm",
    after: "Klaus has moved into an apartment on Main Street",
    query: "Where does Klaus live?",
  },
  {
    before: "The mayor is John Smith",
    after: "The mayor is now Sam Moore",
    query: "Who is the mayor?",
  },
  {
    before: "The bridge over the river is broken",
    after: "The bridge over the river has been repaired",
    query: "Is the bridge over the river broken?",
  },
  {
    before: "Isabella runs Hobbs Cafe",
    after: "Isabella sold Hobbs Cafe to Ayesha",
    query: "Who runs Hobbs Cafe?",
  },
  {
    before: "The market opens at eight in the morning",
    after: "The market now opens at nine in the morning",
    query: "When does the market open?",
  },
  {
    before: "Eddy plays the violin",
    after: "Eddy no longer plays the violin",
    query: "Does Eddy play the violin?",
  },
  {
    before: "The library is closed on Sundays",
    after: "The library is open on Sundays now",
    query: "Is the library open on Sundays?",
  },
  {
    before: "The harbour master is Old Pete",
    after: "The harbour master is now Nadia",
    query: "Who is the harbour master?",
  },
  {
    before: "Tom is sick with a fever",
    after: "Tom has recovered from his fever",
    query: "Is Tom sick with a fever?",
  },
  {
    before: "The road to the mill is flooded",
    after: "The road to the mill is dry again",
    query: "Is the road to the mill flooded?",
  },
  {
    before: "Carmen teaches at the village school",
    after: "Carmen now teaches at the college",
    query: "Where does Carmen teach?",
  },
  {
    before: "The price of apples is one coin",
    after: "The price of apples has risen to two coins",
    query: "What is the price of apples?",
  },
  {
    before: "Jennifer is engaged to Mark",
    after: "Jennifer called off her engagement to Mark",
    query: "Is Jennifer engaged to Mark?",
  },
  {
    before: "The inn has three free rooms",
    after: "The inn is fully booked now",
    query: "Does the inn have free rooms?",
  },
  {
    before: "The ferry leaves at noon",
    after: "The ferry now leaves at two in the afternoon",
    query: "When does the ferry leave?",
  },
  {
    before: "Wolfgang is the captain of the football team",
    after: "Wolfgang stepped down as captain of the football team",
    query: "Who is the captain of the football team?",
  },
  {
    before: "The blacksmith shop is on the corner of Mill Lane",
    after: "The blacksmith shop moved to the harbour",
    query: "Where is the blacksmith shop?",
  },
  {
    before: "Abigail is painting a mural of the harbour",
    after: "Abigail finished her mural of the harbour",
    query: "What is Abigail painting?",
  },
];

/** Facts about the same subjects that no update above changes. */
export const DISTRACTORS: readonly string[] = [
  "The bakery smells of cinnamon in the morning",
  "Sam is kind to the children of the town",
  "The tavern serves a good fish stew",
  "Klaus is writing a paper on gentrification",
  "The market is busy on Saturdays",
  "Isabella loves to host parties",
];

/** News that updates nothing the agent holds. */
export const UNRELATED: readonly string[] = [
  "The bakery has a new apprentice",
  "Sam is reading a book about birds",
  "The well has a wooden bucket",
  "Maria is studying chemistry",
];
