// The web solver's page. Everything a puzzle carries (titles, colour names, messages) reaches
// the page as text (textContent, canvas text), never as HTML.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

const state = {
  backends: [], settings: {}, examples: {},
  text: "", name: "clues.txt", puzzle: null, parseError: null,
  hintKnown: null, hintLine: null, boardMarks: null,
  mode: "clues", draw: null, runs: new Set(), parseSeq: 0,
};

// ---- small helpers -----------------------------------------------------------------------
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

async function api(path, body, method = "POST") {
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: `${r.status} ${r.statusText}` }; }
  return { status: r.status, ok: r.ok, data };
}

function fmtS(s) {
  if (s === null || s === undefined) return "–";
  if (s < 0.001) return `${(s * 1e6).toFixed(0)} µs`;
  if (s < 1) return `${(s * 1000).toFixed(s < 0.01 ? 2 : 0)} ms`;
  return `${s.toFixed(s < 10 ? 2 : 1)} s`;
}

// "1 read", "2 reads", "1,303 reads"
function plural(n, one, many = `${one}s`) { return `${Number(n).toLocaleString("en")} ${n === 1 ? one : many}`; }

// Downloads are named after the puzzle: its title, else its file's name, else "puzzle".
function fileStem() {
  const p = state.mode === "draw" ? null : state.puzzle;
  let raw = (p && p.title) || state.name.replace(/\.[^.]*$/, "");
  if (state.mode === "draw") raw = "drawing";
  if (!raw || raw === "clues") raw = "puzzle";
  return raw.normalize("NFKD").replace(/[^\w.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "").slice(0, 60) || "puzzle";
}

function download(name, blob) {
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}

function b64url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = ""; for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function unb64url(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(bin, c => c.charCodeAt(0)));
}

// ---- colours -----------------------------------------------------------------------------
function paletteMap(puzzle) {
  const m = new Map([[0, "#ffffff"], [1, "#1d2433"]]);
  for (const p of (puzzle && puzzle.palette) || []) {
    if (p.rgb && /^#[0-9a-fA-F]{6}$/.test(p.rgb)) m.set(p.index, p.index === 1 && p.rgb === "#000000" ? "#1d2433" : p.rgb);
  }
  return m;
}
function inkOn(hex) {
  const n = parseInt(hex.slice(1), 16), r = n >> 16, g = (n >> 8) & 255, b = n & 255;
  return r * 299 + g * 587 + b * 114 > 150000 ? "#1d2433" : "#ffffff";
}
function charMap(puzzle) {
  const m = new Map();
  for (const p of (puzzle && puzzle.palette) || []) if (p.char) m.set(p.char, p.index);
  m.set(".", 0); if (!m.has("#")) m.set("#", 1);
  return m;
}
function decodeGrid(lines, puzzle) {
  if (!lines) return null;
  const m = charMap(puzzle);
  return lines.map(row => Array.from(row, ch => (m.has(ch) ? m.get(ch) : 1)));
}

// ---- drawing a board ---------------------------------------------------------------------
// opts: cells (rows of colour, -1 undecided), clues, maxW, maxH, line {kind,index,colour},
// marks (Set "i,j": outlined), broken {cells, lines}, unknownFill, dots (decided empty)
function drawBoard(canvas, puzzle, opts = {}) {
  const h = puzzle.height, w = puzzle.width;
  const clues = opts.clues !== false;
  // opts.room: clue slots kept free (the editor's board must not move under the pointer)
  const room = opts.room || [0, 0];
  const rowBlocks = clues ? Math.max(1, room[0], ...puzzle.rows.map(c => c.length)) : 0;
  const colBlocks = clues ? Math.max(1, room[1], ...puzzle.columns.map(c => c.length)) : 0;
  const maxW = opts.maxW || 600, maxH = opts.maxH || 480;
  const cw = 0.95; // clue slot width in cells
  let cs = Math.floor(Math.min(maxW / (w + rowBlocks * cw + 0.6), maxH / (h + colBlocks * cw + 0.6)));
  cs = opts.cell || Math.max(2, Math.min(opts.maxCell || 30, cs));
  const showClues = clues && cs >= 9;
  const left = showClues ? Math.ceil(rowBlocks * cw * cs + cs * 0.4) : 0;
  const top = showClues ? Math.ceil(colBlocks * cw * cs + cs * 0.4) : 0;
  const W = left + w * cs + 2, H = top + h * cs + 2;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
  canvas.style.width = `${W}px`; canvas.style.height = `${H}px`;
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, W, H);
  const pal = paletteMap(puzzle);
  const x0 = left + 1, y0 = top + 1;
  const cells = opts.cells;
  const colourOf = c => pal.get(c) || "#888888";
  // highlighted line background
  const hl = opts.line;
  if (hl && showClues) {
    g.fillStyle = hl.colour ? hl.colour + "22" : "#ff8a0022";
    if (hl.kind === "row") g.fillRect(0, y0 + hl.index * cs, left, cs);
    else g.fillRect(x0 + hl.index * cs, 0, cs, top);
  }
  const broken = opts.broken || { cells: [], lines: [] };
  if (showClues) {
    for (const [kind, idx] of broken.lines || []) {
      g.fillStyle = "#c23a2b22";
      if (kind === "row") g.fillRect(0, y0 + idx * cs, left, cs); else g.fillRect(x0 + idx * cs, 0, cs, top);
    }
  }
  // clues
  if (showClues) {
    const fs = Math.max(8, Math.round(cs * 0.52));
    g.font = `600 ${fs}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
    g.textAlign = "center"; g.textBaseline = "middle";
    const step = cw * cs;
    const chip = (x, y, n, c) => {
      if (puzzle.colour) {
        const fill = colourOf(c), pad = cs * 0.08;
        g.fillStyle = fill; g.strokeStyle = "#b9c0cf"; g.lineWidth = 1;
        roundRect(g, x - step / 2 + pad, y - cs / 2 + pad, step - 2 * pad, cs - 2 * pad, 3);
        g.fill(); if (fill.toLowerCase() === "#ffffff") g.stroke();
        g.fillStyle = inkOn(fill);
      } else g.fillStyle = "#2c3446";
      const digits = String(n).length;
      if (digits > 2) g.font = `600 ${Math.round(fs * 0.72)}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
      g.fillText(String(n), x, y + 0.5);
      if (digits > 2) g.font = `600 ${fs}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
    };
    puzzle.rows.forEach((clue, i) => {
      const y = y0 + i * cs + cs / 2;
      if (!clue.length) { g.fillStyle = "#b0b6c3"; g.fillText("0", left - step / 2 - cs * 0.2, y + 0.5); return; }
      clue.forEach(([n, c], k) => chip(left - (clue.length - k) * step + step / 2 - cs * 0.2, y, n, c));
    });
    puzzle.columns.forEach((clue, j) => {
      const x = x0 + j * cs + cs / 2;
      if (!clue.length) { g.fillStyle = "#b0b6c3"; g.fillText("0", x, top - step / 2 - cs * 0.2); return; }
      clue.forEach(([n, c], k) => chip(x, top - (clue.length - k) * step + step / 2 - cs * 0.2, n, c));
    });
  }
  // cells
  g.fillStyle = "#ffffff"; g.fillRect(x0, y0, w * cs, h * cs);
  for (let i = 0; i < h; i++) for (let j = 0; j < w; j++) {
    const v = cells ? cells[i][j] : -1;
    if (v === -1 || v === undefined) {
      if (opts.unknownFill) { g.fillStyle = opts.unknownFill; g.fillRect(x0 + j * cs, y0 + i * cs, cs, cs); }
    } else if (v > 0) {
      g.fillStyle = colourOf(v); g.fillRect(x0 + j * cs, y0 + i * cs, cs, cs);
    } else if (opts.dots && cs >= 8) {
      g.fillStyle = "#a9b0bf";
      g.beginPath(); g.arc(x0 + j * cs + cs / 2, y0 + i * cs + cs / 2, Math.max(1, cs * 0.09), 0, 7); g.fill();
    }
  }
  if (hl) {
    g.fillStyle = (hl.colour || "#ff8a00") + "30";
    if (hl.kind === "row") g.fillRect(x0, y0 + hl.index * cs, w * cs, cs); else g.fillRect(x0 + hl.index * cs, y0, cs, h * cs);
  }
  for (const [kind, idx] of broken.lines || []) {
    g.fillStyle = "#c23a2b26";
    if (kind === "row") g.fillRect(x0, y0 + idx * cs, w * cs, cs); else g.fillRect(x0 + idx * cs, y0, cs, h * cs);
  }
  // grid lines
  if (cs >= 4) {
    for (let k = 0; k <= Math.max(h, w); k++) {
      for (const [horiz, n, len] of [[true, h, w], [false, w, h]]) {
        if (k > n) continue;
        const major = k % 5 === 0 || k === n;
        g.strokeStyle = major ? "#7d8699" : "#d3d7e0"; g.lineWidth = major ? 1.2 : 1;
        g.beginPath();
        if (horiz) { g.moveTo(x0, y0 + k * cs + 0.5); g.lineTo(x0 + len * cs, y0 + k * cs + 0.5); }
        else { g.moveTo(x0 + k * cs + 0.5, y0); g.lineTo(x0 + k * cs + 0.5, y0 + len * cs); }
        g.stroke();
      }
    }
  }
  g.strokeStyle = "#1d2433"; g.lineWidth = 1.5; g.strokeRect(x0, y0, w * cs, h * cs);
  if (hl) {
    g.strokeStyle = hl.colour || "#ff8a00"; g.lineWidth = 2.5;
    if (hl.kind === "row") g.strokeRect(x0 - 1, y0 + hl.index * cs, w * cs + 2, cs);
    else g.strokeRect(x0 + hl.index * cs, y0 - 1, cs, h * cs + 2);
  }
  if (opts.guess) {
    const [i, j] = opts.guess; g.strokeStyle = "#d400c0"; g.lineWidth = 2.5;
    g.strokeRect(x0 + j * cs + 1, y0 + i * cs + 1, cs - 2, cs - 2);
  }
  for (const [i, j] of broken.cells || []) {
    g.strokeStyle = "#c23a2b"; g.lineWidth = Math.max(1, cs * 0.1);
    g.beginPath(); g.moveTo(x0 + j * cs + cs * .25, y0 + i * cs + cs * .25); g.lineTo(x0 + j * cs + cs * .75, y0 + i * cs + cs * .75);
    g.moveTo(x0 + j * cs + cs * .75, y0 + i * cs + cs * .25); g.lineTo(x0 + j * cs + cs * .25, y0 + i * cs + cs * .75); g.stroke();
  }
  if (opts.marks) {
    // cells where another solution differs: its colour as an orange-edged inset, this one's
    // colour around it
    const other = opts.other;
    for (const key of opts.marks) {
      const [i, j] = key.split(",").map(Number), lw = Math.max(2, Math.round(cs * 0.09));
      const x = x0 + j * cs, y = y0 + i * cs, inset = Math.max(2, Math.round(cs * 0.22));
      if (other) {
        const v = other[i][j];
        g.fillStyle = v > 0 ? colourOf(v) : "#ffffff";
        g.fillRect(x + inset, y + inset, cs - 2 * inset, cs - 2 * inset);
      } else { g.fillStyle = "rgba(255, 122, 0, 0.28)"; g.fillRect(x, y, cs, cs); }
      g.strokeStyle = "#f07000"; g.lineWidth = lw;
      if (other) g.strokeRect(x + inset, y + inset, cs - 2 * inset, cs - 2 * inset);
      else g.strokeRect(x + lw / 2 + 1, y + lw / 2 + 1, cs - lw - 2, cs - lw - 2);
    }
  }
  return { x0, y0, cs, w, h };
}
function roundRect(g, x, y, w, h, r) {
  g.beginPath(); g.moveTo(x + r, y); g.arcTo(x + w, y, x + w, y + h, r); g.arcTo(x + w, y + h, x, y + h, r);
  g.arcTo(x, y + h, x, y, r); g.arcTo(x, y, x + w, y, r); g.closePath();
}

function gridSVG(puzzle, cells, cs = 20) {
  const h = cells.length, w = cells[0].length, pal = paletteMap(puzzle);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${w * cs + 2}" height="${h * cs + 2}" viewBox="-1 -1 ${w * cs + 2} ${h * cs + 2}">`,
    `<rect x="0" y="0" width="${w * cs}" height="${h * cs}" fill="#ffffff"/>`];
  cells.forEach((row, i) => row.forEach((v, j) => {
    if (v > 0) parts.push(`<rect x="${j * cs}" y="${i * cs}" width="${cs}" height="${cs}" fill="${pal.get(v) || "#888888"}"/>`);
  }));
  for (let i = 0; i <= h; i++) parts.push(`<line x1="0" y1="${i * cs}" x2="${w * cs}" y2="${i * cs}" stroke="${i % 5 ? "#d3d7e0" : "#7d8699"}" stroke-width="1"/>`);
  for (let j = 0; j <= w; j++) parts.push(`<line x1="${j * cs}" y1="0" x2="${j * cs}" y2="${h * cs}" stroke="${j % 5 ? "#d3d7e0" : "#7d8699"}" stroke-width="1"/>`);
  parts.push(`<rect x="0" y="0" width="${w * cs}" height="${h * cs}" fill="none" stroke="#1d2433" stroke-width="1.5"/></svg>`);
  return parts.join("\n");
}

