/** @module The believability result in Figure 8's shape: a table of μ and σ per condition, and an SVG bar chart with error bars. */
import type { BelievabilityCondition, BelievabilityResult } from "./believability.ts";

/** Conditions in the paper's order, with its labels. */
const LABELS: [BelievabilityCondition, string][] = [
  ["full", "Full architecture"],
  ["no_reflection", "No reflection"],
  ["no_reflection_no_planning", "No reflection, no planning"],
  ["no_memory", "No memory, planning, reflection"],
];

/** The table: condition, TrueSkill μ and σ, mean rank; the judge and model under it. */
export function believabilityTable(result: BelievabilityResult): string {
  return [
    "| Condition | μ | σ | Mean rank |",
    "| --- | ---: | ---: | ---: |",
    ...LABELS.map(([c, label]) =>
      `| ${label} (\`${c}\`) | ${result.ratings[c].mu.toFixed(2)} | ${
        result.ratings[c].sigma.toFixed(2)
      } | ${result.meanRank[c].toFixed(2)} |`
    ),
    "",
    `World ${result.world} at ${result.at}: ${result.agents.length} agents, ${result.rankings} ranked questions. Model: ${result.model}. Judge: ${result.judge.label}. TrueSkill (ts-trueskill, μ₀ 25, σ₀ 8.33).`,
  ].join("\n");
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * An SVG bar chart: one bar per condition at its μ, an error bar of ±σ, the value above it, on a
 * μ axis from 0 to the largest μ + σ rounded up to 5.
 */
export function believabilitySvg(result: BelievabilityResult): string {
  const width = 640, height = 360, left = 56, bottom = 300, top = 40, barWidth = 90, gap = 50;
  const max = Math.ceil(
    Math.max(...LABELS.map(([c]) => result.ratings[c].mu + result.ratings[c].sigma), 5) / 5,
  ) * 5;
  const y = (v: number) => bottom - ((bottom - top) * v) / max;
  const ticks = Array.from({ length: max / 5 + 1 }, (_, i) => i * 5);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>Believability by condition (TrueSkill μ ± σ)</title>`,
    `<text x="${
      width / 2
    }" y="20" text-anchor="middle" font-size="14">Believability (TrueSkill μ, error bars ± σ)</text>`,
    ...ticks.map((t) =>
      `<line x1="${left}" x2="${width - 10}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/><text x="${
        left - 6
      }" y="${y(t) + 4}" text-anchor="end">${t}</text>`
    ),
    ...LABELS.flatMap(([c, label], i) => {
      const { mu, sigma } = result.ratings[c];
      const x = left + gap / 2 + i * (barWidth + gap);
      const mid = x + barWidth / 2;
      return [
        `<rect x="${x}" y="${y(mu)}" width="${barWidth}" height="${
          bottom - y(mu)
        }" fill="#4a7ab5"><title>${c}: μ ${mu}, σ ${sigma}</title></rect>`,
        `<line x1="${mid}" x2="${mid}" y1="${y(mu + sigma)}" y2="${
          y(Math.max(0, mu - sigma))
        }" stroke="#222" stroke-width="1.5"/>`,
        `<line x1="${mid - 8}" x2="${mid + 8}" y1="${y(mu + sigma)}" y2="${
          y(mu + sigma)
        }" stroke="#222"/>`,
        `<line x1="${mid - 8}" x2="${mid + 8}" y1="${y(Math.max(0, mu - sigma))}" y2="${
          y(Math.max(0, mu - sigma))
        }" stroke="#222"/>`,
        `<text x="${mid}" y="${y(mu + sigma) - 6}" text-anchor="middle">${mu.toFixed(2)}</text>`,
        `<text x="${mid}" y="${bottom + 16}" text-anchor="middle" font-size="10">${
          escapeXml(label)
        }</text>`,
      ];
    }),
    `<line x1="${left}" x2="${width - 10}" y1="${bottom}" y2="${bottom}" stroke="#222"/>`,
    `<text x="${width / 2}" y="${bottom + 40}" text-anchor="middle" font-size="10">${
      escapeXml(`${result.judge.label}; model ${result.model}; ${result.rankings} rankings`)
    }</text>`,
    "</svg>",
  ];
  return `${parts.join("\n")}\n`;
}
