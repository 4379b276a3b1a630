/* referee tile-table replay: draws the frames of a tile game (Riichi, ICGA Mahjong) as SVG.
 *
 * A replay section (.replay) holding <script type="application/json" class="replay-frames">
 * ({"renderer": "tiles", "info": {"names": [...], "info": [labels]}, "frames": [...]},
 * the schema of referee.core.replay) and an <svg class="tiles"> gets frame k drawn in
 * that SVG whenever replay.js shows step k (its "replay:step" event and the section's
 * data-current attribute). Every tile is a <g class="tile" data-tile="<code>"> drawn
 * with shapes and text of its own (no fonts or images are loaded); pond tiles carry
 * data-flags (* riichi, ^ called, . tsumogiri, ! latest discard). Names and other texts go in as text nodes, never as markup. A section put in
 * the page later (a live board's next moves) is set up on the page's "replay:new" event.
 * No external resources; works from file:// URLs.
 */
(function () {
  "use strict";

  var NS = "http://www.w3.org/2000/svg";
  var CODE = /([0-9][mps]|f[1-8]|[ESWNPFC])([*^.!]*)/g;
  var WIDTH = 480;
  var TW = 30;   /* a tile's own box: 30 x 40, scaled where it is drawn */
  var TH = 40;
  var HAND = 0.8;
  var POND = 0.6;
  var SMALL = 0.55;
  var INK = "#1d232a";
  var SUIT = { m: "#b3261e", p: "#1f4e9c", s: "#1d7a35" };
  var SUIT_NAMES = { m: "man", p: "pin", s: "sou" };
  var WINDS = { E: "East", S: "South", W: "West", N: "North" };
  var DRAGONS = { P: ["white", "#1f4e9c"], F: ["green", "#1d7a35"], C: ["red", "#b3261e"] };
  var FLOWERS = ["spring", "summer", "autumn", "winter", "plum", "orchid", "chrys.", "bamboo"];
  var FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif";

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function label(parent, x, y, str, attrs) {
    var node = el("text", attrs || {}, parent);
    node.setAttribute("x", x);
    node.setAttribute("y", y);
    node.textContent = String(str);
    return node;
  }

  function tilesOf(row) {
    var out = [];
    var match;
    CODE.lastIndex = 0;
    while ((match = CODE.exec(row || "")) !== null) { out.push([match[1], match[2]]); }
    return out;
  }

  function tileName(code) {
    if (code.charAt(0) === "f") { return "flower " + code.charAt(1) + " (" + FLOWERS[+code.charAt(1) - 1] + ")"; }
    if (WINDS[code]) { return WINDS[code] + " wind"; }
    if (DRAGONS[code]) { return DRAGONS[code][0] + " dragon"; }
    var rank = code.charAt(0);
    return (rank === "0" ? "red 5" : rank) + " " + SUIT_NAMES[code.charAt(1)];
  }

  /* The face of a tile in its own 30 x 40 box. */
  function face(g, code) {
    var first = code.charAt(0);
    var text = { "text-anchor": "middle", "font-family": FONT };
    if (first === "f") {
      var n = +code.charAt(1);
      var color = n <= 4 ? "#a4508b" : "#c26a00";
      for (var i = 0; i < 5; i++) {
        var a = (i / 5) * 2 * Math.PI;
        el("circle", { cx: 15 + 5 * Math.sin(a), cy: 15 - 5 * Math.cos(a), r: 3.6, fill: color,
                       opacity: "0.8" }, g);
      }
      el("circle", { cx: 15, cy: 15, r: 2.6, fill: "#f4d03f" }, g);
      label(g, 15, 36, FLOWERS[n - 1], Object.assign({ "font-size": 6.5, fill: color }, text));
      label(g, 25, 10, n, Object.assign({ "font-size": 8, fill: color, "font-weight": 700 }, text));
      return;
    }
    if (WINDS[code]) {
      label(g, 15, 24, code, Object.assign({ "font-size": 20, "font-weight": 700, fill: INK }, text));
      label(g, 15, 36, WINDS[code], Object.assign({ "font-size": 7, fill: "#5d6772" }, text));
      return;
    }
    if (DRAGONS[code]) {
      var d = DRAGONS[code];
      if (code === "P") {
        el("rect", { x: 7, y: 6, width: 16, height: 20, rx: 2, fill: "none", stroke: d[1],
                     "stroke-width": 2 }, g);
      } else {
        el("path", { d: "M15 5 L24 16 L15 27 L6 16 Z", fill: d[1] }, g);
        label(g, 15, 20, code === "C" ? "R" : "G",
              Object.assign({ "font-size": 11, "font-weight": 700, fill: "#fff" }, text));
      }
      label(g, 15, 36, d[0], Object.assign({ "font-size": 7, fill: d[1] }, text));
      return;
    }
    var suit = code.charAt(1);
    var red = first === "0";
    var rank = red ? "5" : first;
    var ink = red ? "#d0021b" : (suit === "m" ? INK : SUIT[suit]);
    label(g, 15, 20, rank, Object.assign({ "font-size": 19, "font-weight": 700, fill: ink }, text));
    var mark = red ? "#d0021b" : SUIT[suit];
    if (suit === "p") {
      el("circle", { cx: 15, cy: 30, r: 5, fill: "none", stroke: mark, "stroke-width": 2 }, g);
      el("circle", { cx: 15, cy: 30, r: 1.6, fill: mark }, g);
    } else if (suit === "s") {
      el("rect", { x: 13, y: 24, width: 4, height: 12, rx: 1.5, fill: mark }, g);
      el("line", { x1: 12.5, y1: 30, x2: 17.5, y2: 30, stroke: "#fff", "stroke-width": 1 }, g);
    } else {
      label(g, 15, 35, "man", Object.assign({ "font-size": 8, "font-weight": 700, fill: mark }, text));
    }
  }

  /* A tile at (x, y) scaled by s, turned sideways if asked; returns its drawn width. */
  function tile(parent, code, x, y, s, opts) {
    opts = opts || {};
    var turned = !!opts.turned;
    var transform = turned
      ? "translate(" + (x + TH * s) + "," + (y + (TH - TW) * s) + ") rotate(90) scale(" + s + ")"
      : "translate(" + x + "," + y + ") scale(" + s + ")";
    var g = el("g", { "class": "tile", "data-tile": code, transform: transform }, parent);
    if (opts.flags) { g.setAttribute("data-flags", opts.flags); }
    el("title", {}, g).textContent = tileName(code);
    var red = code.charAt(0) === "0";
    el("rect", { x: 0.5, y: 0.5, width: TW - 1, height: TH - 1, rx: 4,
                 fill: opts.fill || (red ? "#fff0ef" : "#fbf8ef"),
                 stroke: opts.stroke || "#8a8f96", "stroke-width": opts.stroke ? 2 : 1 }, g);
    face(g, code);
    if (opts.dim) { g.setAttribute("opacity", "0.4"); }
    return (turned ? TH : TW) * s;
  }

  function row(parent, codes, x, y, s, gap) {
    codes.forEach(function (entry) { x += tile(parent, entry[0], x, y, s) + (gap || 0); });
    return x;
  }

  /* Width of a meld drawn at scale s (its claimed tile turned). */
  function meldWidth(meld, s) {
    var n = tilesOf(meld[1]).length;
    return n * TW * s + (meld[2] >= 0 ? (TH - TW) * s : 0);
  }

  function pondRows(pond, s) {
    var perRow = Math.floor((WIDTH - 20) / (TW * s + 1)) - 1;
    return Math.max(2, Math.ceil(tilesOf(pond).length / perRow));
  }

  function handWidth(seat) {
    return tilesOf(seat[2]).length * TW * HAND + (seat[3] ? 8 + TW * HAND : 0);
  }

  function meldsWidth(seat) {
    return seat[4].reduce(function (w, m) { return w + meldWidth(m, HAND) + 6; }, 0);
  }

  function seatHeight(seat) {
    var melds = seat[4].length && handWidth(seat) + meldsWidth(seat) > WIDTH - 30;
    return 30 + (TH * HAND + 4) * (melds ? 2 : 1) + pondRows(seat[5], POND) * (TH * POND + 2) + 10;
  }

  function resultHeight(frame) {
    return frame.x ? 30 + 16 * frame.x.l.length : 0;
  }

  function height(frame) {
    return 40 + frame.s.reduce(function (h, seat) { return h + seatHeight(seat); }, 0)
      + resultHeight(frame) + 6;
  }

  function signed(n) { return n > 0 ? "+" + n : String(n); }

  function drawSeat(svg, data, frame, index, y) {
    var seat = frame.s[index];
    var names = data.info.names || [];
    var g = el("g", { "class": "tt-seat", "data-seat": index }, svg);
    var h = seatHeight(seat);
    el("rect", { x: 2, y: y, width: WIDTH - 4, height: h - 4, rx: 6,
                 fill: frame.a === index ? "#eaf2fb" : "#f6f7f5",
                 stroke: frame.a === index ? "#1f5fa8" : "#d9dee3" }, g);
    var text = { "font-family": FONT, "font-size": 13, fill: INK };
    var dealer = seat[0] === "E";
    el("circle", { cx: 16, cy: y + 16, r: 9, fill: dealer ? "#b3261e" : "#17324d" }, g);
    label(g, 16, y + 20.5, seat[0], Object.assign({}, text, { "text-anchor": "middle", fill: "#fff",
          "font-weight": 700, "font-size": 12, "class": "tt-wind" }));
    var name = String(names[index] === undefined ? "seat " + (index + 1) : names[index]);
    label(g, 31, y + 21, name.length > 19 ? name.slice(0, 18) + "\u2026" : name,
          Object.assign({}, text, { "font-weight": 700, "class": "tt-name" }));
    var x = 190;
    label(g, x, y + 21, seat[1], Object.assign({}, text, { "class": "tt-points",
          "font-variant-numeric": "tabular-nums" }));
    x += 56;
    if (seat[6]) {
      var stick = el("g", { "class": "tt-riichi" }, g);
      el("rect", { x: x, y: y + 12, width: 44, height: 7, rx: 3, fill: "#fff", stroke: "#555" }, stick);
      el("circle", { cx: x + 22, cy: y + 15.5, r: 2.3, fill: "#b3261e" }, stick);
      x += 52;
    }
    if (frame.x && frame.x.d && frame.x.d[index]) {
      var delta = frame.x.d[index];
      label(g, x, y + 21, signed(delta), Object.assign({}, text, { "class": "tt-delta",
            "font-weight": 700, fill: delta > 0 ? "#1d7a35" : "#b3261e" }));
    }
    var flowers = tilesOf(seat[7]);
    if (flowers.length) {
      var fg = el("g", { "class": "tt-flowers" }, g);
      row(fg, flowers, WIDTH - 10 - flowers.length * (TW * POND + 1), y + 3, POND, 1);
    }
    var top = y + 32;
    var hand = el("g", { "class": "tt-hand" }, g);
    var end = row(hand, tilesOf(seat[2]), 10, top, HAND);
    if (seat[3]) {
      var drawn = el("g", { "class": "tt-drawn" }, g);
      var won = !!frame.x;
      tile(drawn, seat[3], end + 8, top, HAND, won ? { stroke: "#b3261e" } : {});
    }
    var melds = el("g", { "class": "tt-melds" }, g);
    var own = seat[4].length && handWidth(seat) + meldsWidth(seat) > WIDTH - 30;
    var my = own ? top + TH * HAND + 4 : top;
    var mx = WIDTH - 4 - meldsWidth(seat);
    seat[4].forEach(function (meld) {
      var mg = el("g", { "class": "tt-meld", "data-kind": meld[0] }, melds);
      var at = mx;
      tilesOf(meld[1]).forEach(function (entry, i) {
        var turned = i === meld[2];
        at += tile(mg, entry[0], at, turned ? my + (TH - TW) * HAND : my, HAND,
                   { turned: turned, fill: /concealed|ankan/.test(meld[0]) ? "#e9eef3" : null });
      });
      mx += meldWidth(meld, HAND) + 6;
    });
    var pond = el("g", { "class": "tt-pond" }, g);
    var py = (own ? my : top) + TH * HAND + 6;
    var px = 10;
    tilesOf(seat[5]).forEach(function (entry) {
      var flags = entry[1];
      var turned = flags.indexOf("*") >= 0;
      var w = (turned ? TH : TW) * POND;
      if (px + w > WIDTH - 10) { px = 10; py += TH * POND + 2; }
      tile(pond, entry[0], px, turned ? py + (TH - TW) * POND : py, POND,
           { turned: turned, flags: flags || null, dim: flags.indexOf("^") >= 0,
             fill: flags.indexOf(".") >= 0 ? "#e6e6e1" : null,
             stroke: flags.indexOf("!") >= 0 ? "#e07b00" : null });
      px += w + 1;
    });
    return h;
  }

  function draw(svg, data, k) {
    var frames = data.frames;
    var frame = frames[Math.max(0, Math.min(frames.length - 1, k))];
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    svg.setAttribute("data-frame", String(k));
    el("rect", { x: 0, y: 0, width: WIDTH, height: data.height, fill: "#fff" }, svg);
    var text = { "font-family": FONT, "font-size": 13, fill: INK };
    var table = el("g", { "class": "tt-table" }, svg);
    var labels = data.info.info || [];
    var parts = (frame.i || []).map(function (value, i) {
      return (labels[i] ? labels[i] + " " : "") + value;
    });
    label(table, 8, 22, parts.join(" \u00b7 "), Object.assign({}, text, { "class": "tt-info" }));
    var gx = WIDTH - 8;
    (frame.g || []).slice().reverse().forEach(function (group) {
      var codes = tilesOf(group[1]);
      gx -= codes.length * TW * SMALL;
      var gg = el("g", { "class": "tt-group", "data-label": group[0] }, table);
      row(gg, codes, gx, 7, SMALL);
      gx -= 4;
      label(gg, gx, 22, group[0], Object.assign({}, text, { "text-anchor": "end", "font-size": 11,
            fill: "#5d6772" }));
      gx -= 8 + 6.5 * String(group[0]).length;
    });
    var y = 34;
    for (var s = 0; s < frame.s.length; s++) { y += drawSeat(svg, data, frame, s, y); }
    if (frame.x) {
      var res = el("g", { "class": "tt-result" }, svg);
      el("rect", { x: 2, y: y, width: WIDTH - 4, height: resultHeight(frame) - 4, rx: 6,
                   fill: "#fff8e6", stroke: "#d9b44a" }, res);
      label(res, 12, y + 19, frame.x.h, Object.assign({}, text, { "font-weight": 700,
            "class": "tt-headline" }));
      frame.x.l.forEach(function (line, i) {
        label(res, 20, y + 37 + 16 * i, line, Object.assign({}, text, { "font-size": 12,
              "class": "tt-line" }));
      });
    }
  }

  function setup(section) {
    var source = section.querySelector("script.replay-frames");
    var svg = section.querySelector("svg.tiles");
    if (!source || !svg || section.hasAttribute("data-tiles")) { return; }
    section.setAttribute("data-tiles", "");  /* (this script may be on a page twice) */
    var data = JSON.parse(source.textContent);
    if (data.renderer !== "tiles" || !data.frames || !data.frames.length) { return; }
    data.info = data.info || {};
    data.height = Math.ceil(Math.max.apply(null, data.frames.map(height)));
    svg.setAttribute("viewBox", "0 0 " + WIDTH + " " + data.height);
    svg.setAttribute("width", WIDTH);
    svg.setAttribute("height", data.height);
    if (svg.parentNode && svg.parentNode.hasAttribute("hidden")) {
      svg.parentNode.removeAttribute("hidden");  /* hidden for pages read without JS */
    }
    function current() {
      var k = parseInt(section.getAttribute("data-current"), 10);
      return isNaN(k) ? data.frames.length - 1 : k;
    }
    section.addEventListener("replay:step", function (event) { draw(svg, data, event.detail); });
    draw(svg, data, current());
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".replay"), setup);
    document.addEventListener("replay:new", function (event) {  /* a live board's next */
      if (event.detail && event.detail.querySelector) { setup(event.detail); }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
}());