// ---- the main board ----------------------------------------------------------------------
// Its clues are HTML, one element per number laid out by the browser (numbers never run into
// each other, whatever their digits); its cells a canvas. The cell size fits the board in its
// card down to a legible minimum; a larger board scrolls in the card, its clues kept in view
// (sticky).
const CELL_MAX = 30;

function clueFont(cs) {
  const f = Math.max(10, Math.min(16, Math.round(cs * 0.6)));
  return { f, lh: Math.round(f * 1.3), digit: f * 0.62, gap: Math.max(4, Math.round(f * 0.5)) };
}
// the clue strips' size at cell size cs (an estimate for choosing cs: the browser lays them out);
// room: clue slots kept free in the editor (its cell size must not change under the pointer)
function clueExtent(p, cs, room) {
  const m = clueFont(cs), chip = p.colour ? 8 : 0;
  const rowNeed = c => c.reduce((s, [n]) => s + String(n).length * m.digit + m.gap + chip, 0);
  const rowW = Math.max(room ? room[0] * (2 * m.digit + m.gap + chip) : 0, ...p.rows.map(rowNeed)) + 16;
  const colH = Math.max(1, room ? room[1] : 0, ...p.columns.map(c => c.length)) * (m.lh + (p.colour ? 2 : 0)) + 12;
  return [rowW, colH];
}
// the smallest cell whose column holds its widest clue number at the smallest font
function minCell(p) {
  const digits = Math.max(1, ...p.columns.flat().map(([n]) => String(n).length));
  return Math.max(14, Math.ceil(digits * 0.62 * 10) + 4 + (p.colour ? 4 : 0));
}
function fitCell(p, availW, availH, room) {
  const lo = minCell(p);
  for (let cs = CELL_MAX; cs > lo; cs--) {
    const [rw, ch] = clueExtent(p, cs, room);
    if (rw + p.width * cs + 2 <= availW && ch + p.height * cs + 2 <= availH) return cs;
  }
  return lo;
}
function boardSpace() {
  return [Math.max(280, $("#board-wrap").clientWidth - 4), Math.max(320, window.innerHeight - 150)];
}

