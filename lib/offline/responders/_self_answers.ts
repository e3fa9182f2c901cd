/**
 * @module Private to the offline "respond" responder: the interview's basic questions about the
 * character itself (job, home, who it is, what it does at a time of day, a normal day), answered
 * from its profile, background, recalled memories and today's plan.
 */
import type { RespondPromptInput } from "../../../src/domain/mod.ts";
import { about, homeIn, occupationIn, selfSaid } from "./_identity.ts";
import { progressive } from "./_activities.ts";
import { bare } from "./_speech.ts";

/** An answer about the character itself. */
export interface SelfAnswer {
  reply: string;
  /** True when the character does not know (no plan for that time yet). */
  unsure: boolean;
}

const JOB =
  /\b(?:your (?:job|work|occupation|profession|trade)|do for (?:a living|work)|where do you work|what (?:is|'s) your line)\b|^what do you do\??$/i;
const HOME =
  /\b(?:your (?:home|house|flat|apartment|place)|where do you live|who do you live|live with)\b/i;
const SELF = /\b(?:tell me about yourself|who are you|introduce yourself|about you\b\?)/i;
const INTERESTS =
  /\b(?:interests? you|inspires? you|are you into|hobb(?:y|ies)|passions?|what do you (?:love|enjoy|like) doing)\b/i;
/** "Who is Rosa Delgado?" */
const WHO = /^who(?:'s| is) (\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*)*)\??$/u;
/** A situation the character is asked how it would handle: "… What do you do?". */
const SITUATION = /\bwhat (?:do|would) you do\b/i;
/** How the character would handle a situation, by what the situation says. */
const HANDLING: readonly [RegExp, string][] = [
  [
    /\bfire\b|\bburning\b|\bsmoke\b/i,
    "I'd put it out if I safely could, and call for help if I couldn't.",
  ],
  [
    /\btaken\b|\boccupied\b|\bqueue\b|\bwait\b/i,
    "I'd knock, wait my turn, and make do in the meantime.",
  ],
  [
    /\bempty\b|\bnothing (?:to eat|left)\b|\bout of\b/i,
    "I'd go out and buy what I need, or eat out tonight.",
  ],
  [/\bfriend\b|\bneighbou?r\b/i, "I'd wave, say hello and ask how they're doing."],
];
const DAY = /\b(?:normal|typical|usual|ordinary) (?:week)?day\b/i;
/** "at 6 in the evening", "at noon", "at 10 at night", "at 9 am", "at 13:00". */
const AT_TIME =
  /\bat (noon|midnight|\d{1,2})(?::(\d\d))?\s*(?:in the (morning|afternoon|evening)|at night|(am|pm))?/i;
const WRAPPED = /\b(?:wrapped up|wrap up|finish\w*|done with|just ended)\b/i;

/** A plan line as the prompt shows it: "08:00–12:00 work at the counter (Marigold Cafe)". */
const PLAN_ITEM = /(\d\d):(\d\d)[–-](\d\d):(\d\d) ([^;()]+?)(?: \(([^)]+)\))?(?=;|$)/g;

interface PlanLine {
  start: number;
  end: number;
  what: string;
  where: string | null;
}

/** The profile's sentences and the character's other own knowledge, one sentence each. */
function ownSentences(i: RespondPromptInput): string[] {
  const profile = i.anchor.summary.split("\n").filter((l) => !/^(?:Name|Innate traits):/.test(l));
  return [...profile, i.anchor.globalSummary, ...i.memories.map((m) => m.text)]
    .flatMap((t) => t.split(/(?<=[.!?])\s+|;\s*/))
    .map((s) => bare(s))
    .filter((s) => s.length > 0);
}

function planLines(i: RespondPromptInput): PlanLine[] {
  const line = i.plan.find((p) => p.startsWith("Today's plan: "));
  if (line === undefined) return [];
  return [...line.matchAll(PLAN_ITEM)].map((m) => ({
    start: Number(m[1]) * 60 + Number(m[2]),
    end: Number(m[3]) * 60 + Number(m[4]),
    what: m[5].trim(),
    where: m[6]?.split(":")[0] ?? null,
  }));
}

/** Minutes after midnight the message asks about, or null. */
function askedMinute(message: string): number | null {
  const m = AT_TIME.exec(message);
  if (!m) return null;
  const [, hour, minute, part, half] = m;
  if (hour.toLowerCase() === "noon") return 12 * 60;
  if (hour.toLowerCase() === "midnight") return 0;
  let h = Number(hour);
  if (h > 23) return null;
  const later = half?.toLowerCase() === "pm" || part === "afternoon" || part === "evening" ||
    (/at night/i.test(m[0]) && h >= 6);
  if (later && h < 12) h += 12;
  if (half?.toLowerCase() === "am" && h === 12) h = 0;
  return h * 60 + Number(minute ?? 0);
}

function place(line: PlanLine, name: string): string {
  return line.where && !line.what.includes(line.where) ? ` at ${ownPlace(line.where, name)}` : "";
}

/** What the plan has at the asked time, or has just finished then. */
function planAnswer(i: RespondPromptInput, minute: number): SelfAnswer {
  const lines = planLines(i);
  if (lines.length === 0) {
    return { reply: "I haven't planned that far yet, honestly.", unsure: true };
  }
  const when = AT_TIME.exec(i.message)![0].replace(/^at /i, "").trim();
  const at = (line: PlanLine) => place(line, i.agentName);
  if (WRAPPED.test(i.message)) {
    const done = lines.filter((l) => l.end <= minute).at(-1);
    if (done) {
      return {
        reply: `By ${when} I'll have just finished ${progressive(done.what)}${at(done)}.`,
        unsure: false,
      };
    }
  }
  const now = lines.find((l) => l.start <= minute && minute < l.end) ??
    lines.find((l) => l.start > minute);
  return now
    ? { reply: `At ${when} I plan to ${now.what}${at(now)}.`, unsure: false }
    : { reply: "I haven't planned that far yet, honestly.", unsure: true };
}

/** "Lucia Ferreira's apartment" → "my apartment", for the character to say. */
function ownPlace(placeName: string, name: string): string {
  return placeName.startsWith(`${name}'s `) ? `my ${placeName.slice(name.length + 3)}` : placeName;
}

/**
 * Who someone is to the character, from who the character is (its background memories and
 * profile, then its persona's relationships); null when neither names them.
 */
function whoIs(i: RespondPromptInput, who: string): SelfAnswer | null {
  const background = i.memories.filter((m) => m.source.startsWith("background")).map((m) => m.text);
  const profile = ownSentences(i).filter((s) => !i.memories.some((m) => m.text.includes(s)));
  for (const text of [...background, ...profile]) {
    if (!text.includes(who)) continue;
    const own = about(text, i.agentName);
    if (own !== null && selfSaid(own, [text]).includes(who)) {
      return { reply: `${selfSaid(own, [text])}.`, unsure: false };
    }
  }
  const tie = i.anchor.relationships.find((r) => r.name === who && r.relationship !== "");
  return tie ? { reply: `${who} is my ${tie.relationship}.`, unsure: false } : null;
}

/**
 * The answer to a basic question about the character itself, or null when the message asks
 * something else (or the character's knowledge says nothing about it).
 */
export function answerAboutSelf(i: RespondPromptInput): SelfAnswer | null {
  const { message, agentName: name } = i;
  const own = ownSentences(i);
  const say = (predicate: string) => `${selfSaid(predicate, own)}.`;
  const job = occupationIn(own, name);
  const workplace = i.anchor.workplace ?? null;
  const jobLine = job !== null
    ? say(job)
    : workplace
    ? `I work at ${ownPlace(workplace, name)}.`
    : null;
  // What else the character's own knowledge says about it, besides its job.
  const more = own.map((s) => about(s, name)).find((p) =>
    p !== null && p !== job && !/\bnot known yet\b/.test(p)
  );
  if (SELF.test(message)) {
    const parts = [`I'm ${name}.`, jobLine, more ? say(more) : null].filter((p) => p !== null);
    return { reply: parts.join(" "), unsure: false };
  }
  if (INTERESTS.test(message)) {
    const said = more ? say(more) : jobLine === null ? null : `Mostly my work: ${jobLine}`;
    return said === null ? null : { reply: said, unsure: false };
  }
  if (JOB.test(message)) return jobLine === null ? null : { reply: jobLine, unsure: false };
  if (HOME.test(message)) {
    const home = homeIn(own, name);
    if (home !== null) return { reply: say(home), unsure: false };
    const area = i.anchor.home ?? null;
    return area ? { reply: `I live at ${ownPlace(area, name)}.`, unsure: false } : null;
  }
  const who = WHO.exec(message.trim())?.[1];
  if (who !== undefined) return whoIs(i, who);
  if (SITUATION.test(message)) {
    const handled = HANDLING.find(([cue]) => cue.test(message))?.[1] ??
      "I'd deal with it as calmly as I could.";
    return { reply: handled, unsure: false };
  }
  const minute = askedMinute(message);
  if (minute !== null) return planAnswer(i, minute);
  if (DAY.test(message)) {
    const lines = planLines(i).filter((l) => !/\bsleep\b/i.test(l.what));
    if (lines.length === 0) return jobLine === null ? null : { reply: jobLine, unsure: false };
    const steps = lines.slice(0, 4).map((l) => `${l.what}${place(l, name)}`);
    const last = steps.pop()!;
    const list = steps.length > 0 ? `${steps.join(", then ")}, and later ${last}` : last;
    return { reply: `On a normal day I ${list}.`, unsure: false };
  }
  return null;
}
