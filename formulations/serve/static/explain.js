// Explanations on the page (issue 43): "Why?" on a cell, a step-through of every deduction,
// the Hint button from the same trace, and the Draw view's difficulty report. Loaded after
// app.js and built on its page state (state, api, note, renderBoard, parsed, switchTab, cellAt).
// Everything from the server reaches the page as text (textContent, canvas), never as HTML.
"use strict";

const Explain = (() => {
  const ex = { key: null, data: null, pending: null, pos: 0 };
  const MAX_DRAWN = 8;  // placements drawn for a line step

  // ---- the trace, once per puzzle text ----------------------------------------------------
  function load(text, name) {
    if (ex.key === text && ex.data) return Promise.resolve(ex.data);
    if (ex.key === text && ex.pending) return ex.pending;
    ex.key = text; ex.data = null; ex.pos = 0;
    const pending = api("/api/explain", { puzzle: text, name }).then(r => {
      if (ex.pending === pending) ex.pending = null;
      if (!r.ok) { if (ex.key === text) ex.key = null; throw new Error(r.data.error || `the server answered ${r.status}`); }
      if (ex.key === text) ex.data = r.data;
      return r.data;
    });
    ex.pending = pending;
    return pending;
  }

  function reset() {
    ex.pos = 0;
    const t = $("#explain-text"); if (t) { t.textContent = ""; t.className = "note"; }
    const d = $("#explain-detail"); if (d) d.replaceChildren();
    const p = $("#explain-pos"); if (p) p.textContent = "";
  }

  // ---- words ------------------------------------------------------------------------------
  function puzzleNow() { return state.mode === "draw" && state.draw ? state.draw.puzzle : state.puzzle; }
  function clueOf(p, kind, idx) {
    const clue = (kind === "row" ? p.rows : p.columns)[idx] || [];
    return clue.map(b => String(b[0])).join(" ") || "0";
  }
  function valueName(p, v) {
    if (v === 0) return "empty";
    if (!p.colour) return "filled";
    const c = (p.palette || []).find(q => q.index === v);
    return c ? c.name : `colour ${v}`;
  }
  const cap = s => s.charAt(0).toUpperCase() + s.slice(1);
  const cellName = (i, j) => `r${i + 1}c${j + 1}`;
  const lineName = ([kind, idx]) => `${kind} ${idx + 1}`;
  const plural = (n, one, many) => `${n} ${n === 1 ? one : (many || one + "s")}`;

  function counted(p, cells) {
    const by = new Map();
    for (const [, , v] of cells) by.set(v, (by.get(v) || 0) + 1);
    return [...by.entries()].sort((a, b) => (a[0] === 0) - (b[0] === 0) || a[0] - b[0])
      .map(([v, n]) => `${n} ${valueName(p, v)}`).join(" and ");
  }

  function lineText(p, s) {
    const fit = s.placements === undefined ? "every placement that fits the known cells agrees"
      : s.placements === 1 ? "only one placement fits the known cells"
        : `all ${s.placements} placements that fit the known cells agree`;
    return `${cap(lineName(s.line))} (clue ${clueOf(p, ...s.line)}): ${counted(p, s.cells)} ` +
      `cell${s.cells.length > 1 ? "s follow" : " follows"} from this line: ${fit}.`;
  }

  function describe(p, s) {
    if (s.rule === "line") return lineText(p, s);
    const [i, j, v] = s.cells[0];
    if (s.rule === "probe") {
      const [, , a] = s.assume;
      return `Probe ${cellName(i, j)}: if it were ${valueName(p, a)}, ${plural(s.chain.length, "line step")} ` +
        `would leave ${lineName(s.contradiction)} (clue ${clueOf(p, ...s.contradiction)}) with no placement, ` +
        `so ${cellName(i, j)} is ${valueName(p, v)}.`;
    }
    return `Guess ${cellName(i, j)}: ${valueName(p, v)}. Line steps and probes are exhausted here; ` +
      "this is the cell's value in a solution, and the explanation follows that branch.";
  }

  // ---- placements of a line (enumerated here, for drawing) --------------------------------
  function placements(clue, n, known, limit) {
    const out = [];
    const rec = (k, pos, prefix) => {
      if (out.length >= limit) return;
      if (k === clue.length) {
        for (let q = pos; q < n; q++) if (known[q] > 0) return;
        out.push(prefix.concat(new Array(n - pos).fill(0))); return;
      }
      const [len, colour] = clue[k];
      let need = 0;
      for (let t = k; t < clue.length; t++) need += clue[t][0] + (t + 1 < clue.length && clue[t + 1][1] === clue[t][1] ? 1 : 0);
      for (let start = pos; start + need <= n; start++) {
        if (start > pos && known[start - 1] > 0) break;
        let ok = true;
        for (let q = start; q < start + len; q++) if (known[q] !== -1 && known[q] !== colour) { ok = false; break; }
        if (!ok) continue;
        const seg = new Array(start - pos).fill(0).concat(new Array(len).fill(colour));
        let end = start + len;
        if (k + 1 < clue.length && clue[k + 1][1] === colour) {
          if (known[end] > 0) continue;
          seg.push(0); end++;
        }
        rec(k + 1, end, prefix.concat(seg));
        if (out.length >= limit) return;
      }
    };
    rec(0, 0, []);
    return out;
  }

  function drawPlacements(p, s, board) {
    const [kind, idx] = s.line, n = kind === "row" ? p.width : p.height;
    const clue = (kind === "row" ? p.rows : p.columns)[idx] || [];
    const known = [], mine = new Set();
    for (let q = 0; q < n; q++) known.push(kind === "row" ? board[idx][q] : board[q][idx]);
    for (const [i, j] of s.cells) mine.add(kind === "row" ? j : i);
    const shown = placements(clue, n, known, MAX_DRAWN);
    const cs = Math.max(6, Math.min(16, Math.floor(520 / n))), pal = paletteMap(p);
    const cv = el("canvas", { id: "explain-placements", "aria-label": "placements of the line" });
    const W = n * cs + 2, H = shown.length * (cs + 4) + 2, dpr = window.devicePixelRatio || 1;
    cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr);
    cv.style.width = `${W}px`; cv.style.height = `${H}px`;
    const g = cv.getContext("2d"); g.setTransform(dpr, 0, 0, dpr, 0, 0);
    shown.forEach((pl, r) => {
      const y = 1 + r * (cs + 4);
      pl.forEach((v, q) => {
        g.fillStyle = v > 0 ? (pal.get(v) || "#888888") : "#ffffff"; g.fillRect(1 + q * cs, y, cs, cs);
        g.strokeStyle = "#d3d7e0"; g.lineWidth = 1; g.strokeRect(1 + q * cs + 0.5, y + 0.5, cs - 1, cs - 1);
      });
      g.strokeStyle = "#f07000"; g.lineWidth = 2;
      for (const q of mine) g.strokeRect(1 + q * cs + 1, y + 1, cs - 2, cs - 2);
    });
    const total = s.placements === undefined ? shown.length : s.placements;
    const cap_ = el("div", { class: "muted", text: total > shown.length
      ? `The first ${shown.length} of the ${total} placements that fit (the decided cells outlined: every placement agrees on them).`
      : `The ${plural(total, "placement")} that fit${total === 1 ? "s" : ""} (the decided cells outlined).` });
    return [cap_, cv];
  }

  // ---- showing one step on the board ------------------------------------------------------
  function boardAfter(p, steps, k) {
    const b = Array.from({ length: p.height }, () => new Array(p.width).fill(-1));
    for (let t = 0; t < k; t++) for (const [i, j, v] of steps[t].cells) b[i][j] = v;
    return b;
  }

  function show(k, prefix = "") {
    const d = ex.data, p = state.puzzle;
    if (!d || !p) return;
    const steps = d.explanation.steps;
    ex.pos = Math.max(0, Math.min(steps.length, k));
    if (typeof showOnBoard === "function") showOnBoard(null, false);  // the board shows the steps, not a card
    state.hintKnown = boardAfter(p, steps, ex.pos);
    state.boardOther = null;
    const text = $("#explain-text"), detail = $("#explain-detail");
    detail.replaceChildren();
    $("#explain-pos").textContent = `step ${ex.pos} of ${steps.length}`;
    if (ex.pos === 0) {
      state.hintLine = null; state.boardMarks = null;
      text.textContent = "Before the first step: nothing is decided."; text.className = "note";
    } else {
      const s = steps[ex.pos - 1];
      state.boardMarks = new Set(s.cells.map(([i, j]) => `${i},${j}`));
      text.textContent = prefix + describe(p, s); text.className = "note hint";
      if (s.rule === "line") {
        state.hintLine = { kind: s.line[0], index: s.line[1] };
        detail.append(...drawPlacements(p, s, boardAfter(p, steps, ex.pos - 1)));
      } else if (s.rule === "probe") {
        state.boardMarks.add(`${s.assume[0]},${s.assume[1]}`);
        state.hintLine = { kind: s.contradiction[0], index: s.contradiction[1], colour: "#c23a2b" };
        const ol = el("ol", { class: "explain-chain" });
        ol.append(el("li", { text: `Assume ${cellName(s.assume[0], s.assume[1])} is ${valueName(p, s.assume[2])}.` }));
        for (const c of s.chain) ol.append(el("li", { text: lineText(p, c) }));
        ol.append(el("li", { text: `Then ${lineName(s.contradiction)} (clue ${clueOf(p, ...s.contradiction)}) has no placement.` }));
        detail.append(ol);
      } else state.hintLine = null;
    }
    if (ex.pos === steps.length) {
      if (d.explanation.status === "infeasible" && d.explanation.contradiction) {
        const c = d.explanation.contradiction;
        state.hintLine = { kind: c[0], index: c[1], colour: "#c23a2b" };
        text.textContent = `${ex.pos ? text.textContent + " " : ""}Then no placement fits ${lineName(c)} (clue ${clueOf(p, ...c)}): the puzzle has no solution.`;
        text.className = "note error";
      } else if (d.explanation.status === "unknown") {
        text.textContent += " (The explanation stopped at this server's time limit here.)";
      }
    }
    renderBoard();
  }

  async function ready() {
    if (state.mode === "draw") switchTab("clues");
    await parsed();
    if (state.parseError) { note(`Cannot read the puzzle: ${state.parseError.error || "see above"}`, "error"); return null; }
    if (!state.puzzle) { note("Enter a puzzle first.", "error"); return null; }
    const text = state.text, seq = state.hintSeq;
    $("#explain-text").textContent = "Explaining…"; $("#explain-text").className = "note";
    try {
      const d = await load(text, state.name);
      if (seq !== state.hintSeq || text !== state.text) return null;
      return d;
    } catch (e) {
      $("#explain-text").textContent = e.message; $("#explain-text").className = "note error";
      return null;
    }
  }

  async function step(delta) { if (await ready()) show(ex.pos + delta); }
  async function all() { const d = await ready(); if (d) show(d.explanation.steps.length); }

  async function why(i, j) {
    const d = await ready();
    if (!d) return;
    const steps = d.explanation.steps;
    const k = steps.findIndex(s => s.cells.some(c => c[0] === i && c[1] === j));
    if (k < 0) { $("#explain-text").textContent = `${cellName(i, j)} is not decided by the explanation.`; return; }
    const v = steps[k].cells.find(c => c[0] === i && c[1] === j)[2];
    show(k + 1, `Why is ${cellName(i, j)} ${valueName(state.puzzle, v)}? Step ${k + 1}: `);
  }

  // Hint: the first step whose cells the board does not show yet, with its reason
  async function nextHint() {
    if (state.mode === "draw") switchTab("clues");
    if (typeof showOnBoard === "function") showOnBoard(null);  // back to the hints' cells
    await parsed();
    if (state.parseError) { note(`Cannot read the puzzle: ${state.parseError.error || "see above"}`, "error"); return; }
    if (!state.puzzle) { note("Enter a puzzle first.", "error"); return; }
    const seq = state.hintSeq, text = state.text, p = state.puzzle;
    let d;
    try { d = await load(text, state.name); } catch (e) { if (seq === state.hintSeq) note(e.message, "error"); return; }
    if (seq !== state.hintSeq) return;
    const steps = d.explanation.steps, known = state.hintKnown;
    const k = steps.findIndex(s => s.cells.some(([i, j, v]) => known[i][j] !== v));
    state.boardOther = null;
    if (k >= 0) {
      const s = steps[k];
      for (const [i, j, v] of s.cells) known[i][j] = v;
      state.boardMarks = new Set(s.cells.map(([i, j]) => `${i},${j}`));
      if (s.rule === "line") state.hintLine = { kind: s.line[0], index: s.line[1] };
      else if (s.rule === "probe") state.hintLine = { kind: s.contradiction[0], index: s.contradiction[1], colour: "#c23a2b" };
      else state.hintLine = null;
      ex.pos = k + 1;
      note(describe(p, s), "hint");
    } else {
      state.boardMarks = null;
      const c = d.explanation.contradiction;
      if (d.explanation.status === "solved") { state.hintLine = null; note("Every cell is decided: the puzzle is solved.", "ok"); }
      else if (c) {
        state.hintLine = { kind: c[0], index: c[1], colour: "#c23a2b" };
        note(`Contradiction: no placement fits ${lineName(c)} (clue ${clueOf(p, ...c)}).`, "error");
      } else note("The explanation stopped at this server's time limit here.", "error");
    }
    renderBoard();
  }

  // ---- the Draw view's report -------------------------------------------------------------
  async function report() {
    const box = $("#draw-report"), text = state.text, p = state.draw && state.draw.puzzle;
    if (!p) return;
    box.className = "status pending"; box.textContent = "Rating…";
    let d;
    try { d = await load(text, state.name); } catch (e) { box.className = "status error"; box.textContent = e.message; return; }
    if (text !== state.text || state.mode !== "draw") return;
    const f = d.explanation.difficulty, st = d.explanation.status;
    box.replaceChildren();
    if (st !== "solved") {
      box.className = "status error";
      box.textContent = st === "infeasible" ? "No picture fits these clues." : "Not rated: the explanation stopped at this server's time limit.";
      return;
    }
    box.className = "status ok";
    box.append(el("b", { text: `Level ${f.level} of 5: ${f.label}.` }), " ",
      el("span", { text: `Line-solvable: ${f.line_solvable ? "yes" : "no"}; ${plural(f.line_steps, "line step")}, ` +
        `${plural(f.probe_steps, "probe")} (longest chain ${f.max_chain}), ${plural(f.guesses, "guess", "guesses")}.` }));
    if (f.beyond_lines.length) {
      box.append(" ", el("span", { text: `The ${plural(f.beyond_lines.length, "marked cell")} need${f.beyond_lines.length === 1 ? "s" : ""} more than line logic.` }));
      state.boardMarks = new Set(f.beyond_lines.map(([i, j]) => `${i},${j}`)); state.boardOther = null;
    } else state.boardMarks = null;
    if (f.guesses) box.append(" ", el("span", { text: "A guess means line logic and probes ran out: the clues may have more than one picture (Is it unique? tells)." }));
    renderBoard();
  }

  // ---- the page's parts -------------------------------------------------------------------
  function build() {
    const card = el("section", { class: "card", id: "explain-card" },
      el("h2", { text: "Explanation" }),
      el("div", { class: "row" },
        el("button", { id: "explain-prev", title: "The step before", text: "◀ Previous", onclick: () => step(-1) }),
        el("button", { id: "explain-next", title: "The next step, its cells outlined", text: "Next ▶", onclick: () => step(1) }),
        el("span", { id: "explain-pos", class: "muted" }),
        el("button", { id: "explain-all", title: "Every step: the solved board (then click a cell: why?)", text: "Show all", onclick: all })),
      el("p", { id: "explain-text", class: "note", role: "status" }),
      el("div", { id: "explain-detail", class: "explain-detail" }),
      el("p", { class: "help", text: "Click a cell of the board: \u201cWhy?\u201d shows the step that decided it, the line and its placements." }));
    $(".board-card").after(card);
    const unique = $("#draw-unique");
    unique.after(el("button", { id: "draw-difficulty", class: "wide", text: "How hard is it?", onclick: report }),
      el("div", { id: "draw-report", class: "status", role: "status" }));
    $("#board").addEventListener("pointerdown", () => {  // an edited drawing's report is stale
      if (state.mode === "draw") { const r = $("#draw-report"); r.textContent = ""; r.className = "status"; }
    });
    $("#board").addEventListener("click", ev => {
      if (state.mode === "draw") return;
      const c = cellAt(ev);
      if (c) why(c[0], c[1]);
    });
  }

  document.addEventListener("DOMContentLoaded", build);
  return { load, reset, nextHint, why, step, all, report, describe, placements };
})();