// The clue elements are rebuilt only when the clues or the cell size change (a hint only moves
// the highlighted line).
function renderClues(p, cs) {
  const rows = $("#row-clues"), cols = $("#col-clues"), grid = $("#board-grid"), m = clueFont(cs);
  const key = JSON.stringify([p.rows, p.columns, p.colour && p.palette, cs]);
  if (grid.dataset.key !== key) {
    grid.dataset.key = key;
    for (const [k, v] of Object.entries({ cs, f: m.f, lh: m.lh, gap: m.gap })) grid.style.setProperty(`--${k}`, `${v}px`);
    const pal = paletteMap(p);
    const num = ([n, c]) => {
      const s = el("span", { class: "clue-num", text: String(n) });
      if (p.colour) { const fill = pal.get(c) || "#888888"; s.classList.add("chip"); s.style.background = fill; s.style.color = inkOn(fill); }
      return s;
    };
    const zero = () => el("span", { class: "clue-num zero", text: "0" });
    const line = (cls, clue, k) => el("div", { class: cls, "data-index": k }, ...(clue.length ? clue.map(num) : [zero()]));
    rows.replaceChildren(...p.rows.map((c, i) => line("rc", c, i)));
    cols.replaceChildren(...p.columns.map((c, j) => line("cc", c, j)));
  }
  const view = boardView(), hl = view.line;
  for (const e of $$(".rc.hl, .cc.hl", grid)) e.classList.remove("hl", "bad");
  if (hl) {
    const e = (hl.kind === "row" ? rows : cols).children[hl.index];
    if (e) e.classList.add("hl", ...(hl.colour ? ["bad"] : []));
  }
}

// What the cells show: the drawing, the selected card's grid, or the cells the hints decided.
function boardView() {
  if (state.mode === "draw") return { cells: state.draw.cells, marks: state.boardMarks, other: state.boardOther };
  const run = state.shown;
  if (run && run.first) {
    const which = run.view || "first", marks = run.second ? diffMarks(run.first, run.second) : null;
    if (which === "second") return { cells: run.second, marks };
    if (which === "diff") return { cells: run.first, marks, other: run.second };
    return { cells: run.first, marks, line: run.badLine };
  }
  if (run && run.badLine) return { cells: state.hintKnown, line: run.badLine, dots: true };
  return { cells: state.hintKnown, line: state.hintLine, dots: true, marks: state.boardMarks };  // explain.js outlines a step's cells
}

function renderBoard() {
  const canvas = $("#board"), p = state.mode === "draw" ? state.draw.puzzle : state.puzzle;
  $("#board-grid").hidden = !p;
  if (!p) {
    canvas.width = 0; canvas.height = 0; canvas.style.width = "0"; canvas.style.height = "0";
    $("#row-clues").replaceChildren(); $("#col-clues").replaceChildren(); delete $("#board-grid").dataset.key;
    state.geom = null; delete canvas.dataset.geom; renderLegend(null); return;
  }
  const draw = state.mode === "draw";
  const [aw, ah] = boardSpace();
  const cs = fitCell(p, aw, ah, draw ? [Math.ceil(p.width / 2), Math.ceil(p.height / 2)] : null);
  renderClues(p, cs);
  const v = boardView();
  state.geom = drawBoard(canvas, p, { clues: false, cell: cs, cells: v.cells, line: v.line, dots: v.dots,
    marks: v.marks && v.marks.size ? v.marks : null, other: v.other });
  canvas.classList.toggle("drawing", draw);
  canvas.dataset.geom = JSON.stringify({ x0: state.geom.x0, y0: state.geom.y0, cs: state.geom.cs });
  renderLegend(p);
}

function renderLegend(p) {
  const box = $("#legend"); box.replaceChildren();
  if (!p || !p.colour) return;
  const pal = paletteMap(p);
  for (const entry of p.palette) {
    if (entry.index === 0) continue;
    const sw = el("i"); sw.style.background = pal.get(entry.index) || "#888";
    box.append(el("span", {}, sw, el("span", { text: entry.name || `colour ${entry.index}` })));
  }
}

function setPuzzleHeader(p) {
  const stem = state.name.replace(/\.[^.]*$/, "");
  $("#puzzle-title").textContent = p ? (p.title || (state.mode === "draw" ? "Your drawing" : stem !== "clues" ? stem : "") || "Puzzle") : "Puzzle";
  $("#puzzle-size").textContent = p ? `${p.width} × ${p.height}${p.colour ? ` · ${p.palette.length - 1} colours` : ""}` : "";
}

function note(text, kind = "") { const n = $("#board-note"); n.textContent = text; n.className = `note ${kind}`; }

// ---- input: text, files, examples, share links --------------------------------------------
let parseTimer = null;
// The status says "reading" from the keystroke on, so that nothing (a person, a test) takes the
// last text's "Read ..." for this text's; a hint first waits for the pending read.
function scheduleParse(delay = 250) {
  clearTimeout(parseTimer); parseTimer = setTimeout(() => { parseTimer = null; parseNow(); }, delay);
  const status = $("#parse-status"); status.className = "status pending"; status.textContent = "Reading…";
}
let parsing = null;
function parseNow() { clearTimeout(parseTimer); parseTimer = null; parsing = parseText(); return parsing; }
async function parsed() { if (parseTimer !== null) await parseNow(); else if (parsing) await parsing; }

async function parseText() {
  const text = $("#clues").value;
  state.text = text;
  const seq = ++state.parseSeq;
  const status = $("#parse-status");
  if (!text.trim()) {
    forgetPuzzle(null); status.textContent = "Paste clues or open a file."; status.className = "status"; return;
  }
  status.className = "status pending"; status.textContent = "Reading…";
  const r = await api("/api/parse", { puzzle: text, name: state.name });
  if (seq !== state.parseSeq) return;
  if (r.ok) {
    state.puzzle = r.data.puzzle; state.parseError = null;
    if (text !== state.hintText) { resetHints(); showOnBoard(null); }  // the same text read again keeps its hints
    const p = state.puzzle;
    status.className = "status ok";
    status.textContent = `Read ${p.width} × ${p.height}${p.colour ? ", colour" : ""}${p.title ? `: ${p.title}` : ""}`;
  } else {
    forgetPuzzle(r.data);
    status.className = "status error"; status.replaceChildren(el("span", { text: r.data.error || "cannot read the puzzle" }));
    if (r.data.line) status.append(el("a", { text: "show line", onclick: () => selectLine(r.data.line) }));
  }
  setPuzzleHeader(state.puzzle); renderBoard(); updateSolve();
}

// Clues that do not read (or no clues): nothing of the last puzzle stays on screen (board,
// title, hints, a card's grid on the board), and Solve waits for text that reads.
function forgetPuzzle(error) {
  state.puzzle = null; state.parseError = error; resetHints(); showOnBoard(null);
  note(error ? "The board comes back when the clues can be read." : "", error ? "error" : "");
  setPuzzleHeader(null); renderBoard(); updateSolve();
}

function selectLine(n) {
  const ta = $("#clues"), lines = ta.value.split("\n");
  let start = 0; for (let k = 0; k < n - 1 && k < lines.length; k++) start += lines[k].length + 1;
  ta.focus(); ta.setSelectionRange(start, start + (lines[n - 1] || "").length);
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 18; ta.scrollTop = Math.max(0, (n - 3) * lh);
}

function loadText(text, name) {
  state.name = name || "clues.txt";
  $("#clues").value = text;
  if (state.mode !== "clues") switchTab("clues");
  parseNow();
}

