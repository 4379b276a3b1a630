// Riichi mahjong's board at a web table, drawn by the tile games' shared board
// (/static/tileboard.js: the table with the results site's tile pictures, every seat's
// discards (riichi and called tiles marked) and melds, the dora, the round, honba, sticks
// and the wall's count; the seat asked gets the tiles it may discard as clickable tiles:
// click, or Tab / arrow keys and Enter; D the drawn tile). Here: its calls as buttons
// (chi, pon, kan, riichi, tsumo, ron, kyuushu, pass; keys 1-9 or C P K R W Q X), and the
// hand before, with its yaku, han, fu and payments, kept in sight. The server says what
// is legal and judges every click; nothing of the rules is known here.

import { element } from "/static/boards.js";
import { createTileBoard } from "/static/tileboard.js";

const KEYS = { chi: "c", pon: "p", kan: "k", riichi: "r", tsumo: "w", ron: "w", kyushu: "q",
               pass: "x" };

function signed(n) { return n > 0 ? `+${n}` : String(n); }

function discards(legal) { return legal.discard.length || legal.tsumogiri; }

const RIICHI = {
  styles: new URL("board.css", import.meta.url).href,
  prefix: "rc",
  answers: { group: "rc-calls", label: "Your calls", button: "rc-call", data: "call" },
  keys: KEYS,
  info: ["Round", "Honba", "Riichi sticks", "Wall"],
  tableLabel: "The riichi table",
  verb: "Discard",

  heldNote() { return ""; },
  frame(view) { return view.frame; },

  tag(g, tile, drawn) {
    g.dataset.pai = tile;
    g.dataset.tsumogiri = String(drawn);
  },

  playable(g, legal) {
    return g.dataset.tsumogiri === "true" ? legal.tsumogiri : legal.discard.includes(g.dataset.pai);
  },

  tileMove(g) {
    return { type: "dahai", pai: g.dataset.pai, tsumogiri: g.dataset.tsumogiri === "true" };
  },

  drawnMove(view) {
    return view.drawn !== null && view.legal.tsumogiri
      ? { type: "dahai", pai: view.drawn, tsumogiri: true } : null;
  },

  playsTile: discards,

  asked(legal) {
    return {
      text: discards(legal)
        ? "Your turn: discard a tile (click it; or Tab to it and press Enter; D: the tile you drew)."
        : "Your call:",
      answers: legal.calls.map((call) => ({ name: call.name, label: call.label, move: call.move })),
    };
  },

  lastHand(done, names) {
    const result = done.result;
    const points = result.d.map((d, s) => `${names[s]} ${signed(d)}`).join(", ");
    const shown = [element("strong", "", `Hand ${done.number}: ${result.h}`),
                   element("span", "rc-yaku", ` \u2014 ${[...result.l, `points: ${points}`].join("; ")}`)];
    const dora = done.dora.map(([label, row]) => `${label} ${row}`).join(", ");
    if (dora) shown.push(element("span", "rc-dora", ` (${dora})`));
    done.winners.forEach((seat, i) => {
      const [hand, tile] = done.hands[i];
      shown.push(element("span", "rc-won", ` ${names[seat]}: ${hand} + ${tile}`));
    });
    return shown;
  },

  mark(dataset, view, mine) {
    dataset.hand = String(view.hand_number);
    dataset.calls = mine ? view.legal.calls.map((c) => c.name).join(" ") : "";
  },
};

export function createBoard(box, api) {
  return createTileBoard(box, api, RIICHI);
}
