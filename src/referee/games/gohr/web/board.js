// The Game of Hidden Rules' board at a web table: the 6x6 board with its pieces and the
// four buckets at its corners (0 top left, then clockwise). A move is a piece dragged to
// a bucket, or a piece clicked (or chosen with Enter) then a bucket clicked (or its key,
// 1 to 4). The server answers every attempt: accepted (the piece goes to the bucket),
// denied (it may go elsewhere) or immovable (nowhere now), shown on the piece and in
// words, with the move count and the score. The rule is never known here.

import { linkStyles, element } from "/static/boards.js";
const COLORS = { RED: "#d62728", BLACK: "#222", BLUE: "#1f5fbf", YELLOW: "#e8c31a" };
const BUCKET_NAMES = ["top left", "top right", "bottom right", "bottom left"];
const ENDS = {
  cleared: "Board cleared!", stalemate: "Stalemate: no piece can move any more.",
  limit: "The move limit of this board is reached.", "given up": "Board given up.",
  stopped: "Stopped.",
};
const SVG = "http://www.w3.org/2000/svg";

function shapeSvg(piece, size) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 40 40");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("aria-hidden", "true");
  const color = COLORS[(piece.color || "").toUpperCase()];
  const shape = (piece.shape || "").toUpperCase();
  let drawn;
  if (shape === "SQUARE") {
    drawn = document.createElementNS(SVG, "rect");
    for (const [k, v] of [["x", 6], ["y", 6], ["width", 28], ["height", 28]]) drawn.setAttribute(k, String(v));
  } else if (shape === "CIRCLE") {
    drawn = document.createElementNS(SVG, "circle");
    for (const [k, v] of [["cx", 20], ["cy", 20], ["r", 15]]) drawn.setAttribute(k, String(v));
  } else if (shape === "TRIANGLE") {
    drawn = document.createElementNS(SVG, "polygon");
    drawn.setAttribute("points", "20,5 36,34 4,34");
  } else if (shape === "STAR") {
    drawn = document.createElementNS(SVG, "polygon");
    const points = [];
    for (let k = 0; k < 10; k++) {
      const r = k % 2 ? 7 : 17;
      const a = Math.PI / 5 * k - Math.PI / 2;
      points.push(`${(20 + r * Math.cos(a)).toFixed(1)},${(21 + r * Math.sin(a)).toFixed(1)}`);
    }
    drawn.setAttribute("points", points.join(" "));
  } else {  // a shape this board does not know: a ring with its name's first letter
    drawn = document.createElementNS(SVG, "circle");
    for (const [k, v] of [["cx", 20], ["cy", 20], ["r", 15]]) drawn.setAttribute(k, String(v));
    drawn.setAttribute("class", "gohr-other");
    const text = document.createElementNS(SVG, "text");
    text.setAttribute("x", "20");
    text.setAttribute("y", "26");
    text.setAttribute("text-anchor", "middle");
    text.textContent = (piece.shape || "?").split("/").pop().slice(0, 1);
    svg.append(drawn, text);
    drawn = null;
  }
  if (drawn) {
    drawn.setAttribute("fill", color || "#999");
    svg.append(drawn);
  }
  return svg;
}

function pieceWords(piece) {
  return `${(piece.color || "").toLowerCase()} ${(piece.shape || "").toLowerCase()}`.trim();
}

