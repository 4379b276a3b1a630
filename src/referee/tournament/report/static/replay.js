/* referee game replay: steps through the board of a game page.
 *
 * The page holds the whole game in its SVG: a background group, one group per step
 * (data-step="k": shown from step k on) and one per step mark (data-mark="k": shown only
 * at step k); the move list has one item per step (in order, the link of item k has
 * data-step="k"), and may start with one for the start (data-step="0": an opening).
 * Going back to the start scrolls the list to its top. A section put in the page later
 * (a live board's next moves) is set up when the page sends "replay:new" (detail: the
 * section), at its data-start step if it has one. Without this script the page shows
 * the final position. An address ending in #m12 opens at step 12. No external resources;
 * works from file:// URLs.
 * Each step shown is told to other viewers of the section (tiles.js): the section's
 * data-current attribute holds it and a "replay:step" event (detail: the step) is sent.
 */
(function () {
  "use strict";

  function stepOf(element) {
    return parseInt(element.getAttribute("data-step"), 10) || 0;
  }

  function markOf(element) {
    return parseInt(element.getAttribute("data-mark"), 10) || 0;
  }

  function setShown(element, shown) {
    if (shown) {
      element.removeAttribute("display");
    } else {
      element.setAttribute("display", "none");
    }
  }

  function setup(root) {
    var total = parseInt(root.getAttribute("data-steps"), 10) || 0;
    var steps = Array.prototype.slice.call(root.querySelectorAll("svg [data-step]"));
    var marks = Array.prototype.slice.call(root.querySelectorAll("svg [data-mark]"));
    var items = Array.prototype.slice.call(root.querySelectorAll(".replay-moves li"));
    var list = root.querySelector(".replay-moves");
    var pos = root.querySelector(".replay-pos");
    var controls = root.querySelector(".replay-controls");
    var buttons = {};
    Array.prototype.forEach.call(root.querySelectorAll("[data-go]"), function (button) {
      buttons[button.getAttribute("data-go")] = button;
    });
    var current = total;

    function keepVisible(item) {
      if (!list || !item || list.scrollHeight <= list.clientHeight) {
        return;
      }
      var top = item.offsetTop;
      var bottom = top + item.offsetHeight;
      if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    }

    function show(k) {
      k = Math.max(0, Math.min(total, k));
      current = k;
      steps.forEach(function (g) { setShown(g, stepOf(g) <= k); });
      marks.forEach(function (g) { setShown(g, markOf(g) === k); });
      var shown = false;
      items.forEach(function (li) {
        var link = li.querySelector("a[data-step]");
        var on = link !== null && stepOf(link) === k;
        li.classList.toggle("current", on);
        if (on) { keepVisible(li); shown = true; }
      });
      if (!shown && k === 0 && list) { list.scrollTop = 0; }  /* the start: the list's top */
      if (pos) { pos.textContent = String(k); }
      if (buttons.first) { buttons.first.disabled = k === 0; }
      if (buttons.prev) { buttons.prev.disabled = k === 0; }
      if (buttons.next) { buttons.next.disabled = k === total; }
      if (buttons.last) { buttons.last.disabled = k === total; }
      root.setAttribute("data-current", String(k));
      root.dispatchEvent(new CustomEvent("replay:step", { detail: k }));
    }

    var moves = { first: function () { return 0; }, prev: function () { return current - 1; },
                  next: function () { return current + 1; }, last: function () { return total; } };
    Object.keys(buttons).forEach(function (name) {
      buttons[name].addEventListener("click", function () { show(moves[name]()); });
    });
    if (list) {
      list.addEventListener("click", function (event) {
        var target = event.target.closest ? event.target.closest("a[data-step]") : null;
        if (target) {
          event.preventDefault();
          show(stepOf(target));
        }
      });
    }
    if (controls) { controls.hidden = false; }

    var asked = root.getAttribute("data-start");  /* (a live board put in place) */
    var start = /^#m(\d+)$/.exec(window.location.hash || "");
    show(asked !== null ? parseInt(asked, 10) || 0 : start ? parseInt(start[1], 10) : total);
    return function (key) {
      var targets = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
      var name = targets[key];
      if (!name) { return false; }
      show(moves[name]());
      return true;
    };
  }

  function init() {
    var handlers = Array.prototype.map.call(document.querySelectorAll(".replay"), setup);
    /* a section put in place of another (a live board's next moves): set up, its keys */
    document.addEventListener("replay:new", function (event) {
      if (event.detail && event.detail.classList && event.detail.classList.contains("replay")) {
        handlers = [setup(event.detail)];
      }
    });
    document.addEventListener("keydown", function (event) {
      if (!handlers.length) { return; }
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
      var target = event.target;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
        return;
      }
      if (handlers[0](event.key)) { event.preventDefault(); }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
}());
