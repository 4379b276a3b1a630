// Gomoku's board at a web table: the server's view drawn as an SVG board with the
// Gomocup coordinates (x, y from 0) on its edges, the last move and the winning line
// marked, renju's forbidden points crossed for black, and swap2's choices as buttons.
// A click sends the point; the server says whether it is legal.

import { linkStyles } from "/static/boards.js";
const SVG = "http://www.w3.org/2000/svg";
const CELL = 32;
const MARGIN = 38;

function node(name, attributes, parent) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

export function createBoard(box, api) {
  linkStyles(new URL("board.css", import.meta.url).href);
  const svg = node("svg", { class: "gomoku-board", role: "img", "aria-label": "Gomoku board" });
  const controls = document.createElement("div");
  controls.className = "board-controls";
  box.append(svg, controls);
  let view = null;
  let mine = false;
  let pending = [];

  function point(x, y) { return [MARGIN + x * CELL, MARGIN + y * CELL]; }

  function draw() {
    svg.replaceChildren();
    const w = view.width, h = view.height;
    const size = [2 * MARGIN + (w - 1) * CELL, 2 * MARGIN + (h - 1) * CELL];
    svg.setAttribute("viewBox", `0 0 ${size[0]} ${size[1]}`);
    svg.setAttribute("width", size[0]);
    svg.setAttribute("height", size[1]);
    node("rect", { x: 0, y: 0, width: size[0], height: size[1], class: "wood" }, svg);
    for (let i = 0; i < w; i++) {
      const [x0, y0] = point(i, 0), [, y1] = point(i, h - 1);
      node("line", { x1: x0, y1: y0, x2: x0, y2: y1, class: "grid" }, svg);
      node("text", { x: x0, y: 14, class: "coord" }, svg).textContent = String(i);
    }
    for (let j = 0; j < h; j++) {
      const [x0, y0] = point(0, j), [x1] = point(w - 1, j);
      node("line", { x1: x0, y1: y0, x2: x1, y2: y0, class: "grid" }, svg);
      node("text", { x: 10, y: y0 + 4, class: "coord" }, svg).textContent = String(j);
    }
    const taken = new Set(view.stones.map(([x, y]) => `${x},${y}`));
    const forbidden = new Set(((mine && view.legal && view.legal.forbidden) || [])
      .map(([x, y]) => `${x},${y}`));
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const key = `${x},${y}`;
        if (taken.has(key)) continue;
        const [cx, cy] = point(x, y);
        const spot = node("circle", { cx, cy, r: CELL / 2 - 1, class: "spot",
          "data-x": x, "data-y": y }, svg);
        if (forbidden.has(key)) {
          spot.classList.add("forbidden");
          node("path", { d: `M${cx - 6} ${cy - 6}L${cx + 6} ${cy + 6}M${cx + 6} ${cy - 6}L${cx - 6} ${cy + 6}`,
            class: "forbidden-mark" }, svg);
        }
        if (mine) spot.addEventListener("click", () => choose(x, y));
      }
    }
    for (const [index, [x, y, color]] of view.stones.entries()) {
      const [cx, cy] = point(x, y);
      node("circle", { cx, cy, r: CELL / 2 - 2, class: `stone ${color === 1 ? "black" : "white"}`,
        "data-x": x, "data-y": y, "data-n": index + 1 }, svg);
    }
    for (const [index, [x, y]] of pending.entries()) {
      const [cx, cy] = point(x, y);
      node("circle", { cx, cy, r: CELL / 2 - 2, class: "stone pending" }, svg);
      node("text", { x: cx, y: cy + 5, class: "pending-n" }, svg).textContent = String(index + 1);
    }
    if (view.last) {
      const [cx, cy] = point(view.last[0], view.last[1]);
      node("circle", { cx, cy, r: 5, class: "last" }, svg);
    }
    if (view.win.length) {
      const [ax, ay] = point(...view.win[0]), [bx, by] = point(...view.win[view.win.length - 1]);
      node("line", { x1: ax, y1: ay, x2: bx, y2: by, class: "win-line" }, svg);
    }
    drawControls();
  }

  function needsChoice() {
    return view.phase !== "play" && mine && view.legal;
  }

  function choose(x, y) {
    if (!needsChoice()) { api.send({ point: [x, y] }); return; }
    const max = Math.max(...view.legal.stones);
    if (pending.some(([px, py]) => px === x && py === y)) {
      pending = pending.filter(([px, py]) => px !== x || py !== y);
    } else if (pending.length < max) {
      pending.push([x, y]);
    }
    draw();
  }

  function drawControls() {
    controls.replaceChildren();
    if (!needsChoice()) return;
    const legal = view.legal;
    const place = document.createElement("button");
    place.type = "button";
    place.className = "place";
    place.textContent = `Place ${pending.length} stone${pending.length === 1 ? "" : "s"}`;
    place.disabled = !legal.stones.includes(pending.length);
    place.addEventListener("click", () => { api.send({ stones: pending }); pending = []; });
    controls.append(place);
    if (legal.swap) {
      const swap = document.createElement("button");
      swap.type = "button";
      swap.className = "swap";
      swap.textContent = "Swap colours";
      swap.addEventListener("click", () => { pending = []; api.send({ swap: true }); });
      controls.append(swap);
    }
    const hint = document.createElement("span");
    hint.className = "hint";
    hint.textContent = `swap2: click ${legal.stones.join(" or ")} point(s), then place them`;
    controls.append(hint);
  }

  return {
    update(next, table, you) {
      view = next;
      mine = you !== null && table.status === "playing" && table.asking === you;
      if (!mine) pending = [];
      svg.dataset.toPlay = String(view.to_play);
      svg.dataset.mine = String(mine);
      draw();
    },
    refused() { pending = []; if (view) draw(); },
  };
}