export function createBoard(box, api) {
  linkStyles(new URL("board.css", import.meta.url).href);
  const root = element("div", "gohr-board");
  const head = element("p", "gohr-head");
  const grid = element("div", "gohr-grid");
  grid.setAttribute("role", "group");
  grid.setAttribute("aria-label", "The board and its four buckets");
  const answer = element("p", "gohr-answer");
  answer.setAttribute("aria-live", "polite");
  const controls = element("div", "gohr-controls");
  const next = element("button", "gohr-next", "Next board");
  next.type = "button";
  controls.append(next);
  const help = element("p", "gohr-help",
    "Drag a piece to a bucket, or click a piece then a bucket. Keyboard: Tab to a piece, " +
    "Enter to pick it, then 1-4 for the buckets (1 top left, clockwise), Escape to drop it.");
  const results = element("table", "gohr-results");
  const rules = element("pre", "gohr-rules");
  root.append(head, grid, answer, controls, help, results, rules);
  box.append(root);

  let view = null;
  let you = null;
  let mine = false;
  let chosen = null;
  let shownMoves = -1;
  const buckets = [];

  for (let b = 0; b < 4; b++) {
    const bucket = element("button", `gohr-bucket b${b}`);
    bucket.type = "button";
    bucket.dataset.bucket = String(b);
    bucket.setAttribute("aria-label", `Bucket ${b + 1} (${BUCKET_NAMES[b]})`);
    bucket.addEventListener("click", () => attempt(chosen, b));
    bucket.addEventListener("dragover", (event) => {
      if (!mine) return;
      event.preventDefault();
      bucket.classList.add("over");
    });
    bucket.addEventListener("dragleave", () => bucket.classList.remove("over"));
    bucket.addEventListener("drop", (event) => {
      event.preventDefault();
      bucket.classList.remove("over");
      const id = Number(event.dataTransfer.getData("text/plain"));
      if (Number.isInteger(id)) attempt(id, b);
    });
    buckets.push(bucket);
  }

  next.addEventListener("click", () => {
    if (!mine || !view.legal.new) return;
    api.send({ new: true });
  });

  root.addEventListener("keydown", (event) => {
    if (event.key >= "1" && event.key <= "4" && chosen !== null) {
      event.preventDefault();
      attempt(chosen, Number(event.key) - 1);
    } else if (event.key === "Escape") {
      choose(null);
    }
  });

  function legalPiece(id) {
    return mine && view.legal.pieces.includes(id);
  }

  function attempt(id, bucket) {
    if (id === null || !legalPiece(id)) return;
    chosen = null;
    mine = false;  // until the server answers
    draw();
    api.send({ piece: id, bucket });
  }

  function choose(id) {
    chosen = id !== null && legalPiece(id) ? id : null;
    for (const button of grid.querySelectorAll(".gohr-piece")) {
      const selected = Number(button.dataset.piece) === chosen;
      button.classList.toggle("chosen", selected);
      button.setAttribute("aria-pressed", selected ? "true" : "false");
    }
    for (const bucket of buckets) bucket.classList.toggle("ready", chosen !== null);
  }

  function drawBuckets() {
    for (let b = 0; b < 4; b++) {
      const bucket = buckets[b];
      const inside = view.bins[b];
      bucket.replaceChildren(element("span", "gohr-bucket-name", String(b + 1)));
      const heap = element("span", "gohr-heap");
      for (const piece of inside.slice(-6)) heap.append(shapeSvg(piece, 16));
      bucket.append(heap, element("span", "gohr-count", String(inside.length)));
      bucket.disabled = !mine;
      bucket.title = `Bucket ${b + 1} (${BUCKET_NAMES[b]}): ${inside.length} piece` +
        `${inside.length === 1 ? "" : "s"}`;
    }
  }

  function drawGrid() {
    grid.replaceChildren();
    const cells = new Map(view.pieces.map((p) => [`${p.x},${p.y}`, p]));
    const last = view.last;
    for (let row = 0; row < 8; row++) {
      for (let col = 0; col < 8; col++) {
        const corner = (row === 0 || row === 7) && (col === 0 || col === 7);
        if (corner) {
          const b = row === 0 ? (col === 0 ? 0 : 1) : (col === 7 ? 2 : 3);
          grid.append(buckets[b]);
          continue;
        }
        if (row === 0 || row === 7 || col === 0 || col === 7) {
          grid.append(element("span", "gohr-edge"));
          continue;
        }
        const x = col, y = 7 - row;
        const piece = cells.get(`${x},${y}`);
        if (!piece) {
          const cell = element("span", "gohr-cell");
          cell.dataset.x = String(x);
          cell.dataset.y = String(y);
          grid.append(cell);
          continue;
        }
        const button = element("button", "gohr-cell gohr-piece");
        button.type = "button";
        button.dataset.piece = String(piece.id);
        button.dataset.x = String(x);
        button.dataset.y = String(y);
        button.append(shapeSvg(piece, 34));
        const words = `${pieceWords(piece)} at column ${x}, row ${y}`;
        button.setAttribute("aria-label", words);
        button.title = words;
        button.setAttribute("aria-pressed", "false");
        const movable = legalPiece(piece.id);
        button.disabled = !movable;
        button.draggable = movable;
        if (last && last.piece.id === piece.id && last.result !== "accepted") {
          button.classList.add(last.result);
          button.append(element("span", "gohr-mark", last.result === "denied" ? "\u2717" : "\u26d4"));
        }
        button.addEventListener("click", () => choose(chosen === piece.id ? null : piece.id));
        button.addEventListener("dragstart", (event) => {
          event.dataTransfer.setData("text/plain", String(piece.id));
          event.dataTransfer.effectAllowed = "move";
          choose(piece.id);
        });
        grid.append(button);
      }
    }
  }

  function drawHead() {
    const percent = Math.round(view.score * 100);
    const limit = view.max_moves ? ` (limit ${view.max_moves})` : "";
    head.textContent = `Board ${view.board} of ${view.boards} \u00b7 moves ${view.moves}` +
      `${limit} \u00b7 removed ${view.removed} of ${view.start} \u00b7 all boards: ` +
      `${view.total_moves} moves, ${view.errors} error${view.errors === 1 ? "" : "s"}, ` +
      `score ${percent}%`;
  }

  function drawAnswer() {
    const last = view.last;
    answer.className = "gohr-answer";
    if (view.end) {
      answer.textContent = (ENDS[view.end] || view.end) +
        (view.over ? " The game is over." : " Next board when you are ready.");
      answer.classList.add("end");
      return;
    }
    if (!last) {
      answer.textContent = mine ? "Your move: find the hidden rule." : "";
      return;
    }
    const where = `bucket ${last.bucket + 1} (${BUCKET_NAMES[last.bucket]})`;
    const what = pieceWords(last.piece);
    answer.textContent = last.result === "accepted" ? `Accepted: the ${what} went into ${where}.` :
      last.result === "denied" ? `Denied: the ${what} may not go into ${where} (but somewhere else).` :
        `Immovable: the ${what} cannot be moved now.`;
    answer.classList.add(last.result);
  }

  function drawResults() {
    results.replaceChildren();
    results.hidden = view.results.length === 0;
    if (results.hidden) return;
    const top = element("tr");
    for (const title of ["Board", "Pieces", "Moves", "Removed", "End"]) top.append(element("th", "", title));
    const thead = element("thead");
    thead.append(top);
    const body = element("tbody");
    for (const r of view.results) {
      const row = element("tr");
      for (const value of [r.board, r.pieces, r.moves, r.removed, r.end]) row.append(element("td", "", String(value)));
      body.append(row);
    }
    results.append(thead, body);
  }

  function draw() {
    root.dataset.mine = mine ? "true" : "false";
    drawHead();
    drawBuckets();
    drawGrid();
    drawAnswer();
    drawResults();
    const canNew = mine && view.legal && view.legal.new;
    next.hidden = !(view.end && !view.over) && !(mine && !view.end);
    next.textContent = view.end ? "Next board" : "Give up this board";
    next.disabled = !canNew;
    rules.hidden = !view.rules;
    rules.textContent = view.rules ? `The hidden rule:\n${view.rules}` : "";
    help.hidden = view.over;
  }

  return {
    update(newView, table, seat) {
      const focused = document.activeElement;
      const hadFocus = root.contains(focused);
      const focusedPiece = hadFocus && focused.dataset ? focused.dataset.piece : undefined;
      const fresh = newView.total_moves !== shownMoves;
      view = newView;
      you = seat;
      mine = you !== null && you !== undefined && table.asking === you && "legal" in view;
      shownMoves = view.total_moves;
      if (fresh || !mine) chosen = null;
      draw();
      if (chosen !== null) choose(chosen);
      if (hadFocus) {  // the keyboard stays on the board: the same piece, else the first
        const again = grid.querySelector(`.gohr-piece[data-piece="${focusedPiece}"]:not(:disabled)`) ||
          grid.querySelector(".gohr-piece:not(:disabled)") || (next.hidden ? null : next);
        if (again) again.focus();
      }
    },
    refused(reason) {
      answer.textContent = `Not taken: ${reason}`;
      answer.className = "gohr-answer refused";
      if (view && "legal" in view && you !== null) { mine = true; draw(); }
    },
  };
}
