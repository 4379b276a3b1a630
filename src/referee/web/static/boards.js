// What every game's browser board shares (its module imports it from /static/boards.js):
// its style sheets linked once, and elements made in one call. No game is known here.

export function linkStyles(href) {
  const absolute = new URL(href, location.href).href;
  if ([...document.querySelectorAll("link[rel=stylesheet]")].some((l) => l.href === absolute)) {
    return;
  }
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = absolute;
  document.head.appendChild(link);
}

export function element(name, className, text) {
  const made = document.createElement(name);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}
