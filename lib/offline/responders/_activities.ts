/** @module What the offline planners know of everyday activities: the steps they take and where they happen. */

/** An everyday activity: how to recognise it, the steps it takes in order, and its objects. */
export interface Activity {
  match: RegExp;
  /**
   * Short steps, done in turn, as they read after "<name> is" (an observation); "{item}" is the
   * plan item itself.
   */
  steps: readonly string[];
  /** Objects (the last part of a location path) where it happens, best first. */
  objects: RegExp;
}

// Checked in order: the first match wins, so specific activities come before general ones.
const ACTIVITIES: readonly Activity[] = [
  { match: /\b(?:sleep|asleep|go to bed)\b/i, steps: ["sleeping"], objects: /\bbed\b/i },
  {
    match: /\b(?:wake|morning routine|get ready for the day)\b/i,
    steps: [
      "waking up and stretching",
      "washing up in the bathroom",
      "getting dressed",
      "making the bed",
    ],
    objects: /\b(?:bed|sink|shower|bathroom|wardrobe|closet)\b/i,
  },
  {
    match: /\bparty\b/i,
    steps: [
      "arriving at the party",
      "chatting with the other guests",
      "enjoying the party",
      "raising a toast with friends",
    ],
    objects: /\b(?:table|counter|bar)\b/i,
  },
  {
    match: /\b(?:chat|talk|conversation|catch up|came up)\b/i,
    steps: [
      "thinking things over",
      "writing a few notes",
      "getting back to the plan",
    ],
    objects: /\b(?:table|desk|sofa|chair|bench)\b/i,
  },
  {
    match: /\b(?:lunch|breakfast|brunch)\b/i,
    steps: ["finding a seat", "ordering something to eat", "eating", "finishing the meal"],
    objects: /\b(?:table|counter|bar)\b/i,
  },
  {
    match: /\b(?:dinner|cook)\b/i,
    steps: ["starting to cook dinner", "cooking dinner", "eating dinner", "washing the dishes"],
    objects: /\b(?:stove|kitchen|oven|table|sink)\b/i,
  },
  {
    match: /\b(?:walk|errand|shop|groceries)\b/i,
    steps: ["taking a walk", "looking around the shops", "picking up a few things", "heading on"],
    objects: /\b(?:shelf|shelves|counter|bench|path|aisle)\b/i,
  },
  {
    match: /\b(?:wind down|bed|night)\b/i,
    steps: ["tidying up", "brushing teeth", "getting ready for bed", "reading a little in bed"],
    objects: /\b(?:sink|bed|bathroom)\b/i,
  },
  {
    match: /\b(?:things at home|chores|housework|around the house)\b/i,
    steps: [
      "tidying up the house",
      "reading the morning paper",
      "doing a few chores",
      "fixing something around the house",
    ],
    objects: /\b(?:sofa|armchair|kitchen table|table|sink|porch|rocking chair|garden|desk)\b/i,
  },
  {
    match: /\b(?:relax|hobby|unwind|free time|evening)\b/i,
    steps: [
      "reading a book",
      "listening to some music",
      "relaxing on the sofa",
      "writing in a journal",
    ],
    objects: /\b(?:sofa|couch|bookshelf|armchair|desk|chair)\b/i,
  },
  {
    match: /\b(?:cafe|café|bakery|pub|bar|shop|store|market|pharmacy|counter)\b/i,
    steps: [
      "{item}",
      "serving customers at the counter",
      "restocking the shelves",
      "wiping down the counter",
      "serving a regular customer",
    ],
    objects: /\b(?:counter|register|machine|oven|shelf|shelves|bar)\b/i,
  },
  {
    match: /\b(?:study|class|lecture|college|school|homework|library|research)\b/i,
    steps: ["{item}", "taking notes", "reading through the material", "reviewing the notes"],
    objects: /\b(?:desk|table|bookshelf|shelf|chair)\b/i,
  },
  {
    match: /\b(?:work|job|office|shift)\b/i,
    steps: [
      "{item}",
      "checking what needs doing next",
      "focusing on the task at hand",
      "tidying the desk",
    ],
    objects: /\b(?:desk|table|counter|bench|workbench|computer)\b/i,
  },
];

/** The activity of a plan item or chunk, or null for one the planners do not know. */
export function activityOf(text: string): Activity | null {
  return ACTIVITIES.find((a) => a.match.test(text)) ?? null;
}

/** Verbs that may follow "and" in a plan item ("wake up and complete the routine"). */
const VERBS = new Set(
  `brush buy chat check clean close complete cook dress drink eat enjoy finish get go have head
  help listen look make meet open order paint pick plan play practise practice prepare raise read
  relax rest review run see serve shop sing sleep start stretch study sweep take talk think tidy
  visit walk wash watch wind work write`.split(/\s+/),
);

/** A verb's -ing form: "work" → "working", "make" → "making", "run" → "running", "lie" → "lying". */
function ing(verb: string): string {
  const v = verb.toLowerCase();
  if (v.endsWith("ing") || v === "") return verb;
  if (v === "be") return "being";
  if (v.endsWith("ie")) return `${verb.slice(0, -2)}ying`;
  if (/[^aeiouy]e$/.test(v)) return `${verb.slice(0, -1)}ing`;
  if (/^[^aeiou]*[aeiou][bdgklmnprt]$/.test(v)) return `${verb}${verb.at(-1)}ing`;
  return `${verb}ing`;
}

/**
 * A plan phrase as it reads after "<name> is": "work at the cafe" → "working at the cafe", "wake
 * up and complete the routine" → "waking up and completing the routine". A phrase that already
 * starts with an -ing form is kept.
 */
export function progressive(phrase: string): string {
  const [first, ...rest] = phrase.trim().split(/\s+/);
  if (first === undefined || first === "") return phrase;
  const out = [ing(first)];
  rest.forEach((word, n) => {
    out.push(n > 0 && rest[n - 1] === "and" && VERBS.has(word.toLowerCase()) ? ing(word) : word);
  });
  return out.join(" ");
}
