// What the tile games' boards at a web table share (ICGA Mahjong's and Riichi's import it
// from /static/tileboard.js): the table drawn with the results site's tile pictures (its
// tiles.js, served at /static/report/, draws the frame the server sends as it draws a
// replay's), each seat named with the tiles it holds; the seat asked gets the tiles the
// server says it may play as clickable tiles (click, or Tab / arrow keys and Enter; D the
// drawn tile), its other answers as numbered buttons (keys 1-9 or each button's letter),
// a line saying what is asked, and the hand before in sight. The game's board says how
// its tiles and answers read and what a click sends; the server says what is legal and
// judges every click. Nothing of any game's rules is known here.

import { element, linkStyles } from "/static/boards.js";
import "/static/report/tiles.js";

// `game` is the board's own part:
//   styles                    its style sheet (linked after the shared tileboard.css)
//   prefix                    its classes' prefix ("mj": mj-board, mj-last, mj-ask)
//   answers                   { group, label, button, data }: the buttons' box's class and
//                             label, a button's class, the data attribute naming its answer
//   keys                      an answer's letter (by its name)
//   info, tableLabel, verb    the table's info labels, its label, a playable tile's verb
//   heldNote(view, seat)      words after a seat's count of tiles ("" if none)
//   frame(view, names)        the frame to draw (view.frame, or a copy it adds to)
//   tag(g, tile, drawn)       marks a tile of the seat's hand (or its drawn tile)
//   playable(g, legal)        whether that tile may be played now
//   tileMove(g)               the move that plays it
//   drawnMove(view)           the move that plays the drawn tile (key D), or null
//   playsTile(legal)          whether the seat is asked for a tile (one gets the focus)
//   asked(legal)              { text, answers: [{ name, label, move }] }: the ask, the buttons
//   lastHand(last, names)     the elements that show the hand before (view.last)
//   mark(dataset, view, mine) its own data attributes on the board's root
export function createTileBoard(box, api, game) {
  linkStyles(new URL("tileboard.css", import.meta.url).href);
  linkStyles("/static/report/tiles.css");
  linkStyles(game.styles);
  const root = element("div", `tb-board ${game.prefix}-board`);
  const last = element("div", `tb-last ${game.prefix}-last`);
  last.setAttribute("aria-live", "polite");
  const tableBox = element("div", "tiles-board");
  const ask = element("p", `tb-ask ${game.prefix}-ask`);
  ask.setAttribute("aria-live", "polite");
  const buttons = element("div", `tb-answers ${game.answers.group}`);
  buttons.setAttribute("role", "group");
  buttons.setAttribute("aria-label", game.answers.label);
  root.append(last, ask, buttons, tableBox);
  box.append(root);
  let view = null;
  let mine = false;
  let you = null;

  function names(table) {
    return table.seats.map((seat) => seat.name || "(open)");
  }

  function labels(table) {
    return names(table).map((name, seat) =>
      `${name}${seat === you ? " (you)" : ""} \u00b7 ${view.held[seat]} tiles${game.heldNote(view, seat)}`);
  }

  function send(move) {
    if (!mine) return;
    mine = false;
    api.send(move);
  }

  function drawTable(table) {
    const section = element("div", "replay");
    const data = element("script", "replay-frames");
    data.type = "application/json";
    data.textContent = JSON.stringify({ renderer: "tiles", info: { names: labels(table), info: game.info },
                                        frames: [game.frame(view, names(table))] });
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "tiles");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", game.tableLabel);
    section.append(data, svg);
    tableBox.replaceChildren(section);
    document.dispatchEvent(new CustomEvent("replay:new", { detail: section }));
    if (you !== null) markHand(svg);
  }

  function markHand(svg) {
    const seat = svg.querySelector(`g.tt-seat[data-seat="${you}"]`);
    if (!seat || !view.hand) return;
    const tiles = [...seat.querySelectorAll(".tt-hand g.tile")];
    tiles.forEach((g, i) => game.tag(g, view.hand[i], false));
    const drawn = seat.querySelector(".tt-drawn g.tile");
    if (drawn && view.drawn !== null) { game.tag(drawn, view.drawn, true); tiles.push(drawn); }
    const legal = mine && view.legal ? view.legal : null;
    const playable = legal ? tiles.filter((g) => game.playable(g, legal)) : [];
    playable.forEach((g, i) => {
      g.classList.add("playable");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      const name = g.querySelector("title") ? g.querySelector("title").textContent : g.dataset.tile;
      g.setAttribute("aria-label", `${game.verb} ${name}`);
      const play = () => send(game.tileMove(g));
      g.addEventListener("click", play);
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          play();
        } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
          event.preventDefault();
          const next = playable[(i + (event.key === "ArrowRight" ? 1 : playable.length - 1)) % playable.length];
          next.focus();
        }
      });
    });
  }

  function drawAnswers() {
    buttons.replaceChildren();
    ask.textContent = "";
    if (!mine || !view.legal) return;
    const { text, answers } = game.asked(view.legal);
    ask.textContent = text;
    answers.forEach((answer, i) => {
      const button = element("button", `tb-answer ${game.answers.button} ${game.prefix}-${answer.name}`,
                             `${i + 1}. ${answer.label}`);
      button.type = "button";
      button.dataset[game.answers.data] = answer.name;
      button.dataset.key = game.keys[answer.name] || "";
      button.addEventListener("click", () => send(answer.move));
      buttons.append(button);
    });
  }

  function drawLast(table) {
    last.replaceChildren();
    if (view.last) last.append(...game.lastHand(view.last, names(table)));
  }

  document.addEventListener("keydown", (event) => {
    if (!mine || !view || !view.legal || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const key = event.key.toLowerCase();
    const shown = [...buttons.querySelectorAll("button")];
    if (/^[1-9]$/.test(key) && shown[Number(key) - 1]) {
      event.preventDefault();
      shown[Number(key) - 1].click();
    } else if (shown.some((b) => b.dataset.key === key)) {
      event.preventDefault();
      shown.find((b) => b.dataset.key === key).click();
    } else if (key === "d") {
      const move = game.drawnMove(view);
      if (move) {
        event.preventDefault();
        send(move);
      }
    }
  });

  return {
    update(next, table, seat) {
      view = next;
      you = seat;
      mine = seat !== null && table.status === "playing" && table.asking === seat && !!view.legal;
      root.dataset.mine = String(mine);
      game.mark(root.dataset, view, mine);
      drawLast(table);
      drawAnswers();
      drawTable(table);
      if (mine && game.playsTile(view.legal)) {
        const first = tableBox.querySelector("g.tile.playable");
        if (first && !root.contains(document.activeElement)) first.focus({ preventScroll: true });
      }
    },
    refused() {
      if (view && view.legal) { mine = true; root.dataset.mine = "true"; }
    },
  };
}
