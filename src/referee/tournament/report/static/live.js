/* referee live view: added to each page that `referee report --serve` serves. When the
 * site is built again (a game finished), the page's content is replaced by the new one
 * without a reload; a replay page keeps its position and says that newer results exist.
 * The games in progress are listed at the top as the tournament plays them: players, move
 * number and the last move as the server writes them (the game's notation), each linked
 * to its live board, with clocks that tick between events. On a live board (a page with
 * [data-live-key]) each new move brings the server's new board, put in place of the old
 * one: it follows the game while it shows the last move, else it stays where it is.
 * Everything drawn comes from the server; text from bots is put in as text. No external
 * resources.
 */
(function () {
  "use strict";
  if (!window.EventSource || !window.fetch || !window.DOMParser) {
    return;
  }
  var replay = document.querySelector("[data-steps]");
  var note = document.createElement("p");
  note.className = "live-note";
  note.setAttribute("role", "status");
  note.textContent = "live: waiting for results";
  var main = document.querySelector("main") || document.body;
  main.insertBefore(note, main.firstChild);
  var playing = document.createElement("section");
  playing.className = "live-games";
  playing.hidden = true;
  main.insertBefore(playing, note.nextSibling);
  var offset = 0;  /* the server's clock minus this one's, in seconds */
  var board = null;  /* this page's live board: its game's key and move count */
  var mine = document.querySelector("[data-live-key]");
  if (mine) {
    board = { key: mine.getAttribute("data-live-key"),
              moves: parseInt(mine.getAttribute("data-moves"), 10) || 0, busy: false };
  }

  function element(tag, text) {
    var node = document.createElement(tag);
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function duration(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    if (s < 60) { return s + " s"; }
    var m = Math.floor(s / 60);
    if (m < 60) { return m + " min " + (s % 60) + " s"; }
    return Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  function tick() {
    var now = Date.now() / 1000 + offset;
    Array.prototype.forEach.call(document.querySelectorAll(".live-clock[data-since]"),
      function (clock) {
        var since = parseFloat(clock.getAttribute("data-since"));
        if (!isNaN(since)) { clock.textContent = duration(now - since); }
      });
  }

  function clock(since) {
    var node = element("span");
    node.className = "live-clock";
    node.setAttribute("data-since", String(since));
    return node;
  }

  function showProgress(data) {
    var games = (data && data.games) || [];
    while (playing.firstChild) {
      playing.removeChild(playing.firstChild);
    }
    playing.hidden = games.length === 0;
    if (games.length) {
      var title = "In progress";
      if (data.total) {
        title += " (" + data.done + " of " + data.total + " games played)";
      }
      playing.appendChild(element("h2", title));
      var list = element("ul");
      games.forEach(function (game) {
        var item = element("li");
        item.setAttribute("data-key", game.key);
        item.setAttribute("data-moves", String(game.moves));
        var link = element("a", game.players.join(" vs "));
        link.href = game.board;
        link.className = "live-board";
        item.appendChild(link);
        var text = " (" + game.key + ")";
        if (game.moves) {
          text += ", move " + game.moves;
          if (game.last) {
            text += ": " + game.last.text + " by " + game.last.who;
          }
        }
        item.appendChild(document.createTextNode(text));
        if (game.started) {
          item.appendChild(document.createTextNode(", "));
          item.appendChild(clock(game.started));
          item.appendChild(document.createTextNode(" since the start"));
        }
        if (game.moves && game.last_at) {
          item.appendChild(document.createTextNode(", "));
          item.appendChild(clock(game.last_at));
          item.appendChild(document.createTextNode(" since the last move"));
        }
        list.appendChild(item);
      });
      playing.appendChild(list);
    }
    tick();
    if (board) {
      var now = games.filter(function (game) { return game.key === board.key; })[0];
      if (!now || now.moves !== board.moves) { follow(); }
    }
  }

  function stamp(text) {
    note.textContent = text + " (" + new Date().toLocaleTimeString() + ")";
  }

  function fetched(then) {
    fetch(location.pathname, { cache: "no-store" })
      .then(function (response) { return response.text(); })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, "text/html");
        var content = fresh.querySelector("main");
        if (content) { then(fresh, content); }
      })
      .catch(function () { stamp("live: the server is not answering"); });
  }

  function replaceMain(fresh, content) {
    var y = window.scrollY;
    main.innerHTML = content.innerHTML;
    main.insertBefore(note, main.firstChild);
    main.insertBefore(playing, note.nextSibling);
    document.title = fresh.title;
    window.scrollTo(0, y);
  }

  /* The live board: the server's board for the moves played now, in place of the old
   * one (the same step shown, unless the last one was: then the new last one). */
  function follow() {
    if (!board || board.busy) { return; }
    board.busy = true;
    fetched(function (fresh, content) {
      board.busy = false;
      var facts = content.querySelector("[data-live-key]");
      if (!facts) {  /* the game is over: the page says where its result is */
        replaceMain(fresh, content);
        board.moves = -1;
        stamp("live: the game is over");
        return;
      }
      var moves = parseInt(facts.getAttribute("data-moves"), 10) || 0;
      var shown = document.querySelector("[data-live-key]");
      if (shown) { shown.replaceWith(document.adoptNode(facts)); }
      var area = main.querySelector(".live-board-area");
      var next = content.querySelector(".live-board-area");
      if (area && next) {
        var old = area.querySelector(".replay");
        var fresh = next.querySelector(".replay");
        if (old && fresh) {
          var step = parseInt(old.getAttribute("data-current"), 10);
          var total = parseInt(old.getAttribute("data-steps"), 10);
          if (!isNaN(step) && !isNaN(total) && step < total) {
            fresh.setAttribute("data-start", String(step));
          }
        }
        area.replaceWith(document.adoptNode(next));
        if (fresh) {
          document.dispatchEvent(new CustomEvent("replay:new", { detail: fresh }));
        }
      }
      board.moves = moves;
      tick();
      stamp("live: move " + moves);
    });
  }

  function refresh() {
    if (board) {
      if (board.moves < 0) { fetched(replaceMain); }  /* (the finished game's link) */
      return;
    }
    if (replay) {
      stamp("live: newer results exist; reload to see them");
      return;
    }
    fetched(function (fresh, content) {
      replaceMain(fresh, content);
      document.documentElement.setAttribute("data-live-version", String(version));
      stamp("live: updated");
    });
  }

  var version = 0;
  var source = new EventSource("/_live/events");
  source.addEventListener("hello", function () { stamp("live: connected"); });
  source.addEventListener("site", function (event) {
    version = parseInt(event.data, 10) || version + 1;
    refresh();
  });
  source.addEventListener("clock", function (event) {
    var now = parseFloat(event.data);
    if (!isNaN(now)) { offset = now - Date.now() / 1000; }
  });
  source.addEventListener("progress", function (event) {
    try {
      showProgress(JSON.parse(event.data));
    } catch (error) {
      showProgress(null);
    }
  });
  source.onerror = function () { stamp("live: connection lost, trying again"); };
  window.setInterval(tick, 1000);
  tick();
})();
