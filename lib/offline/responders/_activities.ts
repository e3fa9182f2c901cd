/** @module What the offline planners know of everyday activities: the steps they take and where they happen. */

/** An everyday activity: how to recognise it, the steps it takes in order, and its objects. */
export interface Activity {
  match: RegExp;
  /** Short steps, done in turn; "{item}" is the plan item itself. */
  steps: readonly string[];
  /** Objects (the last part of a location path) where it happens, best first. */
  objects: RegExp;
}

// Checked in order: the first match wins, so specific activities come before general ones.
const ACTIVITIES: readonly Activity[] = [
  { match: /\b(?:sleep|asleep|go to bed)\b/i, steps: ["sleep"], objects: /\bbed\b/i },
  {
    match: /\b(?:wake|morning routine|get ready for the day)\b/i,
    steps: ["wake up and stretch", "wash up in the bathroom", "get dressed", "make the bed"],
    objects: /\b(?:bed|sink|shower|bathroom|wardrobe|closet)\b/i,
  },
  {
    match: /\bparty\b/i,
    steps: [
      "arrive at the party",
      "chat with the other guests",
      "enjoy the party",
      "raise a toast with friends",
    ],
    objects: /\b(?:table|counter|bar)\b/i,
  },
  {
    match: /\b(?:chat|talk|conversation|catch up|came up)\b/i,
    steps: ["think over the conversation", "note down what was said", "get back to the plan"],
    objects: /\b(?:table|desk|sofa|chair|bench)\b/i,
  },
  {
    match: /\b(?:lunch|breakfast|brunch)\b/i,
    steps: ["find a seat", "order something to eat", "eat", "finish eating and relax"],
    objects: /\b(?:table|counter|bar)\b/i,
  },
  {
    match: /\b(?:dinner|cook)\b/i,
    steps: ["start cooking dinner", "cook dinner", "eat dinner", "wash the dishes"],
    objects: /\b(?:stove|kitchen|oven|table|sink)\b/i,
  },
  {
    match: /\b(?:walk|errand|shop|groceries)\b/i,
    steps: ["take a walk", "look around the shops", "pick up a few things", "head on"],
    objects: /\b(?:shelf|shelves|counter|bench|path|aisle)\b/i,
  },
  {
    match: /\b(?:wind down|bed|night)\b/i,
    steps: ["tidy up", "brush teeth", "get ready for bed", "read a little in bed"],
    objects: /\b(?:sink|bed|bathroom)\b/i,
  },
  {
    match: /\b(?:relax|hobby|unwind|free time|evening)\b/i,
    steps: ["read a book", "listen to some music", "relax on the sofa", "write in a journal"],
    objects: /\b(?:sofa|couch|bookshelf|armchair|desk|chair)\b/i,
  },
  {
    match: /\b(?:cafe|café|bakery|pub|bar|shop|store|market|pharmacy|counter)\b/i,
    steps: [
      "{item}",
      "serve customers at the counter",
      "restock the shelves",
      "wipe down the counter",
      "chat with a regular customer",
    ],
    objects: /\b(?:counter|register|machine|oven|shelf|shelves|bar)\b/i,
  },
  {
    match: /\b(?:study|class|lecture|college|school|homework|library|research)\b/i,
    steps: ["{item}", "take notes", "read through the material", "review the notes"],
    objects: /\b(?:desk|table|bookshelf|shelf|chair)\b/i,
  },
  {
    match: /\b(?:work|job|office|shift)\b/i,
    steps: ["{item}", "check what needs doing next", "focus on the task at hand", "tidy the desk"],
    objects: /\b(?:desk|table|counter|bench|workbench|computer)\b/i,
  },
];

/** The activity of a plan item or chunk, or null for one the planners do not know. */
export function activityOf(text: string): Activity | null {
  return ACTIVITIES.find((a) => a.match.test(text)) ?? null;
}
