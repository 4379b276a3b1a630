// A table's page: one WebSocket to the server, the game's own board module drawing what
// the server says this page may see. The board sends moves through `send`; the server
// judges them (a refused one comes back with its reason). No rules are known here.
// The table's chat line (chat.js) shares the socket.

import { createChat } from "./chat.js";

const box = document.getElementById("board");
const statusLine = document.getElementById("status");
const refusedLine = document.getElementById("refused");
const seatsList = document.getElementById("seats");
const resign = document.getElementById("resign");
const startNow = document.getElementById("start-now");

const tableId = box.dataset.table;
const SEEN = '{"type":"seen"}';  // (exactly so: the server compares the text)
const seatText = box.dataset.seat;
let socket = null;
let board = null;
let closedForGood = false;
let retry = 500;
let countdown = null;

function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(message));
  return true;
}

const chat = createChat(send);

function say(text) { statusLine.textContent = text; }

function refused(reason) {
  refusedLine.textContent = `Not taken: ${reason}`;
  refusedLine.hidden = false;
  if (board && board.refused) board.refused(reason);
}

function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function showSeats(table) {
  // A state comes once the game has begun: the page drawn before it may still offer
  // open seats, invitations, a program's connect line and the owner's start button.
  if (startNow) startNow.remove();
  for (const [index, seat] of table.seats.entries()) {
    const item = seatsList.querySelector(`li[data-seat="${index}"]`);
    if (!item) continue;
    item.querySelectorAll("em, form, .invite, .connect").forEach((node) => node.remove());
    let name = item.querySelector(".name");
    let kind = item.querySelector(".hint");
    if (!name) {
      name = document.createElement("span");
      name.className = "name";
      kind = document.createElement("span");
      kind.className = "hint";
      item.append(name, " ", kind);
    }
    name.textContent = seat.name;
    kind.textContent = `(${seat.kind})`;
    item.classList.toggle("to-play", table.to_play === index);
    item.classList.toggle("absent", seat.kind === "person" && !seat.present);
    item.classList.toggle("deputy", seat.deputy);
  }
}

function showStatus(table, you) {
  if (countdown) { clearInterval(countdown); countdown = null; }
  if (table.status !== "playing") {
    say(table.result ? `Game over: ${table.result}` : `The table is ${table.status}.`);
    box.dataset.status = table.status;
    if (resign) resign.hidden = true;
    return;
  }
  const seat = table.to_play;
  const name = seat === null || seat === undefined ? "" : table.seats[seat].name;
  if (you !== null && seat === you && table.asking === you) {
    const until = performance.now() + (table.left_ms ?? 0);
    const tick = () => {
      say(table.left_ms === null ? "Your turn." :
        `Your turn: ${clockText(until - performance.now())} left.`);
    };
    tick();
    if (table.left_ms !== null) countdown = setInterval(tick, 250);
  } else {
    say(`${name} to play.`);
  }
}

async function start() {
  const module = await import(box.dataset.board);
  board = module.createBoard(box, { send: (move) => { refusedLine.hidden = true;
                                                      send({ type: "move", move }); } });
  connect();
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/tables/${tableId}/live`);
  socket.addEventListener("open", () => { retry = 500; });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      box.dataset.seq = String((Number(box.dataset.seq) || 0) + 1);
      showSeats(message.table);
      showStatus(message.table, message.you);
      showDeputy(message.table, message.you);
      board.update(message.view, message.table, message.you);
      socket.send(SEEN);  // (the server sends a newer board once this one is shown)
    } else if (message.type === "refused") {
      refused(message.reason);
    } else if (message.type === "chat" || message.type === "chat-refused") {
      chat.receive(message);
    }
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 1008 || event.code === 1009) {
      closedForGood = true;
      say(`Disconnected: ${event.reason || "refused"}`);
    }
    if (!closedForGood) {
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    }
  });
}

const deputy = document.getElementById("deputy");
const takeBack = document.getElementById("take-back");
if (deputy) {
  deputy.addEventListener("click", () => {
    send({ type: "deputy", program: document.getElementById("deputy-choice").value });
  });
  takeBack.addEventListener("click", () => send({ type: "take-back" }));
}

function showDeputy(table, you) {
  if (!deputy || you === null || you === undefined) return;
  const playing = table.status === "playing";
  const handed = table.seats[you].deputy;
  deputy.hidden = !playing || handed;
  takeBack.hidden = !playing || !handed;
}

if (resign) {
  resign.addEventListener("click", () => {
    if (confirm("Resign this game?")) send({ type: "resign" });
  });
}

window.refereeTable = { send, seat: seatText === "" ? null : Number(seatText) };
start();
