// A table's chat line: the lines the server sends over the table's socket (each shown
// as text, never as markup) and the line typed here. The server decides who may send,
// and refuses with its reason a line it does not take (too long, too soon, a guest's).

const KEPT = 200;  // lines kept on the page (the server sends the last 50 at connection)

function timeOf(at) {
  const when = new Date(at);
  return Number.isNaN(when.getTime()) ? "" :
    when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

// The chat of the page's #chat box; `send(message)` says whether the socket took it.
export function createChat(send) {
  const box = document.getElementById("chat");
  if (!box) return { receive() {} };
  const list = document.getElementById("chat-lines");
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-text");
  const refusedLine = document.getElementById("chat-refused");
  const me = box.dataset.me;
  const shown = new Set();
  let pending = null;

  function refused(reason) {
    if (!refusedLine) return;
    refusedLine.textContent = `Not sent: ${reason}`;
    refusedLine.hidden = false;
  }

  function add(line) {
    if (shown.has(line.id)) return;  // (the recent lines again, after a reconnection)
    const item = document.createElement("li");
    item.dataset.id = String(line.id);
    const when = document.createElement("time");
    when.dateTime = line.at;
    when.textContent = timeOf(line.at);
    const name = document.createElement("span");
    name.className = "chat-name";
    name.textContent = line.name;
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = line.text;
    item.append(when, " ", name, ": ", text);
    const later = [...list.children].find((other) => Number(other.dataset.id) > line.id);
    list.insertBefore(item, later ?? null);
    shown.add(line.id);
    while (list.children.length > KEPT) {
      shown.delete(Number(list.firstElementChild.dataset.id));
      list.firstElementChild.remove();
    }
    if (pending !== null && line.name === me && line.text === pending) {
      if (input.value.trim() === pending) input.value = "";
      pending = null;
    }
  }

  if (form) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      refusedLine.hidden = true;
      if (send({ type: "chat", text })) pending = text;
      else refused("the page is not connected: try again in a moment");
    });
  }

  return {
    receive(message) {
      if (message.type === "chat-refused") {
        pending = null;
        refused(message.reason);
        return;
      }
      const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
      for (const line of message.lines) add(line);
      if (atBottom) list.scrollTop = list.scrollHeight;
      box.dataset.lines = String(list.children.length);
    },
  };
}
