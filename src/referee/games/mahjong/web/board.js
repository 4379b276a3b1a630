// ICGA Mahjong's board at a web table, drawn by the tile games' shared board
// (/static/tileboard.js: the table with the results site's tile pictures, every seat's
// discards, melds and flowers, the wall's count; the seat asked gets its legal tiles to
// throw: click, or Tab / arrow keys and Enter; D the drawn tile). Here: its claims as
// buttons (chow, pung, kong, win, pass; keys 1-9 or C P K W X), the concealed kongs a
// seat holds, and the result of each hand, with its tai, kept in sight. The server says
// what is legal and judges every click; nothing of the rules is known here.

import { element } from "/static/boards.js";
import { createTileBoard } from "/static/tileboard.js";

const KEYS = { chow: "c", pung: "p", kong: "k", concealed_kong: "k", promoted_kong: "k",
               win: "w", pass: "x" };

function headline(result, names) {
  if (result.winner === null) return `Draw: ${result.reason.replace(/^drawn: /, "")}`;
  let how = result.discarder === null ? "self-drawn" : `on ${names[result.discarder]}'s tile`;
  if (result.reason.includes("flower")) how = result.reason.replace(/^won /, "");
  return `${names[result.winner]} wins (${how})`;
}

function scoreLines(result) {
  const lines = result.patterns.map(([name, tai]) => `${name} ${tai} tai`);
  if (result.tai !== null) lines.push(`${result.tai} tai in all`);
  return lines;
}

function points(result, names) {
  return result.payments.map((p, s) => `${names[s]} ${p > 0 ? "+" : ""}${p}`).join(", ");
}

const MAHJONG = {
  styles: new URL("board.css", import.meta.url).href,
  prefix: "mj",
  answers: { group: "mj-claims", label: "Your answers", button: "mj-claim", data: "action" },
  keys: KEYS,
  info: ["Hand", "Round wind", "Wall"],
  tableLabel: "The mahjong table",
  verb: "Throw",

  heldNote(view, seat) {
    return view.hidden_kongs[seat] ? ` + ${view.hidden_kongs[seat]} concealed kong` : "";
  },

  frame(view, names) {
    const frame = JSON.parse(JSON.stringify(view.frame));
    if (frame.x && view.result) {
      frame.x.h = headline(view.result, names);
      frame.x.l = [...scoreLines(view.result), `points: ${points(view.result, names)}`];
    }
    return frame;
  },

  tag(g, tile) { g.dataset.tid = String(tile); },
  playable(g, legal) { return legal.throw.includes(Number(g.dataset.tid)); },
  tileMove(g) { return { action: "throw", tiles: [Number(g.dataset.tid)] }; },

  drawnMove(view) {
    return view.drawn !== null && view.legal.throw.includes(view.drawn)
      ? { action: "throw", tiles: [view.drawn] } : null;
  },

  playsTile(legal) { return legal.ask === "throw"; },

  asked(legal) {
    if (legal.ask === "throw") {
      return { text: "Your turn: throw a tile (click it; or Tab to it and press Enter; D: the tile you drew).",
               answers: [] };
    }
    const offered = legal.discard_code ? ` (the tile: ${legal.discard_code})` : "";
    return { text: `Your answer to /ask ${legal.ask}${offered}:`,
             answers: legal.claims.map((claim) => ({ name: claim.action, label: claim.label,
                                                     move: { action: claim.action, tiles: claim.tiles } })) };
  },

  lastHand(result, names) {
    const shown = [element("strong", "", `Hand ${result.number}: ${headline(result, names)}`),
                   element("span", "", ` \u2014 ${[...scoreLines(result), `points: ${points(result, names)}`].join("; ")}`)];
    if (result.tiles.length) shown.push(element("span", "mj-won", ` (${result.tiles.join(" ")})`));
    return shown;
  },

  mark(dataset, view, mine) {
    dataset.ask = mine ? view.legal.ask : "";
    dataset.hand = String(view.number);
  },
};

export function createBoard(box, api) {
  return createTileBoard(box, api, MAHJONG);
}