function readFile(file) {
  if (!file) return;
  if (file.size > (state.settings.max_body_bytes || 2 ** 21)) {
    const s = $("#parse-status"); s.className = "status error";
    s.textContent = `${file.name}: ${file.size.toLocaleString()} bytes, over this server's cap`; return;
  }
  const reader = new FileReader();
  reader.onload = () => loadText(String(reader.result), file.name);
  reader.readAsText(file);
}

// ---- hints ---------------------------------------------------------------------------------
function resetHints() {
  const p = state.puzzle; state.hintLine = null; state.boardMarks = null; state.boardOther = null;
  state.hintText = state.text; state.hintSeq = (state.hintSeq || 0) + 1;
  state.hintKnown = p ? Array.from({ length: p.height }, () => new Array(p.width).fill(-1)) : null;
  if (typeof Explain !== "undefined") Explain.reset();
  note("");
}

// Clicks queue: each hint starts from the cells the one before it decided, so three clicks are
// three steps; an answer for a puzzle (or a reset) that has changed since is dropped.
let hints = Promise.resolve();
function hint() {
  const next = (typeof Explain !== "undefined" && Explain.nextHint) || nextHint;  // explain.js: the trace's next step
  hints = hints.then(next, next); return hints;
}

async function nextHint() {
  if (state.mode === "draw") switchTab("clues");
  showOnBoard(null);  // the board goes back to the cells the hints decided
  await parsed();
  if (state.parseError) { note(`Cannot read the puzzle: ${state.parseError.error || "see above"}`, "error"); return; }
  if (!state.puzzle) { note("Enter a puzzle first.", "error"); return; }
  const seq = state.hintSeq;
  const r = await api("/api/hint", { puzzle: state.text, name: state.name, known: state.hintKnown });
  if (seq !== state.hintSeq) return;
  const d = r.data;
  if (!r.ok) { note(d.error || "no hint", "error"); return; }
  if (d.hint) {
    for (const [i, j, c] of d.hint.cells) state.hintKnown[i][j] = c;
    state.hintLine = { kind: d.hint.kind, index: d.hint.index };
    const filled = d.hint.cells.filter(c => c[2] > 0).length, empty = d.hint.cells.length - filled;
    const what = [filled && `${filled} filled`, empty && `${empty} empty`].filter(Boolean).join(" and ");
    const label = d.hint.label.charAt(0).toUpperCase() + d.hint.label.slice(1);
    note(`${label} (clue ${d.hint.clue}): ${what} cell${d.hint.cells.length > 1 ? "s" : ""} follow from this line.`, "hint");
  } else if (d.done) { state.hintLine = null; note("Every cell is decided: the puzzle is solved by line logic.", "ok"); }
  else if (d.stuck) { state.hintLine = null; note("Line solving alone is stuck here: the next step needs a guess (try the lines solver to watch its search).", "hint"); }
  else if ("contradiction" in d) {
    state.hintLine = d.contradiction ? { kind: d.contradiction.kind, index: d.contradiction.index, colour: "#c23a2b" } : null;
    note(d.contradiction ? `Contradiction: no placement fits ${d.contradiction.label} (clue ${d.contradiction.clue}).` : "Contradiction.", "error");
  }
  renderBoard();
}

// ---- the grid editor --------------------------------------------------------------------
const DRAW_COLOURS = ["#1d2433", "#e4572e", "#2e86de", "#f2c14e", "#3bb273", "#8e5bd6"];
function newDrawing(w, h) {
  state.draw = { w, h, cells: Array.from({ length: h }, () => new Array(w).fill(0)), colours: ["#1d2433"], current: 1, puzzle: null };
  renderPalette(); drawingChanged();
}
function renderPalette() {
  const box = $("#draw-palette"); box.replaceChildren();
  const d = state.draw;
  const erase = el("button", { class: `swatch erase${d.current === 0 ? " active" : ""}`, title: "Erase", "aria-label": "Erase", onclick: () => { d.current = 0; renderPalette(); } });
  box.append(erase);
  d.colours.forEach((hex, k) => {
    const b = el("button", { class: `swatch${d.current === k + 1 ? " active" : ""}`, title: k ? `colour ${k + 1}` : "black", "aria-label": `colour ${k + 1}`, onclick: () => { d.current = k + 1; renderPalette(); } });
    b.style.background = hex; box.append(b);
  });
  if (d.colours.length < 8) {
    const pick = el("input", { type: "color", title: "Add a colour", "aria-label": "Add a colour", value: DRAW_COLOURS[d.colours.length % DRAW_COLOURS.length] });
    pick.addEventListener("change", () => { d.colours.push(pick.value); d.current = d.colours.length; renderPalette(); drawingChanged(); });
    box.append(pick);
  }
}
function runsOf(line) {
  const out = []; let prev = 0, n = 0;
  for (const v of [...line, 0]) {
    if (v === prev) { if (v) n++; continue; }
    if (prev) out.push([n, prev]);
    prev = v; n = v ? 1 : 0;
  }
  return out;
}
function drawingChanged() {
  const d = state.draw, letters = "abcdefgh";
  const rows = d.cells.map(runsOf), cols = Array.from({ length: d.w }, (_, j) => runsOf(d.cells.map(r => r[j])));
  const used = new Set([...rows, ...cols].flat().map(b => b[1]));
  const colour = [...used].some(c => c > 1);
  const palette = [{ index: 0, name: "white", rgb: "#ffffff", char: "." }, { index: 1, name: "black", rgb: "#1d2433", char: "#" }];
  d.colours.slice(1).forEach((hex, k) => palette.push({ index: k + 2, name: `colour ${letters[k + 1]}`, rgb: hex, char: letters[k + 1] }));
  d.puzzle = { title: null, height: d.h, width: d.w, rows, columns: cols, palette, colour };
  const tok = ([n, c]) => (c === 1 ? String(n) : `${n}${letters[c - 1]}`);
  const lines = ["# drawn in the web solver"];
  if (colour) d.colours.slice(1).forEach((hex, k) => { if (used.has(k + 2)) lines.push(`COLOUR ${letters[k + 1]} ${hex}`); });
  lines.push("ROWS", ...rows.map(r => (r.length ? r.map(tok).join(" ") : "0")), "COLUMNS", ...cols.map(c => (c.length ? c.map(tok).join(" ") : "0")));
  state.text = lines.join("\n") + "\n"; state.name = "drawing.txt";
  $("#clues").value = state.text;
  state.boardMarks = null; state.boardOther = null; setPuzzleHeader(d.puzzle); renderBoard();
}
function cellAt(ev) {
  const g = state.geom; if (!g) return null;
  const rect = $("#board").getBoundingClientRect();
  const j = Math.floor((ev.clientX - rect.left - g.x0) / g.cs), i = Math.floor((ev.clientY - rect.top - g.y0) / g.cs);
  return i >= 0 && j >= 0 && i < g.h && j < g.w ? [i, j] : null;
}
function setupEditor() {
  const canvas = $("#board"); let paint = null;
  canvas.addEventListener("contextmenu", e => { if (state.mode === "draw") e.preventDefault(); });
  canvas.addEventListener("pointerdown", e => {
    if (state.mode !== "draw") return;
    const c = cellAt(e); if (!c) return;
    const d = state.draw, cur = d.cells[c[0]][c[1]];
    paint = e.button === 2 ? 0 : (cur === d.current && d.current ? 0 : d.current);
    canvas.setPointerCapture(e.pointerId);
    $("#row-clues").style.width = `${$("#row-clues").getBoundingClientRect().width}px`;
    $("#col-clues").style.height = `${$("#col-clues").getBoundingClientRect().height}px`;
    d.cells[c[0]][c[1]] = paint; drawingChanged();
  });
  canvas.addEventListener("pointermove", e => {
    if (paint === null || state.mode !== "draw") return;
    const c = cellAt(e); if (!c) return;
    if (state.draw.cells[c[0]][c[1]] !== paint) { state.draw.cells[c[0]][c[1]] = paint; drawingChanged(); }
  });
  const stop = () => {
    if (paint === null) return;
    paint = null; $("#row-clues").style.width = ""; $("#col-clues").style.height = ""; renderBoard();
  };
  canvas.addEventListener("pointerup", stop); canvas.addEventListener("pointercancel", stop);
}

