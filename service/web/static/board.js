// The board a person taps, and the board's size on a small screen.
//
// Why: every game's picture marks the places a person may tap, so one page plays every game
// without knowing any of them. The rule (the board-tap protocol):
// - an element of the picture carrying `data-pick` covers a PLACE; the attribute's value is
//   JSON: an array (a coordinate pair, [3,4]) or an object ({"square":[3,3]}, {"ship":7}).
// - an action NAMES an array place when an equal array appears anywhere in it, at any depth
//   ({"type":"clear","cell":[3,4]}, a path [[3,3],[3,4]]).
// - an action NAMES an object place when the action, or some object nested in it, has every
//   key of the place with an equal value, or a list value holding it ({"card":"c01"} is named
//   by {"type":"give","card":"c01","to":1}).
// - a tap collects a SPOT: every marked element under the point (and their marked
//   ancestors), topmost first, once per JSON text. An action names a spot when it names
//   any place of the spot.
// Highlights are drawn in an overlay layer inside the picture that never takes a tap.

const SVG_NS = "http://www.w3.org/2000/svg";
const READABLE_PX = 9; // the smallest text a person can read on a phone, as rendered
const ZOOM_KEY = "floe:board-zoom";
const ZOOM_STEP = 1.25;

// ----- places and actions -----

function same(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => same(v, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && same(a[k], b[k]));
  }
  return false;
}

/** Every value in `value`, itself included, depth first. */
function* values(value) {
  yield value;
  if (Array.isArray(value)) for (const item of value) yield* values(item);
  else if (value && typeof value === "object") for (const item of Object.values(value)) yield* values(item);
}

function holds(object, place) {
  return Object.entries(place).every(([key, wanted]) => key in object
    && (same(object[key], wanted) || (Array.isArray(object[key]) && object[key].some((v) => same(v, wanted)))));
}

/** Whether `action` names `place` (an array or an object, as the rule above says). */
export function namesPlace(action, place) {
  if (Array.isArray(place)) {
    for (const value of values(action)) if (Array.isArray(value) && same(value, place)) return true;
    return false;
  }
  if (!place || typeof place !== "object") return false;
  for (const value of values(action)) {
    if (value && typeof value === "object" && !Array.isArray(value) && holds(value, place)) return true;
  }
  return false;
}

/** Whether `action` names any place of `spot` (a list of {text, place}). */
export function namesSpot(action, spot) {
  return spot.some(({ place }) => namesPlace(action, place));
}

// ----- the picture's marked elements -----

function placeOf(element) {
  const text = element.getAttribute("data-pick");
  try {
    return { text, place: JSON.parse(text) };
  } catch (_) {
    return null; // a mark that is not JSON names nothing
  }
}

/** Whether the picture marks any place to tap. */
export function pickable(svg) {
  return Boolean(svg && svg.querySelector("[data-pick]"));
}

/** Every marked element with its place: [{element, text, place}]. */
export function marks(svg) {
  const found = [];
  for (const element of svg.querySelectorAll("[data-pick]")) {
    const parsed = placeOf(element);
    if (parsed) found.push({ element, ...parsed });
  }
  return found;
}

/** The spot under a tap: the places of every marked element there, topmost first, once each. */
export function spotAt(svg, event) {
  const spot = [];
  const seen = new Set();
  for (const hit of document.elementsFromPoint(event.clientX, event.clientY)) {
    if (!svg.contains(hit)) continue;
    for (let node = hit.closest("[data-pick]"); node && svg.contains(node); node = node.parentElement && node.parentElement.closest("[data-pick]")) {
      const parsed = placeOf(node);
      if (!parsed || seen.has(parsed.text)) continue;
      seen.add(parsed.text);
      spot.push(parsed);
    }
  }
  return spot;
}

/** A place in words: {"ship":7} -> "Ship 7", {"square":[3,3]} -> "Square 3,3", [3,4] -> "Place 3,4". */
export function placeWords(place) {
  const value = (v) => (Array.isArray(v) ? v.map(value).join(",") : v && typeof v === "object" ? placeWords(v) : String(v));
  if (Array.isArray(place)) return `Place ${value(place)}`;
  const parts = Object.entries(place || {}).map(([k, v]) => `${k.replaceAll("_", " ")} ${value(v)}`);
  const words = parts.join(", ") || "place";
  return words[0].toUpperCase() + words.slice(1);
}

// ----- highlights: an overlay of outlines, one class per kind -----

/** The box of `element` in the root's user units (its own box, through its transforms). */
function rootBox(svg, element) {
  const box = element.getBBox();
  const toRoot = svg.getScreenCTM();
  const own = element.getScreenCTM();
  if (!toRoot || !own) return box;
  const matrix = toRoot.inverse().multiply(own);
  const corners = [[box.x, box.y], [box.x + box.width, box.y], [box.x, box.y + box.height], [box.x + box.width, box.y + box.height]]
    .map(([x, y]) => new DOMPoint(x, y).matrixTransform(matrix));
  const xs = corners.map((p) => p.x);
  const ys = corners.map((p) => p.y);
  return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
}

const SHAPES = new Set(["polygon", "rect", "circle", "ellipse"]);

/**
 * The outline of a marked element as an overlay shape in the root's user units: its own
 * polygon or circle where it has one (a hex is outlined as a hex, so neighbours' outlines do
 * not cross), else its box.
 */
