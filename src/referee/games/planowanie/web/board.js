// Planowanie's board at a web table: the server's view drawn as the deal's header, a row
// per seat (declared, taken, points), the trick on the table (or the last one, and the
// last deal's result), the declaration as a number picker and the seat's hand as cards.
// Only the cards and numbers the server lists as legal can be clicked; the server judges
// every click (a refused one comes back with its reason). No rules are known here.

import { linkStyles, element } from "/static/boards.js";
const SUIT_SIGNS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RED = new Set(["D", "H"]);

export function createBoard(box, api) {
  linkStyles(new URL("board.css", import.meta.url).href);
  const root = element("div", "pw-board");
  const head = element("p", "pw-head");
  const seats = element("table", "pw-seats");
  const trick = element("div", "pw-trick");
  const dealNote = element("p", "pw-last-deal");
  const picker = element("div", "pw-declare");
  const hand = element("div", "pw-hand");
  trick.setAttribute("aria-label", "The trick on the table");
  hand.setAttribute("role", "group");
  hand.setAttribute("aria-label", "Your hand");
  root.append(head, seats, trick, dealNote, picker, hand);
  box.append(root);
  let view = null;
  let table = null;
  let you = null;
  let mine = false;
  let sent = false;

  function suitOf(name) { return name.slice(-1); }
  function valueOf(name) { return name.slice(0, -1); }

  function standardSuits() {
    return [...view.suits].every((s) => s in SUIT_SIGNS);
  }

  function cardText(name) {
    const value = valueOf(name) === "T" && view.values.includes("T") ? "10" : valueOf(name);
    const suit = suitOf(name);
    return value + (standardSuits() ? SUIT_SIGNS[suit] : suit);
  }

  function card(name, tag) {
    const shown = element(tag, "pw-card", cardText(name));
    const suit = suitOf(name);
    shown.dataset.card = name;
    shown.dataset.suit = suit;
    if (standardSuits() && RED.has(suit)) shown.classList.add("red");
    if (suit === view.suits[0]) shown.classList.add("trump");
    shown.title = name + (suit === view.suits[0] ? " (trumps)" : "");
    return shown;
  }

  function seatName(seat) {
    const info = table.seats[seat];
    const name = info ? info.name : `Seat ${seat + 1}`;
    return seat === you ? `${name} (you)` : name;
  }

  function drawHead() {
    const trumps = standardSuits() ? SUIT_SIGNS[view.suits[0]] : view.suits[0];
    const doing = view.phase === "declare" ? "declarations" :
      view.phase === "play" ? "play" : "the game is over";
    head.textContent = `Deal ${view.deal} of ${view.deals}: ${view.cards} card` +
      `${view.cards === 1 ? "" : "s"} each, trumps ${trumps}; ${doing}`;
  }

  function drawSeats() {
    seats.replaceChildren();
    const top = element("tr");
    for (const title of ["Seat", "Declared", "Taken", "Points"]) top.append(element("th", "", title));
    const thead = element("thead");
    thead.append(top);
    const body = element("tbody");
    for (let seat = 0; seat < view.players; seat++) {
      const row = element("tr");
      row.dataset.seat = String(seat);
      row.classList.toggle("to-play", view.to_play === seat);
      row.classList.toggle("you", seat === you);
      const said = view.declared[seat];
      const declared = said !== null ? String(said) : view.has_declared[seat] ? "?" : "\u2013";
      row.append(element("td", "pw-name", seatName(seat)),
        element("td", "pw-declared", declared),
        element("td", "pw-taken", String(view.tricks[seat])),
        element("td", "pw-points", String(view.points[seat])));
      if (seat === view.starter) row.cells[0].append(element("span", "pw-starter", " (starts)"));
      body.append(row);
    }
    seats.append(thead, body);
  }

  function drawTrick() {
    trick.replaceChildren();
    const showTrick = (cards, leader, winner, caption) => {
      trick.append(element("p", "pw-caption", caption));
      const row = element("div", "pw-played");
      cards.forEach((name, k) => {
        const seat = (leader + k) % view.players;
        const slot = element("figure", "pw-slot");
        if (seat === winner) slot.classList.add("won");
        slot.append(card(name, "span"), element("figcaption", "", seatName(seat)));
        row.append(slot);
      });
      trick.append(row);
    };
    const current = view.trick;
    if (current.cards.length) {
      trick.dataset.shows = "trick";
      showTrick(current.cards, current.leader, null, "On the table:");
      return;
    }
    const last = view.last_trick || (view.last_deal && view.last_deal.last_trick);
    if (last) {
      trick.dataset.shows = "last";
      showTrick(last.cards, last.leader, last.winner,
        `Last trick, taken by ${seatName(last.winner)}:`);
      return;
    }
    trick.dataset.shows = "nothing";
    trick.append(element("p", "pw-caption", view.phase === "play" ?
      `${seatName(current.leader)} leads.` : "No card on the table yet."));
  }

  function drawDealNote() {
    const done = view.last_deal;
    const fresh = done && (view.phase === "over" ||
      (view.last_trick === null && view.trick.cards.length === 0));
    dealNote.hidden = !fresh;
    if (!fresh) { dealNote.textContent = ""; return; }
    const parts = [];
    for (let seat = 0; seat < view.players; seat++) {
      parts.push(`${seatName(seat)} declared ${done.declared[seat]}, took ` +
        `${done.tricks[seat]}: +${done.gained[seat]}`);
    }
    dealNote.textContent = `Deal ${done.deal} over. ${parts.join("; ")}.`;
  }

  function send(move) {
    if (sent) return;
    sent = true;
    api.send(move);
    draw();
  }

  function drawPicker() {
    picker.replaceChildren();
    const legal = mine && !sent && view.legal && view.legal.declare;
    picker.hidden = !legal;
    if (!legal) return;
    const numbers = view.legal.declare;
    const label = element("label", "", "Declare tricks: ");
    const input = element("input", "pw-number");
    input.type = "number";
    input.min = String(Math.min(...numbers));
    input.max = String(Math.max(...numbers));
    input.step = "1";
    input.value = String(Math.min(...numbers));
    label.append(input);
    const go = element("button", "pw-declare-button", "Declare");
    go.type = "button";
    const declare = () => {
      const n = Number(input.value);
      if (input.value.trim() !== "" && Number.isInteger(n)) send({ declare: n });
    };
    go.addEventListener("click", declare);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); declare(); }
    });
    const quick = element("span", "pw-quick");
    for (const n of numbers) {
      const button = element("button", "pw-n", String(n));
      button.type = "button";
      button.dataset.n = String(n);
      button.title = `Declare ${n}`;
      button.addEventListener("click", () => send({ declare: n }));
      quick.append(button);
    }
    picker.append(label, go, quick);
    input.focus();
  }

  function drawHand() {
    hand.replaceChildren();
    const legal = new Set((mine && !sent && view.legal && view.legal.cards) || []);
    hand.hidden = you === null;
    if (you === null) return;
    hand.append(element("span", "pw-caption", "Your hand: "));
    if (!view.hand.length) hand.append(element("span", "pw-empty", "no cards"));
    const buttons = [];
    for (const name of view.hand) {
      const button = card(name, "button");
      button.type = "button";
      button.disabled = !legal.has(name);
      button.classList.toggle("legal", legal.has(name));
      button.setAttribute("aria-label", `Play ${name}`);
      button.addEventListener("click", () => send({ card: name }));
      buttons.push(button);
      hand.append(button);
    }
    const playable = buttons.filter((b) => !b.disabled);
    playable.forEach((button, k) => {
      button.addEventListener("keydown", (event) => {
        const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
        if (!step) return;
        event.preventDefault();
        playable[(k + step + playable.length) % playable.length].focus();
      });
    });
    if (playable.length && !hand.contains(document.activeElement)) playable[0].focus();
  }

  function draw() {
    root.dataset.phase = view.phase;
    root.dataset.mine = String(mine && !sent);
    root.dataset.deal = String(view.deal);
    drawHead();
    drawSeats();
    drawTrick();
    drawDealNote();
    drawPicker();
    drawHand();
  }

  return {
    update(next, nextTable, seat) {
      view = next;
      table = nextTable;
      you = seat === undefined ? null : seat;
      mine = you !== null && table.status === "playing" && table.asking === you;
      sent = false;
      draw();
    },
    refused() { sent = false; if (view) draw(); },
  };
}
