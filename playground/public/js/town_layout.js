/**
 * @module Where things go on the town board, with no DOM: the areas' cells on a map grid
 * (computed from the environment tree alone, so a reload draws the same town), who stands in
 * which sub-area, and what a token says about its agent.
 */

/** Columns of the map when no area asks for more. */
export const MAP_COLUMNS = 4;
/** An area with this many sub-areas or more takes two cells side by side. */
const WIDE_FROM = 6;

/**
 * The map cell of every area: `{name, col, row, span}` (1-based, for CSS grid), in the tree's
 * order. An area's optional `position: {x, y}` (0-based) pins it; the others fill the free cells
 * row by row in the tree's order, so a town keeps its shape across reloads and edits that only
 * add areas at the end.
 * @param {{name: string, subAreas: unknown[], position?: {x: number, y: number}}[]} areas
 * @param {{columns?: number}} [options]
 * @returns {{columns: number, cells: {name: string, col: number, row: number, span: number}[]}}
 */
export function layoutTown(areas, { columns = MAP_COLUMNS } = {}) {
  const pinnedX = areas.map((a) => a.position?.x).filter(Number.isInteger);
  const cols = Math.max(columns, ...pinnedX.map((x) => x + 1));
  const taken = new Set();
  const free = (row, col, span) => {
    if (col + span - 1 > cols) return false;
    for (let c = col; c < col + span; c++) if (taken.has(`${row}:${c}`)) return false;
    return true;
  };
  const take = (row, col, span) => {
    for (let c = col; c < col + span; c++) taken.add(`${row}:${c}`);
  };
  const cells = new Map();
  const spanOf = (area) => (area.subAreas.length >= WIDE_FROM ? Math.min(2, cols) : 1);
  for (const area of areas) {
    const { x, y } = area.position ?? {};
    if (!Number.isInteger(x) || !Number.isInteger(y)) continue;
    const span = free(y + 1, x + 1, spanOf(area)) ? spanOf(area) : 1;
    if (!free(y + 1, x + 1, span)) continue; // two areas pinned to one cell: the later one flows
    take(y + 1, x + 1, span);
    cells.set(area.name, { name: area.name, col: x + 1, row: y + 1, span });
  }
  for (const area of areas) {
    if (cells.has(area.name)) continue;
    const span = spanOf(area);
    for (let row = 1; !cells.has(area.name); row++) {
      for (let col = 1; col <= cols && !cells.has(area.name); col++) {
        if (!free(row, col, span)) continue;
        take(row, col, span);
        cells.set(area.name, { name: area.name, col, row, span });
      }
    }
  }
  return { columns: cols, cells: areas.map((a) => cells.get(a.name)) };
}

/** "Area:Sub-area" of a location path, or null. */
export function roomOf(location) {
  const [area, sub] = String(location ?? "").split(":");
  return area && sub ? `${area}:${sub}` : null;
}

/**
 * Agents grouped by "Area:Sub-area"; those standing nowhere on the map go to `unplaced`.
 * @template {{location?: string | null}} A
 * @param {Iterable<A>} agents
 * @param {Set<string>} rooms every "Area:Sub-area" of the environment
 * @returns {{byRoom: Map<string, A[]>, unplaced: A[]}}
 */
export function placeAgents(agents, rooms) {
  const byRoom = new Map();
  const unplaced = [];
  for (const agent of agents) {
    const room = roomOf(agent.location);
    if (!room || !rooms.has(room)) {
      unplaced.push(agent);
      continue;
    }
    if (!byRoom.has(room)) byRoom.set(room, []);
    byRoom.get(room).push(agent);
  }
  return { byRoom, unplaced };
}

/**
 * What an agent is doing, in words: its action, or before its first step where it stands
 * (agents start in their own rooms, before any plan has given them an action).
 */
export function doingOf(agent) {
  if (agent.action) return agent.action;
  const [, sub, object] = String(agent.location ?? "").split(":");
  if (object) return `by the ${object}`;
  if (sub) return `in the ${sub}`;
  return "not on the map yet";
}

/** Two-letter initials for an agent without an emoji yet. */
export function initials(name) {
  return name.split(/\s+/).map((w) => w[0] ?? "").join("").slice(0, 2).toUpperCase();
}

/** A hue from an id, so each agent keeps its token colour. */
export function hueOf(id) {
  let h = 0;
  for (const ch of String(id)) h = (h * 31 + ch.codePointAt(0)) % 360;
  return h;
}

/** The first word of a name, for the label under a token. */
export function shortName(name) {
  return String(name).split(/\s+/)[0] ?? name;
}
