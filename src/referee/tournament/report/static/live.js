/* referee live view: added to each page that `referee report --serve` serves. When the
 * site is built again (a game finished), the page's content is replaced by the new one
 * without a reload; a replay page keeps its position and says that newer results exist.
 * The games in progress (who plays, the move count, the last move) are listed at the top
 * as the tournament plays them. Text from bots is put in as text. No external resources.
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

  function element(tag, text) {
    var node = document.createElement(tag);
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function showProgress(data) {
    var games = (data && data.games) || [];
    while (playing.firstChild) {
      playing.removeChild(playing.firstChild);
    }
    playing.hidden = games.length === 0;
    if (!games.length) {
      return;
    }
    var title = "In progress";
    if (data.total) {
      title += " (" + data.done + " of " + data.total + " games played)";
    }
    playing.appendChild(element("h2", title));
    var list = element("ul");
    var now = Date.now() / 1000;
    games.forEach(function (game) {
      var text = game.key + ": " + game.players.join(" vs ");
      if (game.moves) {
        text += ", move " + game.moves;
        if (game.last) {
          text += " (" + game.players[game.last.seat] + ": " + game.last.move + ")";
        }
      }
      text += ", for " + Math.max(0, Math.round(now - game.started)) + " s";
      var item = element("li", text);
      item.setAttribute("data-key", game.key);
      item.setAttribute("data-moves", String(game.moves));
      list.appendChild(item);
    });
    playing.appendChild(list);
  }

  function stamp(text) {
    note.textContent = text + " (" + new Date().toLocaleTimeString() + ")";
  }

  function refresh() {
    if (replay) {
      stamp("live: newer results exist; reload to see them");
      return;
    }
    fetch(location.pathname, { cache: "no-store" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (text === null) {
          return;
        }
        var fresh = new DOMParser().parseFromString(text, "text/html");
        var content = fresh.querySelector("main");
        if (!content) {
          return;
        }
        var y = window.scrollY;
        main.innerHTML = content.innerHTML;
        main.insertBefore(note, main.firstChild);
        main.insertBefore(playing, note.nextSibling);
        document.title = fresh.title;
        window.scrollTo(0, y);
        document.documentElement.setAttribute("data-live-version", String(version));
        stamp("live: updated");
      })
      .catch(function () { stamp("live: the server is not answering"); });
  }

  var version = 0;
  var source = new EventSource("/_live/events");
  source.addEventListener("hello", function () { stamp("live: connected"); });
  source.addEventListener("site", function (event) {
    version = parseInt(event.data, 10) || version + 1;
    refresh();
  });
  source.addEventListener("progress", function (event) {
    try {
      showProgress(JSON.parse(event.data));
    } catch (error) {
      showProgress(null);
    }
  });
  source.onerror = function () { stamp("live: connection lost, trying again"); };
})();
