/**
 * @module Offline valence rating: how an event felt to the one who lived it, -5 (hurtful) to 5
 * (kind), from the words it uses (issue 22: relationships and mood without a model).
 */
import { stem, words } from "./text.ts";

const POSITIVE: ReadonlyMap<string, number> = new Map(
  `thank:3 thanks:3 grateful:3 gift:4 give:2 gave:3 help:3 helped:3 save:4 saved:4 rescue:4
  rescued:4 return:2 returned:3 brought:3 bring:2 kind:3 kindness:3 love:4 friend:2 friendly:2
  compliment:3 praise:3 welcome:2 congratulate:3 congratulation:3 favour:4 favor:4 heal:3
  healed:3 generous:3 protect:3 protected:3 fix:2 fixed:2 repaid:3 repay:3 pay:1 paid:2
  invite:3 invited:3 celebrate:3 party:2 glad:2 happy:3 wonderful:3 great:2 promise:1 trust:2
  share:2 shared:2 hug:3 smile:2 laugh:2 win:3 won:3 promotion:4 wedding:3 reward:3`
    .split(/\s+/).filter((w) => w !== "").map((w) => {
      const [word, score] = w.split(":");
      return [word, Number(score)] as const;
    }),
);

const NEGATIVE: ReadonlyMap<string, number> = new Map(
  `lie:-4 lied:-4 liar:-4 steal:-5 stole:-5 stolen:-5 thief:-5 rob:-5 robbed:-5 cheat:-4
  cheated:-4 betray:-5 betrayed:-5 insult:-4 insulted:-4 threat:-4 threaten:-4 threatened:-4
  attack:-5 attacked:-5 hit:-4 hurt:-4 rude:-3 mock:-3 mocked:-3 yell:-3 yelled:-3 shout:-2
  shouted:-2 refuse:-2 refused:-2 angry:-3 upset:-3 sad:-3 cry:-3 cried:-3 fight:-4 fought:-4
  argue:-3 argument:-3 break:-2 broke:-3 broken:-2 lose:-3 lost:-3 fire:-4 burn:-3 sick:-3
  ill:-3 died:-5 death:-5 dead:-5 kill:-5 killed:-5 murder:-5 storm:-2 blame:-3 blamed:-3
  scam:-4 debt:-2 owe:-1 ignore:-2 ignored:-2 slight:-3 cruel:-4 hate:-4 damage:-3 damaged:-3`
    .split(/\s+/).filter((w) => w !== "").map((w) => {
      const [word, score] = w.split(":");
      return [word, Number(score)] as const;
    }),
);

const NEGATION = new Set(["not", "no", "never", "without"]);

/**
 * Rates an event -5 to 5: the scores of the feeling words it uses, added (a negation just before
 * a word flips it) and kept within -5..5; an event with no such word is neutral (0).
 * Deterministic.
 *
 * @example
 * ```ts
 * import { rateValence } from "./valence_lexicon.ts";
 * rateValence("Mara brought me a gift"); // 5
 * rateValence("Mara lied to me about the rent"); // -4
 * ```
 */
export function rateValence(event: string): number {
  let sum = 0;
  const list = words(event);
  list.forEach((word, i) => {
    const raw = POSITIVE.get(word) ?? NEGATIVE.get(word) ?? POSITIVE.get(stem(word)) ??
      NEGATIVE.get(stem(word));
    if (raw === undefined) return;
    sum += i > 0 && NEGATION.has(list[i - 1]) ? -raw : raw;
  });
  return Math.max(-5, Math.min(5, sum));
}
