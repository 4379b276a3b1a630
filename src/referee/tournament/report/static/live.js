/* referee live view: added to each page that `referee report --serve` serves. When the
 * site is built again (a game finished), the page's content is replaced by the new one
 * without a reload; a replay page keeps its position and says that newer results exist.
 * No external resources.
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
  source.onerror = function () { stamp("live: connection lost, trying again"); };
})();
