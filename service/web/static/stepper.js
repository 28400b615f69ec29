// Stepping through versions 1..last: → / ← / Home / End, a slider, buttons, and #v=N links.
// The stepped view (_stepper.html) holds the board; its size control is wired here, so the
// replay page and the upload page both get it.
import { h } from "./api.js";
import { boardZoom } from "./board.js";

/**
 * Build the controls into `container`; `show(version)` draws a version (may be async).
 * Returns {go(version), setLast(last), version()}.
 */
export function stepper(container, { last, show }) {
  let current = 1;
  let top = last;
  let drawing = Promise.resolve();
  const slider = h("input", {
    type: "range", min: 1, max: top, value: 1, step: 1, id: "slider",
    "aria-label": "version", dataset: { testid: "slider" },
  });
  const button = (words, label, to) => h("button", {
    type: "button", class: "secondary", "aria-label": label,
    on: { click: () => go(to()) },
  }, words);
  const link = h("a", { id: "version-link", href: "#v=1" }, "Link to this version");
  container.replaceChildren(
    button("First", "first version (Home)", () => 1),
    button("◀ Back", "previous version (←)", () => current - 1),
    slider,
    button("Next ▶", "next version (→)", () => current + 1),
    button("Last", "last version (End)", () => top),
    link,
  );
  slider.addEventListener("input", () => go(Number(slider.value)));
  const board = document.getElementById("board");
  const sizes = document.getElementById("board-zoom");
  const zoom = board && sizes ? boardZoom(board, sizes) : null;
  if (zoom) window.addEventListener("resize", () => zoom.apply());

  function go(version) {
    const v = Math.max(1, Math.min(top, Number.isFinite(version) ? Math.trunc(version) : 1));
    current = v;
    slider.value = String(v);
    slider.setAttribute("aria-valuetext", `version ${v} of ${top}`);
    link.href = `#v=${v}`;
    history.replaceState(null, "", `${location.pathname}${location.search}#v=${v}`);
    drawing = drawing.then(async () => {
      if (current !== v) return;
      await show(v);
      if (zoom) zoom.apply();
    });
    return drawing;
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable
      || (target.tagName === "INPUT" && target.type !== "range") || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
    if (typing || target === slider) return; // the slider moves itself, then says "input"
    const to = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 1, End: top }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    go(to);
  });
  window.addEventListener("hashchange", () => {
    const wanted = fromHash();
    if (wanted !== null && wanted !== current) go(wanted);
  });

  return {
    go,
    version: () => current,
    setLast(value) {
      top = value;
      slider.max = String(value);
    },
  };
}

/** The version a `#v=N` link names, or null. */
export function fromHash() {
  const match = /(?:^#|&)v=(\d+)/.exec(location.hash);
  return match ? Number(match[1]) : null;
}
