// Riichi mahjong's board at a web table: the table drawn with the results site's tile
// pictures (its tiles.js, served at /static/report/, draws the frame the server sends as
// it draws a replay's): every seat's discards (riichi and called tiles marked) and melds,
// the dora, the round, honba, sticks and the wall's count. The seat asked gets the tiles
// it may discard as clickable tiles (click, or Tab / arrow keys and Enter; D the drawn
// tile) and its calls as buttons (chi, pon, kan, riichi, tsumo, ron, kyuushu, pass; keys
// 1-9 or C P K R W Q X). The hand before, with its yaku, han, fu and payments, stays in
// sight. The server says what is legal and judges every click; nothing of the rules is
// known here.

import { linkStyles } from "/static/boards.js";
import "/static/report/tiles.js";

const INFO = ["Round", "Honba", "Riichi sticks", "Wall"];
const KEYS = { chi: "c", pon: "p", kan: "k", riichi: "r", tsumo: "w", ron: "w", kyushu: "q",
               pass: "x" };

function element(name, className, text) {
  const node = document.createElement(name);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

export function createBoard(box, api) {
  linkStyles(new URL("board.css", import.meta.url).href);
  linkStyles("/static/report/tiles.css");
  const root = element("div", "rc-board");
  const last = element("div", "rc-last");
  last.setAttribute("aria-live", "polite");
  const tableBox = element("div", "tiles-board");
  const ask = element("p", "rc-ask");
  ask.setAttribute("aria-live", "polite");
  const calls = element("div", "rc-calls");
  calls.setAttribute("role", "group");
  calls.setAttribute("aria-label", "Your calls");
  root.append(last, ask, calls, tableBox);
  box.append(root);
  let view = null;
  let mine = false;
  let you = null;

  function names(table) {
    return table.seats.map((seat) => seat.name || "(open)");
  }

  function labels(table) {
    return names(table).map((name, seat) =>
      `${name}${seat === you ? " (you)" : ""} \u00b7 ${view.held[seat]} tiles`);
  }

  function drawTable(table) {
    const section = element("div", "replay");
    const data = element("script", "replay-frames");
    data.type = "application/json";
    data.textContent = JSON.stringify({ renderer: "tiles", info: { names: labels(table), info: INFO },
                                        frames: [view.frame] });
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "tiles");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "The riichi table");
    section.append(data, svg);
    tableBox.replaceChildren(section);
    document.dispatchEvent(new CustomEvent("replay:new", { detail: section }));
    if (you !== null) markHand(svg);
  }

  function markHand(svg) {
    const seat = svg.querySelector(`g.tt-seat[data-seat="${you}"]`);
    if (!seat || !view.hand) return;
    const tiles = [...seat.querySelectorAll(".tt-hand g.tile")];
    tiles.forEach((g, i) => { g.dataset.pai = view.hand[i]; g.dataset.tsumogiri = "false"; });
    const drawn = seat.querySelector(".tt-drawn g.tile");
    if (drawn && view.drawn !== null) {
      drawn.dataset.pai = view.drawn;
      drawn.dataset.tsumogiri = "true";
      tiles.push(drawn);
    }
    const legal = mine && view.legal ? view.legal : null;
    const playable = legal ? tiles.filter((g) => (g.dataset.tsumogiri === "true"
      ? legal.tsumogiri : legal.discard.includes(g.dataset.pai))) : [];
    playable.forEach((g, i) => {
      g.classList.add("playable");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      const name = g.querySelector("title") ? g.querySelector("title").textContent : g.dataset.pai;
      g.setAttribute("aria-label", `Discard ${name}`);
      const discard = () => sendDiscard(g.dataset.pai, g.dataset.tsumogiri === "true");
      g.addEventListener("click", discard);
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          discard();
        } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
          event.preventDefault();
          const next = playable[(i + (event.key === "ArrowRight" ? 1 : playable.length - 1)) % playable.length];
          next.focus();
        }
      });
    });
  }

  function sendDiscard(pai, tsumogiri) {
    if (!mine) return;
    mine = false;
    api.send({ type: "dahai", pai, tsumogiri });
  }

  function drawCalls() {
    calls.replaceChildren();
    ask.textContent = "";
    if (!mine || !view.legal) return;
    const legal = view.legal;
    const discards = legal.discard.length || legal.tsumogiri;
    ask.textContent = discards
      ? "Your turn: discard a tile (click it; or Tab to it and press Enter; D: the tile you drew)."
      : "Your call:";
    legal.calls.forEach((call, i) => {
      const button = element("button", `rc-call rc-${call.name}`, `${i + 1}. ${call.label}`);
      button.type = "button";
      button.dataset.call = call.name;
      button.dataset.key = KEYS[call.name] || "";
      button.addEventListener("click", () => {
        if (!mine) return;
        mine = false;
        api.send(call.move);
      });
      calls.append(button);
    });
  }

  function drawLast(table) {
    last.replaceChildren();
    const done = view.last;
    if (!done) return;
    const result = done.result;
    last.append(element("strong", "", `Hand ${done.number}: ${result.h}`));
    const points = result.d.map((d, s) => `${names(table)[s]} ${signed(d)}`).join(", ");
    last.append(element("span", "rc-yaku", ` \u2014 ${[...result.l, `points: ${points}`].join("; ")}`));
    const dora = done.dora.map(([label, row]) => `${label} ${row}`).join(", ");
    if (dora) last.append(element("span", "rc-dora", ` (${dora})`));
    done.winners.forEach((seat, i) => {
      const [hand, tile] = done.hands[i];
      last.append(element("span", "rc-won", ` ${names(table)[seat]}: ${hand} + ${tile}`));
    });
  }

  document.addEventListener("keydown", (event) => {
    if (!mine || !view || !view.legal || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const key = event.key.toLowerCase();
    const buttons = [...calls.querySelectorAll("button")];
    if (/^[1-9]$/.test(key) && buttons[Number(key) - 1]) {
      event.preventDefault();
      buttons[Number(key) - 1].click();
    } else if (buttons.some((b) => b.dataset.key === key)) {
      event.preventDefault();
      buttons.find((b) => b.dataset.key === key).click();
    } else if (key === "d" && view.drawn !== null && view.legal.tsumogiri) {
      event.preventDefault();
      sendDiscard(view.drawn, true);
    }
  });

  return {
    update(next, table, seat) {
      view = next;
      you = seat;
      mine = seat !== null && table.status === "playing" && table.asking === seat && !!view.legal;
      root.dataset.mine = String(mine);
      root.dataset.hand = String(view.hand_number);
      root.dataset.calls = mine ? view.legal.calls.map((c) => c.name).join(" ") : "";
      drawLast(table);
      drawCalls();
      drawTable(table);
      if (mine && (view.legal.discard.length || view.legal.tsumogiri)) {
        const first = tableBox.querySelector("g.tile.playable");
        if (first && !root.contains(document.activeElement)) first.focus({ preventScroll: true });
      }
    },
    refused() {
      if (view && view.legal) { mine = true; root.dataset.mine = "true"; }
    },
  };
}