function switchTab(tab) {
  if (tab === "draw") showOnBoard(null, false);
  state.mode = tab;
  for (const b of $$(".tab")) b.classList.toggle("active", b.dataset.tab === tab);
  $("#tab-clues").hidden = tab !== "clues"; $("#tab-draw").hidden = tab !== "draw";
  if (tab === "draw") { if (!state.draw) newDrawing(+$("#draw-w").value || 10, +$("#draw-h").value || 10); else drawingChanged(); note("Paint the picture; its clues are in the Clues tab.", ""); }
  else { note(""); parseNow(); }
  setPuzzleHeader(tab === "draw" ? state.draw.puzzle : state.puzzle);
  updateSolve();
}

// ---- solvers ------------------------------------------------------------------------------
// Every solver in view (no scroll box that hides a checked one): the installed ones first, then
// the ones missing here, each with the command that installs it.
function renderBackends() {
  const box = $("#backends"); box.replaceChildren();
  const preferred = new Set(["cpsat"]);
  const installed = state.backends.filter(b => b.available), missing = state.backends.filter(b => !b.available);
  if (!installed.length) box.append(el("p", { class: "backend-group", text: "No solver is installed here." }));
  for (const b of [...installed, ...missing]) {
    if (b === missing[0]) box.append(el("p", { class: "backend-group", text: `Not installed here (${missing.length})` }));
    const input = el("input", { type: "checkbox", value: b.name, id: `be-${b.name}` });
    input.checked = b.available && preferred.has(b.name); input.disabled = !b.available;
    const label = el("label", { class: `backend${b.available ? "" : " off"}`, for: `be-${b.name}`, title: b.available ? b.description : `${b.description}\nnot installed here: ${b.install_hint || "see README"}` },
      input, el("span", { class: "name", text: b.name }),
      el("span", { class: "desc", text: b.available ? shortDesc(b) : `install: ${b.install_hint || "see README"}` }));
    box.append(label);
  }
}
function shortDesc(b) { const d = b.description || ""; return d.length > 90 ? d.slice(0, 88) + "…" : d; }

function selectedBackends() { return $$("#backends input:checked").map(i => state.backends.find(b => b.name === i.value)).filter(Boolean); }

function optionsFor(b, uniqueAsked) {
  const o = {};
  if ($("#presolve").checked) o.presolve = true;
  if (uniqueAsked && b.supports_unique) o.unique = true;
  const enc = $("#encoding").value; if (enc && b.uses_model) o.encoding = enc;
  const reads = parseInt($("#reads").value, 10), sweeps = parseInt($("#sweeps").value, 10);
  if (reads > 0 && b.options.includes("reads")) o.reads = reads;
  if (sweeps > 0 && b.options.includes("sweeps")) o.sweeps = sweeps;
  return o;
}

async function solveAll() {
  if (state.mode === "clues") {
    await parsed();
    if (state.parseError || !state.puzzle) {
      note(state.parseError ? `Cannot solve: the clues do not read (${state.parseError.error || "see above"}).` : "Enter a puzzle first.", "error");
      updateSolve(); return;
    }
  }
  const text = currentText();
  const chosen = selectedBackends();
  if (!chosen.length) { note("Pick at least one solver.", "error"); return; }
  if (!text.trim()) { note("Enter a puzzle first.", "error"); return; }
  clearRuns();
  for (const b of chosen) startRun(b, text, optionsFor(b, $("#unique").checked));
}

function clearRuns() {
  showOnBoard(null);
  for (const run of state.runs.values()) if (run.live) cancelRun(run);
  state.runs.clear();
  $("#runs").replaceChildren();
}

async function uniqueCheck() {
  const b = state.backends.find(x => x.name === "cpsat" && x.available) || state.backends.find(x => x.name === "lines" && x.available);
  if (!b) { note("Neither cpsat nor lines is installed here.", "error"); return; }
  clearRuns();
  note("Checking whether the clues have only this picture…");
  startRun(b, state.text, { unique: true }, { fromDrawing: true });
}

async function startRun(b, text, options, extra = {}) {
  const run = { backend: b, card: makeCard(b), live: true, text, stem: fileStem(), puzzle: state.mode === "draw" ? state.draw.puzzle : state.puzzle,
    replay: [], cells: null, line: null, guess: null, batches: [], record: null, ...extra };
  // the run is live (and cancellable) from its card on: a cancel before the server has named
  // the run is sent as soon as it has
  state.runs.add(run); run.card.cancel.onclick = () => cancelRun(run);
  run.card.root.addEventListener("click", e => { if (!e.target.closest("button, a")) selectRun(run); });
  run.card.root.addEventListener("keydown", e => { if ((e.key === "Enter" || e.key === " ") && e.target === run.card.root) { e.preventDefault(); selectRun(run); } });
  $("#runs").append(run.card.root);
  $("#cancel-all").disabled = false;
  setBadge(run, "running", "starting");
  const limit = parseFloat($("#time-limit").value) || state.settings.time_limit || 10;
  const r = await api("/api/runs", { puzzle: text, name: state.name, backend: b.name, time_limit: limit, options });
  if (!r.ok) {
    run.live = false;
    setBadge(run, r.status === 429 ? "unknown" : "error", r.status === 429 ? "busy" : "error");
    run.card.message.textContent = r.data.error || `HTTP ${r.status}`;
    updateCancelAll(); return;
  }
  run.id = r.data.id;
  if (run.cancelAsked) api(`/api/runs/${run.id}`, undefined, "DELETE");
  const source = new EventSource(r.data.events);
  run.source = source;
  source.onmessage = ev => onEvent(run, JSON.parse(ev.data));
  source.onerror = () => {
    source.close();
    if (!run.live || run.pending) return;
    run.live = false; updateCancelAll();
    setBadge(run, "error", "disconnected");
    run.card.message.textContent = "The connection to the server was lost before the run ended.";
  };
}

// Solve waits for the solvers' list and for clues that read.
function updateSolve() {
  const b = $("#solve"), ready = state.backends.some(x => x.available);
  const bad = state.mode === "clues" && (state.parseError || !state.puzzle);
  b.disabled = !ready || !!bad;
  b.title = !ready ? (state.backends.length ? "No solver is installed here" : "Loading the solvers…") : bad ? "The clues do not read: fix them first" : "";
}

function updateCancelAll() { $("#cancel-all").disabled = ![...state.runs.values()].some(r => r.live); }

async function cancelRun(run) {
  if (!run.live) return;
  run.cancelAsked = true;
  run.card.live.textContent = "cancelling…";
  if (!run.id) return;  // startRun sends it once the server has answered
  await api(`/api/runs/${run.id}`, undefined, "DELETE");
}

function makeCard(b) {
  const root = $("#run-template").content.firstElementChild.cloneNode(true);
  const card = { root, name: $(".run-name", root), badge: $(".badge", root), cancel: $(".run-cancel", root),
    canvas: $(".run-board canvas", root), verdict: $(".run-verdict", root), sw: $(".run-switch", root),
    live: $(".run-live", root), spark: $(".spark", root), figures: $(".figures", root),
    message: $(".run-message", root), downloads: $(".run-downloads", root) };
  card.name.textContent = b.name; root.dataset.backend = b.name;
  root.tabIndex = 0; root.title = "Show this card's grid on the board";
  return card;
}