function outline(svg, element) {
  const shape = SHAPES.has(element.tagName) ? element : element.querySelector("polygon, circle, ellipse, rect");
  const toRoot = svg.getScreenCTM();
  const own = shape && shape.getScreenCTM();
  if (shape && toRoot && own && (shape.tagName === "polygon" || shape.tagName === "circle")) {
    const matrix = toRoot.inverse().multiply(own);
    if (shape.tagName === "polygon") {
      const points = [...shape.points].map((p) => new DOMPoint(p.x, p.y).matrixTransform(matrix));
      return ["polygon", { points: points.map((p) => `${p.x},${p.y}`).join(" ") }];
    }
    const centre = new DOMPoint(shape.cx.baseVal.value, shape.cy.baseVal.value).matrixTransform(matrix);
    const radius = shape.r.baseVal.value * Math.hypot(matrix.a, matrix.b);
    return ["circle", { cx: centre.x, cy: centre.y, r: radius + 1 }];
  }
  const box = rootBox(svg, element);
  return ["rect", { x: box.x - 1, y: box.y - 1, width: box.width + 2, height: box.height + 2, rx: 3 }];
}

/**
 * Outline elements of the picture: `kinds` maps a class ("picked", "target", "hint") to
 * elements. Each outline is a dark line under a bright one, so it shows on any colour.
 */
export function highlight(svg, kinds) {
  let layer = svg.querySelector(":scope > g.pick-overlay");
  if (!layer) {
    layer = document.createElementNS(SVG_NS, "g");
    layer.setAttribute("class", "pick-overlay");
    layer.setAttribute("pointer-events", "none");
    svg.append(layer);
  }
  const outlines = [];
  for (const [kind, elements] of Object.entries(kinds)) {
    for (const element of elements) {
      const [tag, attributes] = outline(svg, element);
      for (const part of ["under", "over"]) {
        const line = document.createElementNS(SVG_NS, tag);
        for (const [name, value] of Object.entries(attributes)) line.setAttribute(name, String(value));
        line.setAttribute("class", `${kind} ${part}`);
        line.dataset.highlight = kind;
        outlines.push(line);
      }
    }
  }
  layer.replaceChildren(...outlines);
}

// ----- readable text: widen the picture until its smallest text reaches READABLE_PX -----

/** The smallest text of the picture, in CSS pixels as rendered now (Infinity: no text). */
export function smallestText(svg) {
  let smallest = Infinity;
  for (const text of svg.querySelectorAll("text")) {
    if (!text.textContent.trim()) continue;
    const matrix = text.getScreenCTM();
    const size = parseFloat(getComputedStyle(text).fontSize);
    if (!matrix || !size) continue;
    smallest = Math.min(smallest, size * Math.hypot(matrix.a, matrix.b));
  }
  return smallest;
}

function storedZoom() {
  try {
    const kept = localStorage.getItem(ZOOM_KEY);
    if (kept === "fit" || kept === "readable") return kept;
    const factor = Number(kept);
    return Number.isFinite(factor) && factor > 0 ? factor : "readable";
  } catch (_) {
    return "readable";
  }
}

function keepZoom(zoom) {
  try {
    localStorage.setItem(ZOOM_KEY, String(zoom));
  } catch (_) { /* private mode: the choice lasts while the page is open */ }
}

/**
 * The board's zoom: "fit" (the box's width), "readable" (wide enough for READABLE_PX text;
 * the box then pans) or a factor of the box's width. `controls` gets the buttons; call
 * `apply()` after each drawing. The choice is kept in this browser.
 */
export function boardZoom(box, controls) {
  let zoom = storedZoom();
  const apply = () => {
    const svg = box.querySelector("svg");
    if (!svg) return;
    svg.style.width = "100%";
    const fitWidth = svg.getBoundingClientRect().width;
    let factor = 1;
    if (zoom === "readable") {
      const small = smallestText(svg);
      if (small < READABLE_PX) factor = READABLE_PX / small + 0.01;
    } else if (typeof zoom === "number") {
      factor = zoom;
    }
    svg.style.width = factor === 1 ? "100%" : `${Math.round(fitWidth * factor)}px`;
    box.dataset.zoom = String(zoom);
    for (const button of controls.querySelectorAll("button")) {
      button.setAttribute("aria-pressed", String(button.dataset.zoom === String(zoom)));
    }
  };
  const factorNow = () => {
    const svg = box.querySelector("svg");
    return svg ? svg.getBoundingClientRect().width / box.clientWidth : 1;
  };
  const choose = (value) => {
    zoom = value;
    keepZoom(zoom);
    apply();
  };
  const button = (words, label, value) => {
    const made = document.createElement("button");
    made.type = "button";
    made.className = "secondary";
    made.textContent = words;
    made.setAttribute("aria-label", label);
    if (typeof value === "string") made.dataset.zoom = value;
    made.addEventListener("click", () => choose(typeof value === "function" ? value() : value));
    return made;
  };
  controls.dataset.testid = "board-zoom";
  controls.replaceChildren(
    button("Fit", "fit the board to the screen", "fit"),
    button("Readable", "board text large enough to read", "readable"),
    button("−", "zoom out", () => Math.max(1, factorNow() / ZOOM_STEP)),
    button("+", "zoom in", () => Math.min(6, factorNow() * ZOOM_STEP)),
  );
  return { apply };
}
