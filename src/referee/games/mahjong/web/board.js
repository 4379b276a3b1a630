// ICGA Mahjong's board at a web table: the table drawn with the results site's tile
// pictures (its tiles.js, served at /static/report/, draws the frame the server sends as
// it draws a replay's), every seat's discards, melds and flowers, the wall's count; the
// seat asked gets its legal tiles to throw (click, or Tab / arrow keys and Enter; D the
// drawn tile) and its claims as buttons (chow, pung, kong, win, pass; keys 1-9 or
// C P K W X). The result of each hand, with its tai, stays in sight. The server says what
// is legal and judges every click; nothing of the rules is known here.

import { linkStyles } from "/static/boards.js";
import "/static/report/tiles.js";

const INFO = ["Hand", "Round wind", "Wall"];
const KEYS = { chow: "c", pung: "p", kong: "k", concealed_kong: "k", promoted_kong: "k",
               win: "w", pass: "x" };

function element(name, className, text) {
  const node = document.createElement(name);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

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

export function createBoard(box, api) {
  linkStyles(new URL("board.css", import.meta.url).href);
  linkStyles("/static/report/tiles.css");
  const root = element("div", "mj-board");
  const last = element("div", "mj-last");
  last.setAttribute("aria-live", "polite");
  const tableBox = element("div", "tiles-board");
  const ask = element("p", "mj-ask");
  ask.setAttribute("aria-live", "polite");
  const claims = element("div", "mj-claims");
  claims.setAttribute("role", "group");
  claims.setAttribute("aria-label", "Your answers");
  root.append(last, ask, claims, tableBox);
  box.append(root);
  let view = null;
  let mine = false;
  let you = null;

  function names(table) {
    return table.seats.map((seat) => seat.name || "(open)");
  }

  function labels(table) {
    return names(table).map((name, seat) => {
      const hidden = view.hidden_kongs[seat] ? ` + ${view.hidden_kongs[seat]} concealed kong` : "";
      return `${name}${seat === you ? " (you)" : ""} \u00b7 ${view.held[seat]} tiles${hidden}`;
    });
  }

  function drawTable(table) {
    const frame = JSON.parse(JSON.stringify(view.frame));
    if (frame.x && view.result) {
      frame.x.h = headline(view.result, names(table));
      frame.x.l = [...scoreLines(view.result),
                   `points: ${view.result.payments.map((p, s) => `${names(table)[s]} ${p > 0 ? "+" : ""}${p}`).join(", ")}`];
    }
    const section = element("div", "replay");
    const data = element("script", "replay-frames");
    data.type = "application/json";
    data.textContent = JSON.stringify({ renderer: "tiles", info: { names: labels(table), info: INFO },
                                        frames: [frame] });
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "tiles");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "The mahjong table");
    section.append(data, svg);
    tableBox.replaceChildren(section);
    document.dispatchEvent(new CustomEvent("replay:new", { detail: section }));
    if (you !== null) markHand(svg);
  }

  function markHand(svg) {
    const seat = svg.querySelector(`g.tt-seat[data-seat="${you}"]`);
    if (!seat) return;
    const tiles = [...seat.querySelectorAll(".tt-hand g.tile")];
    tiles.forEach((g, i) => { g.dataset.tid = String(view.hand[i]); });
    const drawn = seat.querySelector(".tt-drawn g.tile");
    if (drawn && view.drawn !== null) { drawn.dataset.tid = String(view.drawn); tiles.push(drawn); }
    const legal = mine && view.legal ? new Set(view.legal.throw) : new Set();
    const playable = tiles.filter((g) => legal.has(Number(g.dataset.tid)));
    playable.forEach((g, i) => {
      g.classList.add("playable");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      const name = g.querySelector("title") ? g.querySelector("title").textContent : g.dataset.tile;
      g.setAttribute("aria-label", `Throw ${name}`);
      g.addEventListener("click", () => throwTile(Number(g.dataset.tid)));
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          throwTile(Number(g.dataset.tid));
        } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
          event.preventDefault();
          const next = playable[(i + (event.key === "ArrowRight" ? 1 : playable.length - 1)) % playable.length];
          next.focus();
        }
      });
    });
  }

  function throwTile(tid) {
    if (!mine) return;
    mine = false;
    api.send({ action: "throw", tiles: [tid] });
  }

  function drawClaims() {
    claims.replaceChildren();
    ask.textContent = "";
    if (!mine || !view.legal) return;
    const legal = view.legal;
    if (legal.ask === "throw") {
      ask.textContent = "Your turn: throw a tile (click it; or Tab to it and press Enter; D: the tile you drew).";
      return;
    }
    const offered = legal.discard_code ? ` (the tile: ${legal.discard_code})` : "";
    ask.textContent = `Your answer to /ask ${legal.ask}${offered}:`;
    legal.claims.forEach((claim, i) => {
      const button = element("button", `mj-claim mj-${claim.action}`, `${i + 1}. ${claim.label}`);
      button.type = "button";
      button.dataset.action = claim.action;
      button.dataset.key = KEYS[claim.action] || "";
      button.addEventListener("click", () => {
        if (!mine) return;
        mine = false;
        api.send({ action: claim.action, tiles: claim.tiles });
      });
      claims.append(button);
    });
  }

  function drawLast(table) {
    last.replaceChildren();
    const result = view.last;
    if (!result) return;
    const head = element("strong", "", `Hand ${result.number}: ${headline(result, names(table))}`);
    const lines = scoreLines(result);
    const points = result.payments.map((p, s) => `${names(table)[s]} ${p > 0 ? "+" : ""}${p}`).join(", ");
    last.append(head, element("span", "", ` \u2014 ${[...lines, `points: ${points}`].join("; ")}`));
    if (result.tiles.length) last.append(element("span", "mj-won", ` (${result.tiles.join(" ")})`));
  }

  document.addEventListener("keydown", (event) => {
    if (!mine || !view || !view.legal || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const key = event.key.toLowerCase();
    const buttons = [...claims.querySelectorAll("button")];
    if (/^[1-9]$/.test(key) && buttons[Number(key) - 1]) {
      event.preventDefault();
      buttons[Number(key) - 1].click();
    } else if (buttons.length && buttons.some((b) => b.dataset.key === key)) {
      event.preventDefault();
      buttons.find((b) => b.dataset.key === key).click();
    } else if (key === "d" && view.drawn !== null && view.legal.throw.includes(view.drawn)) {
      event.preventDefault();
      throwTile(view.drawn);
    }
  });

  return {
    update(next, table, seat) {
      view = next;
      you = seat;
      mine = seat !== null && table.status === "playing" && table.asking === seat && !!view.legal;
      root.dataset.mine = String(mine);
      root.dataset.ask = mine ? view.legal.ask : "";
      root.dataset.hand = String(view.number);
      drawLast(table);
      drawClaims();
      drawTable(table);
      if (mine && view.legal.ask === "throw") {
        const first = tableBox.querySelector("g.tile.playable");
        if (first && !root.contains(document.activeElement)) first.focus({ preventScroll: true });
      }
    },
    refused() {
      if (view && view.legal) { mine = true; root.dataset.mine = "true"; }
    },
  };
}
