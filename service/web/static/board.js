// Clicking the board: which cell did the person mean, and which actions name it.
//
// The games' pictures label every cell with the coordinates actions use ("q,r" in a
// <text class="coord">, as Arktia's hexes are labelled). A click picks the cell shape under
// the pointer (a polygon or rect whose class says tile or square) and the label inside it,
// or failing that the nearest label.

const LABEL = /^\s*(-?\d+)\s*,\s*(-?\d+)\s*$/;
const NEAR = 60; // user units: a click farther than this from every label picks nothing

function labels(svg) {
  const found = [];
  for (const text of svg.querySelectorAll("text.coord")) {
    const match = LABEL.exec(text.textContent || "");
    if (!match) continue;
    const box = text.getBBox();
    found.push({ xy: [Number(match[1]), Number(match[2])], x: box.x + box.width / 2, y: box.y + box.height / 2 });
  }
  return found;
}

function userPoint(svg, event) {
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const matrix = svg.getScreenCTM();
  return matrix ? point.matrixTransform(matrix.inverse()) : null;
}

/** The [x, y] cell a click on `svg` names, or null. */
export function cellAt(svg, event) {
  const all = labels(svg);
  if (!all.length) return null;
  const at = userPoint(svg, event);
  if (!at) return null;
  const under = document.elementsFromPoint(event.clientX, event.clientY)
    .find((node) => svg.contains(node) && /\b(tile|square|cell)\b/.test(node.getAttribute("class") || "")
      && (node.tagName === "polygon" || node.tagName === "rect"));
  if (under) {
    const box = under.getBBox();
    const inside = all.filter((l) => l.x >= box.x && l.x <= box.x + box.width && l.y >= box.y && l.y <= box.y + box.height);
    if (inside.length) return nearest(inside, at).xy;
  }
  const best = nearest(all, at);
  return Math.hypot(best.x - at.x, best.y - at.y) <= NEAR ? best.xy : null;
}

function nearest(found, at) {
  return found.reduce((a, b) => (Math.hypot(a.x - at.x, a.y - at.y) <= Math.hypot(b.x - at.x, b.y - at.y) ? a : b));
}

/** Whether `action` names the cell `xy` anywhere (a tile, a from, a to...). */
export function names(action, xy) {
  const seen = (value) => {
    if (Array.isArray(value)) {
      if (value.length === 2 && value[0] === xy[0] && value[1] === xy[1]) return true;
      return value.some(seen);
    }
    if (value && typeof value === "object") return Object.values(value).some(seen);
    return false;
  };
  return seen(action);
}

/** Whether the picture has labelled cells a click can pick. */
export function clickable(svg) {
  return labels(svg).length > 0;
}
