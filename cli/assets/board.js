// fairyzero's SVG board, shared by the game viewer (viewer.html) and the play page (play.html):
// both pages get this script inlined where they say BOARD_JS (cli/src/viewer.rs), so each
// page stays one self-contained file. It knows no rules: it draws squares, coordinates, the
// pieces of a board given as [[square, piece type, side], ...] and highlighted squares.
//
// makeBoard(svg, G): G has width, height, files (file letters), pieces ([{token, name}] by
// type) and sides (the two side names). Returns { draw, squareName, onSquareClick }.
"use strict";
function makeBoard(svg, G) {
  const SVG = "http://www.w3.org/2000/svg";
  const W = G.width, H = G.height;
  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  // Square index -> (x, y) of its top-left corner; the first player's first rank at the bottom,
  // with a margin of 0.6 for the coordinates.
  const M = 0.6;
  function xy(sq) { return [M + (sq % W), (H - 1 - Math.floor(sq / W))]; }
  function squareName(sq) { return G.files[sq % W] + (Math.floor(sq / W) + 1); }
  function token(type, side) {
    const t = G.pieces[type].token;
    return side === 0 ? t : t.toLowerCase();
  }

  // Squares and coordinates once; highlights and pieces per draw.
  svg.setAttribute("viewBox", `0 0 ${W + M} ${H + M}`);
  const squares = el("g", {}, svg);
  for (let sq = 0; sq < W * H; sq++) {
    const [x, y] = xy(sq);
    const f = sq % W, r = Math.floor(sq / W);
    el("rect", { x, y, width: 1, height: 1, class: (f + r) % 2 === 0 ? "sq-dark" : "sq-light",
                 "data-index": sq }, squares);
  }
  for (let f = 0; f < W; f++) {
    const t = el("text", { x: M + f + 0.5, y: H + 0.4, class: "coord", "text-anchor": "middle" }, squares);
    t.textContent = G.files[f];
  }
  for (let r = 0; r < H; r++) {
    const t = el("text", { x: M / 2, y: H - r - 0.5, class: "coord", "text-anchor": "middle", "dominant-baseline": "central" }, squares);
    t.textContent = String(r + 1);
  }
  const highlights = el("g", { id: "highlights" }, svg);
  const pieces = el("g", { id: "pieces" }, svg);

  // cells: [[square, type, side], ...]. marks: [{ cls, squares, inset }]: a rectangle of class
  // `cls` on each square, drawn in order under the pieces; `inset` ones are rings just inside
  // the square (captures, changes, targets), the others fill it.
  function draw(cells, marks) {
    highlights.replaceChildren();
    pieces.replaceChildren();
    for (const { cls, squares: list, inset } of marks) {
      for (const sq of list) {
        const [x, y] = xy(sq);
        if (inset) el("rect", { x: x + 0.06, y: y + 0.06, width: 0.88, height: 0.88, class: cls }, highlights);
        else el("rect", { x, y, width: 1, height: 1, class: cls }, highlights);
      }
    }
    for (const [sq, type, side] of cells) {
      const [x, y] = xy(sq);
      const tok = token(type, side);
      const g = el("g", { class: "piece side-" + side, "data-square": squareName(sq), "data-token": tok,
                          "data-side": G.sides[side], "data-index": sq }, pieces);
      el("title", {}, g).textContent = `${G.pieces[type].name} (${G.sides[side]}) on ${squareName(sq)}`;
      el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.43 }, g);
      // Tokens of 1-3 letters (more for a few): the font shrinks with the length so that every
      // token fits its disc; at 26 files on a 900-pixel board a 3-letter token is ~10.7 px.
      const size = Math.min(0.52, 0.95 / Math.max(tok.length, 1));
      const t = el("text", { x: x + 0.5, y: y + 0.52, "font-size": size }, g);
      t.textContent = tok;
    }
  }

  // handler(square index) for a click on a square or the piece on it.
  function onSquareClick(handler) {
    svg.addEventListener("click", e => {
      const hit = e.target.closest("[data-index]");
      if (hit) handler(parseInt(hit.getAttribute("data-index"), 10));
    });
  }

  return { draw, squareName, onSquareClick, el };
}