function setBadge(run, cls, text) { run.card.badge.className = `badge ${cls}`; run.card.badge.textContent = text; }

function cardBoard(run, opts = {}) {
  if (!run.puzzle) return;
  const w = run.card.root.clientWidth - 56 || 240;
  drawBoard(run.card.canvas, run.puzzle, { clues: false, maxW: Math.min(w, 300), maxH: 240, maxCell: 34,
    unknownFill: "#e6e9ef", ...opts });
}

function onEvent(run, m) {
  switch (m.type) {
    case "started": setBadge(run, "running", "running"); run.t0 = performance.now(); tick(run); break;
    case "puzzle":
      run.puzzle = m.puzzle;
      run.cells = Array.from({ length: m.puzzle.height }, () => new Array(m.puzzle.width).fill(-1));
      cardBoard(run, { cells: run.cells }); break;
    case "replay": run.replay.push(...m.events); playReplay(run); break;
    case "replay_end": run.replayInfo = m; break;
    case "batch": onBatch(run, m); break;
    case "log": onLog(run, m.line); break;
    case "result": run.pending = m; if (!run.playing) finishRun(run); break;
  }
}

function tick(run) {
  if (!run.live) return;
  if (run.backend.name !== "lines" && !run.batches.length && !run.lastLog) run.card.live.textContent = `working… ${((performance.now() - run.t0) / 1000).toFixed(1)} s`;
  setTimeout(() => tick(run), 200);
}

function playReplay(run) {
  if (run.playing) return;
  run.playing = true; run.played = 0;
  const step = () => {
    const left = run.replay.length - run.played;
    if (left <= 0) { run.playing = false; if (run.pending) finishRun(run); return; }
    const per = Math.max(1, Math.ceil(run.replay.length / 90));
    let last = null;
    for (let k = 0; k < per && run.played < run.replay.length; k++) {
      const e = run.replay[run.played++]; last = e;
      if (e.e === "step") { for (const [i, j, c] of e.cells) run.cells[i][j] = c; run.line = { kind: e.line[0], index: e.line[1] }; run.guess = null; }
      else if (e.e === "guess") { run.stack = run.stack || []; run.stack[e.depth] = run.cells.map(r => r.slice()); run.cells[e.cell[0]][e.cell[1]] = e.colour; run.guess = e.cell; }
      else if (e.e === "backtrack") { if (run.stack && run.stack[e.depth + 1]) run.cells = run.stack[e.depth + 1].map(r => r.slice()); run.guess = null; }
    }
    cardBoard(run, { cells: run.cells, line: run.line, guess: run.guess });
    run.card.live.textContent = describeEvent(run, last);
    setTimeout(step, 28);
  };
  step();
}

function describeEvent(run, e) {
  if (!e) return "";
  const n = `${run.played}/${run.replay.length}`;
  if (e.e === "step") return `${e.line[0]} ${e.line[1] + 1}: +${plural(e.cells.length, "cell")} · ${e.known} known · event ${n}`;
  if (e.e === "guess") return `guess (${e.cell[0] + 1}, ${e.cell[1] + 1}) at depth ${e.depth} · event ${n}`;
  return `backtrack to depth ${e.depth} · event ${n}`;
}

function onBatch(run, m) {
  run.batches.push(m);
  const c = run.card;
  c.live.textContent = `batch ${run.batches.length} · ${plural(m.reads, "read")}${m.sweeps ? ` × ${plural(m.sweeps, "sweep")}` : ""} · best energy ${m.best_energy}` + (m.broken ? ` · breaks ${plural(m.broken, "constraint")}` : "");
  if (run.puzzle) cardBoard(run, { cells: run.cells, broken: { cells: m.broken_cells, lines: m.broken_lines } });
  drawSpark(run);
}

// The energy chart. Several batches: the best energy (and the mean, lighter) per batch. One
// batch: how many of its reads reached each energy (a histogram), so a run of one batch is more
// than a dot.
function drawSpark(run) {
  const cv = run.card.spark; cv.hidden = false;
  const dpr = window.devicePixelRatio || 1, W = cv.clientWidth || 260, H = 64, top = 18, bottom = H - 14;
  cv.width = W * dpr; cv.height = H * dpr; cv.style.height = `${H}px`;
  const g = cv.getContext("2d"); g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, W, H);
  g.strokeStyle = "#e2e5ec"; g.lineWidth = 1; g.beginPath(); g.moveTo(0, bottom + 0.5); g.lineTo(W, bottom + 0.5); g.stroke();
  g.font = "11px system-ui, sans-serif";
  const bs = run.batches, last = bs[bs.length - 1];
  if (bs.length === 1 && Array.isArray(last.energies) && last.energies.length) {
    const hist = last.energies, es = hist.map(h => h[0]), cmax = Math.max(...hist.map(h => h[1]));
    const emin = Math.min(...es), emax = Math.max(...es), span = emax - emin || 1;
    const bw = Math.max(2, Math.min(14, (W - 12) / (hist.length * 1.6)));
    g.fillStyle = "#3559e0";
    for (const [e, c] of hist) {
      const x = hist.length === 1 ? (W - bw) / 2 : 6 + (W - 12 - bw) * (e - emin) / span, h = Math.max(2, (bottom - top) * c / cmax);
      g.fillRect(x, bottom - h, bw, h);
    }
    g.fillStyle = "#6b7385";
    g.fillText(hist.length === 1 ? `all ${plural(last.reads, "read")} at energy ${emin}` : `reads per energy (${plural(last.reads, "read")}; best ${last.best_energy})`, 2, 11);
    const lo = `energy ${emin}`, hi = `${emax}`;
    g.fillText(lo, 4, H - 2); if (hist.length > 1) g.fillText(hi, W - 4 - g.measureText(hi).width, H - 2);
    cv.dataset.points = String(hist.length);
    return;
  }
  const best = bs.map(b => b.best_energy ?? 0), mean = bs.map(b => b.mean_energy ?? b.best_energy ?? 0);
  const max = Math.max(1, ...best, ...mean);
  const xy = (k, e) => [best.length === 1 ? W / 2 : 6 + k * (W - 12) / (best.length - 1), bottom - (bottom - top) * e / max];
  const line = (es, colour, width) => {
    g.strokeStyle = colour; g.lineWidth = width; g.beginPath();
    es.forEach((e, k) => { const [x, y] = xy(k, e); k ? g.lineTo(x, y) : g.moveTo(x, y); }); g.stroke();
  };
  line(mean, "#b9c6f4", 1.5); line(best, "#3559e0", 2);
  g.fillStyle = "#3559e0";
  best.forEach((e, k) => { const [x, y] = xy(k, e); g.beginPath(); g.arc(x, y, 2.5, 0, 7); g.fill(); });
  g.fillStyle = "#6b7385";
  g.fillText(`best energy per batch (${bs.length}; last ${best[best.length - 1]}), mean lighter`, 2, 11);
  g.fillText("batch 1", 4, H - 2); const t = `batch ${bs.length}`; g.fillText(t, W - 4 - g.measureText(t).width, H - 2);
  cv.dataset.points = String(bs.length);
}

function onLog(run, line) {
  run.lastLog = line;
  let shown = line.trim();
  const sol = /^#(\d+)\s+([\d.]+s)/.exec(shown);
  if (sol) shown = `solution #${sol[1]} at ${sol[2]}`;
  else if (/^#Done/.test(shown)) shown = "search done";
  else if (/^#Bound/.test(shown)) shown = "bound improved";
  else if (/Starting presolve/i.test(shown)) shown = "presolving";
  else if (/Starting search/i.test(shown)) shown = "searching";
  run.card.live.textContent = `CP-SAT: ${shown}`.slice(0, 120);
}

function finishRun(run) {
  const m = run.pending; run.live = false; run.pending = null;
  if (run.source) run.source.close();
  updateCancelAll();
  const rec = m.record || {}, c = run.card;
  run.record = rec;
  c.cancel.hidden = true;
  const status = rec.status || "error";
  const label = { solved: "solved", infeasible: "impossible", unknown: "no answer", timeout: "killed at deadline", interrupted: "cancelled", error: "error" }[status] || status;
  setBadge(run, status, label);
  const p = run.puzzle || state.puzzle;
  run.first = p ? decodeGrid(rec.grid, p) : null; run.second = p ? decodeGrid(rec.second_grid, p) : null;
  c.live.textContent = ""; c.live.classList.add("done");
  if (run.replayInfo) c.live.textContent = `replay: ${plural(run.replayInfo.steps, "line update")}, ${plural(run.replayInfo.guesses, "guess", "guesses")}, ${plural(run.replayInfo.backtracks, "backtrack")}${run.replayInfo.truncated ? " (cut short)" : ""}`;
  const v = c.verdict;
  if (status === "solved") {
    if (rec.unique === true) { v.textContent = "Unique solution"; v.className = "run-verdict ok"; }
    else if (rec.unique === false) { v.textContent = "Not unique: another solution fits the clues"; v.className = "run-verdict warn"; }
    else { v.textContent = run.backend.supports_unique ? "Solved (uniqueness not checked)" : "Solved (this solver cannot prove uniqueness)"; v.className = "run-verdict ok"; }
  } else if (status === "infeasible") {
    const con = m.extra && m.extra.contradiction;
    v.textContent = "Impossible: no grid satisfies these clues" + (con ? ` (line solving contradicts at ${con.label}, clue ${con.clue})` : "");
    v.className = "run-verdict bad";
    if (con) run.badLine = { kind: con.kind, index: con.index, colour: "#c23a2b" };
  } else if (status === "timeout") { v.textContent = "Stopped by the server at its deadline"; v.className = "run-verdict warn"; }
  else if (status === "interrupted") { v.textContent = "Cancelled"; v.className = "run-verdict warn"; }
  else if (status === "unknown") { v.textContent = "No verified solution within the limits"; v.className = "run-verdict warn"; }
  else { v.textContent = "Error"; v.className = "run-verdict bad"; }
  c.message.textContent = rec.message || "";
  showRunGrid(run, "first");
  if (run.second) {
    c.sw.hidden = false;
    for (const b of $$("button", c.sw)) b.onclick = () => { showRunGrid(run, b.dataset.show); selectRun(run); };
  }
  if (run.first) {
    c.downloads.hidden = false;
    $("[data-dl=png]", c.downloads).onclick = () => downloadPNG(run);
    $("[data-dl=svg]", c.downloads).onclick = () => download(`${run.stem}-${run.backend.name}.svg`, new Blob([gridSVG(p, run.first)], { type: "image/svg+xml" }));
  }
  figures(run, rec);
  if (run.fromDrawing && state.runs.has(run)) drawingVerdict(run);  // not a cleared run's
  // the first card with a grid (or an impossible verdict's line) goes on the main board
  // (until a click chooses: a card with two solutions then takes over from one with one)
  else if ((run.first || run.badLine) && state.runs.has(run) && state.mode === "clues" && run.text === currentText()
    && (!state.shown || (!state.shownByUser && run.second && !state.shown.second))) showOnBoard(run);
}

function showRunGrid(run, which) {
  run.view = which;
  for (const b of $$("button", run.card.sw)) b.classList.toggle("active", b.dataset.show === which);
  if (state.shown === run) { boardCaption(run); renderBoard(); }
  const p = run.puzzle || state.puzzle; if (!p) return;
  if (!run.first) { cardBoard(run, { cells: run.cells, line: run.badLine }); return; }
  if (which === "second") cardBoard(run, { cells: run.second });
  else if (which === "diff") cardBoard(run, { cells: run.first, marks: diffMarks(run.first, run.second), other: run.second });
  else cardBoard(run, { cells: run.first });
  if (run.baseLive === undefined) run.baseLive = run.card.live.textContent;
  const nd = diffMarks(run.first, run.second).size;
  run.card.live.textContent = which === "diff" ? `${plural(nd, "cell")} ${nd === 1 ? "differs" : "differ"}; the insets show the other solution` : run.baseLive;
}
function diffMarks(a, b) {
  const s = new Set(); if (!a || !b) return s;
  a.forEach((row, i) => row.forEach((v, j) => { if (v !== b[i][j]) s.add(`${i},${j}`); })); return s;
}

// ---- a card's grid on the main board ---------------------------------------------------------
function currentText() { return state.mode === "draw" ? state.text : $("#clues").value; }

// The main board shows one card's grid (its Solution / Another / Differences, the cells where
// two solutions differ marked) or, with none, the cells the hints decided.
function showOnBoard(run, render = true) {
  const was = state.shown; state.shown = run || null; state.shownByUser = false;
  for (const r of state.runs) r.card.root.classList.toggle("selected", r === state.shown);
  if (run) boardCaption(run);
  else if (was && state.mode === "clues") note("");
  if (render && (run || was)) renderBoard();
}
function selectRun(run) {
  if (!run.first && !run.badLine) return;
  if (state.mode !== "clues") { note("The board shows your drawing here: the Clues tab shows a card's grid.", ""); return; }
  if (run.text !== currentText()) { note("This card is for other clues than the board's: solve again to see it here.", "error"); return; }
  showOnBoard(run); state.shownByUser = true;
}
function boardCaption(run) {
  const name = run.backend.name;
  if (!run.first) { note(`${name}: impossible. The highlighted line is where line solving meets the contradiction.`, "error"); return; }
  const v = run.view || "first", n = run.second ? diffMarks(run.first, run.second).size : 0;
  const what = v === "second" ? "second solution" : "solution";
  const diff = n ? `; the ${plural(n, "cell")} where its two solutions differ ${n === 1 ? "is" : "are"} marked${v === "diff" ? " (the insets show the other solution)" : ""}` : "";
  note(`${name}'s ${what} on the board${diff}. Hint goes back to your own cells.`, n ? "hint" : "ok");
}

// The terms a sampler's card uses, as tooltips on the card and in the legend under the cards.
const TERMS = {
  energy: "The penalty of the best read: 0 when it breaks no constraint (then its grid meets every clue).",
  p: "The share of reads that reached energy 0 (a grid that meets every clue), over the reads it names.",
  TTS99: "Time to solution at 99 %: how long this sampler must keep taking reads to find a solution with probability 0.99 " +
    "(one read's time × ln 0.01 / ln(1 − p)). In brackets its 95 % interval; ∞ when no read succeeded.",
};

function figures(run, r) {
  const dl = run.card.figures; dl.replaceChildren();
  const add = (k, v, tip) => {
    if (v === null || v === undefined || v === "") return;
    const dt = el("dt", { text: k });
    if (tip) { dt.title = tip; dt.classList.add("term"); }
    dl.append(dt, el("dd", { text: String(v) }));
  };
  const total = (r.build_s || 0) + (r.solve_s || 0) + (r.presolve_s || 0);
  if (total > 0) add("time", r.build_s ? `${fmtS(total)}  (build ${fmtS(r.build_s)}, solve ${fmtS(r.solve_s)})` : fmtS(total));
  if (r.variables != null) add("model", `${plural(r.variables, "variable")}, ${plural(r.constraints, "constraint")}${r.encoding && r.encoding !== "order" ? ` (${r.encoding})` : ""}`);
  if (r.presolve_status) add("presolve", `${plural(r.presolve_unknown_cells, "cell")} left, ${r.variables_before} → ${plural(r.variables_after, "variable")}`);
  // a time budget's run samples batch after batch: its reads over all batches, and p (with
  // TTS99) over the last batch's reads, the figures the record's statistics are made of
  const batches = r.info && Array.isArray(r.info.batches) && r.info.batches.length > 1 ? r.info.batches : null;
  if (r.reads != null) {
    const all = batches ? batches.reduce((n, b) => n + (b.reads || 0), 0) : r.reads;
    add("reads", batches ? `${plural(all, "read")} in ${batches.length} batches` : plural(r.reads, "read"));
  }
  if (r.energy != null) add("energy", r.energy === 0 ? "0 (every constraint met)" : `${r.energy} (the best read${batches ? " of all batches" : ""})`, TERMS.energy);
  if (r.success_probability != null) {
    const ok = Math.round(r.success_probability * r.reads);
    add("p", `${r.success_probability.toFixed(3)}: ${ok.toLocaleString("en")} of ${plural(r.reads, "read")}${batches ? " in the last batch" : ""} reached energy 0`, TERMS.p);
  }
  if (r.reads != null && r.success_probability != null) {
    const tts = r.tts99_s == null ? "∞ (no read succeeded)" : fmtS(r.tts99_s);
    const ci = r.tts99_s == null ? "" : `  [${r.tts99_low_s == null ? "?" : fmtS(r.tts99_low_s)} – ${r.tts99_high_s == null ? "∞" : fmtS(r.tts99_high_s)}]`;
    add("TTS99", tts + ci, TERMS.TTS99);
    $("#terms").hidden = false;
  }
}

function downloadPNG(run) {
  const p = run.puzzle || state.puzzle, cv = document.createElement("canvas");
  drawBoard(cv, p, { cells: run.first, clues: true, maxW: 24 * (p.width + 10), maxH: 24 * (p.height + 10), maxCell: 24 });
  cv.toBlob(b => download(`${run.stem}-${run.backend.name}.png`, b), "image/png");
}

function drawingVerdict(run) {
  const r = run.record;
  if (r.status === "solved" && r.unique === true) { state.boardMarks = null; note("Unique: these clues have exactly this picture.", "ok"); }
  else if (r.status === "solved" && r.unique === false) {
    const a = state.draw.cells, other = run.first && diffMarks(a, run.first).size ? run.first : run.second;
    state.boardMarks = diffMarks(a, other); state.boardOther = other;
    note(`Not unique: another picture fits the same clues; the insets show it in the ${state.boardMarks.size} cells that differ.`, "error");
  } else note(`No verdict: ${r.message || r.status}`, "error");
  renderBoard();
}

// ---- exports and sharing ------------------------------------------------------------------
const EXPORT_EXT = { text: "txt", non: "non", bqm: "bqm", qubo: "qubo", cqm: "cqm" };
async function exportModel(kind) {
  $("#download-menu").open = false;
  const text = state.mode === "draw" ? state.text : $("#clues").value;
  note(`Preparing the ${kind.toUpperCase()} file…`);
  const r = await fetch(`/api/export/${kind}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ puzzle: text, name: state.name }) });
  if (!r.ok) { let d = {}; try { d = await r.json(); } catch (e) { /* */ } note(d.error || `export failed (${r.status})`, "error"); return; }
  download(`${fileStem()}.${EXPORT_EXT[kind] || kind}`, await r.blob()); note("");
}

function share() {
  const text = state.mode === "draw" ? state.text : $("#clues").value;
  const url = `${location.origin}${location.pathname}#p=${b64url(text)}`;
  history.replaceState(null, "", url);
  $("#share-box").hidden = false; $("#share-url").value = url; $("#share-url").select();
  const done = () => { $("#share-note").textContent = "copied"; };
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(url).then(done, () => { $("#share-note").textContent = "copy it from the box"; });
}

function fromFragment() {
  const m = /[#&]p=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (!m) return false;
  try { loadText(unb64url(m[1]), "shared.txt"); return true; } catch (e) { return false; }
}

// ---- start ------------------------------------------------------------------------------
async function init() {
  for (const b of $$(".tab")) b.addEventListener("click", () => switchTab(b.dataset.tab));
  $("#clues").addEventListener("input", () => {
    // typed text is "clues.txt"; an uploaded file keeps its name (its extension picks the format)
    if (/\.txt$/i.test(state.name)) state.name = "clues.txt";
    if (state.mode === "clues") scheduleParse();
  });
  $("#file").addEventListener("change", e => readFile(e.target.files[0]));
  const drop = $("#input-card"), zone = $("#drop");
  drop.addEventListener("dragover", e => { e.preventDefault(); zone.classList.add("over"); });
  drop.addEventListener("dragleave", () => zone.classList.remove("over"));
  drop.addEventListener("drop", e => { e.preventDefault(); zone.classList.remove("over"); readFile(e.dataTransfer.files[0]); });
  $("#solve").addEventListener("click", solveAll);
  $("#cancel-all").addEventListener("click", () => { for (const r of state.runs.values()) cancelRun(r); });
  $("#hint").addEventListener("click", hint);
  $("#hint-reset").addEventListener("click", () => { resetHints(); showOnBoard(null, false); renderBoard(); });
  $("#share").addEventListener("click", share);
  for (const b of $$("[data-export]")) b.addEventListener("click", () => exportModel(b.dataset.export));
  $("#draw-new").addEventListener("click", () => newDrawing(Math.min(60, Math.max(1, +$("#draw-w").value || 10)), Math.min(60, Math.max(1, +$("#draw-h").value || 10))));
  $("#draw-clear").addEventListener("click", () => { state.draw.cells.forEach(r => r.fill(0)); drawingChanged(); });
  $("#draw-unique").addEventListener("click", uniqueCheck);
  $("#example").addEventListener("change", e => { const n = e.target.value; if (state.examples[n]) loadText(state.examples[n], n); });
  setupEditor();
  window.addEventListener("resize", () => { clearTimeout(state.resizeT); state.resizeT = setTimeout(renderBoard, 100); });

  // the examples come at once; the solvers' list may take seconds on the first visit after the
  // server starts (it imports every solver): each shows its own loading state meanwhile
  const solvers = api("/api/backends", undefined, "GET").then(bk => {
    const box = $("#backends"); box.removeAttribute("aria-busy");
    if (bk.ok) { state.backends = bk.data.backends; state.settings = bk.data.settings; renderBackends();
      const tl = $("#time-limit"); tl.max = state.settings.max_time_limit; tl.value = state.settings.time_limit; }
    else box.replaceChildren(el("p", { class: "status error", text: `Cannot list the solvers: ${bk.data.error || "no answer"}` }));
    updateSolve();
  });
  const ex = await api("/api/examples", undefined, "GET");
  const sel = $("#example"); sel.replaceChildren();
  if (ex.ok) {
    state.examples = ex.data.examples;
    sel.append(el("option", { value: "", text: "Examples…" }));
    for (const n of Object.keys(state.examples)) sel.append(el("option", { value: n, text: n.replace(/\.txt$/, "") }));
    // the formats the server reads (its format registry)
    if (ex.data.formats) $("#formats").textContent = [...new Set(ex.data.formats.flatMap((f) => f.extensions))].join(", ");
  } else sel.append(el("option", { value: "", text: "no examples" }));
  note("");
  if (!fromFragment()) {
    if (ex.ok) loadText(state.examples[ex.data.default] || "", ex.data.default);
    else { const st = $("#parse-status"); st.className = "status"; st.textContent = "Paste clues or open a file."; }
  }
  await solvers;
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", init);
