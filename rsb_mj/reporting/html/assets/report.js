/* rsb_mj report page: sortable tables and the episode browser. Plain JavaScript, inlined into
   report.html; it reads the episodes from <script id="rsb-episodes"> and fetches nothing. */
(function () {
  "use strict";

  var PAGE = 50; /* rows shown at once: each filter change lays out only these */
  var NUMERIC = { index: 1, grasp_step: 1, success_step: 1, steps: 1, cost: 1, wall_s: 1, seed: 1 };
  /* [column, label]: the filters, in the order shown ("run", "family" and "task" only when
     they tell rows apart: several run folders, question and goal tasks, goal task files). */
  var FILTERS = [
    ["run", "run"], ["family", "task kind"], ["label", "row (policy)"], ["suite", "suite"],
    ["task", "task file"], ["level", "level"], ["variant", "instruction"],
    ["perturbation", "perturbation"], ["outcome", "outcome"], ["kind", "failure reason"],
    ["choice", "choice"], ["verdict", "choice vs answer"]
  ];
  var OPTIONAL = { run: 1, family: 1, task: 1 };
  /* [column, header, width in px] (the table's layout is fixed: no measuring of cells);
     "#" is the row number; the task column only when goal tasks are among the episodes. */
  var SHOWN = [
    ["label", "row", 160], ["suite", "suite", 120], ["task", "task", 220], ["level", "level", 44],
    ["index", "episode", 70], ["variant", "instruction", 96], ["perturbation", "perturbation", 88],
    ["outcome", "outcome", 112], ["choice", "choice / answer", 104],
    ["reason", "failure reason", 250], ["grasp_step", "grasp step", 72], ["steps", "steps", 52],
    ["cost", "cost", 52]
  ];

  function esc(value) {
    return String(value === null || value === undefined ? "" : value)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  /* ---- sortable report tables ---- */
  function cellKey(text) {
    var n = parseFloat(text);
    return isNaN(n) ? null : n;
  }

  function sortTable(table, col, th) {
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col].textContent, y = b.cells[col].textContent;
      var nx = cellKey(x), ny = cellKey(y);
      if (nx !== null && ny !== null) return dir * (nx - ny);
      if (nx !== null) return -1; /* "-" and "withheld" sort last either way */
      if (ny !== null) return 1;
      return dir * (x < y ? -1 : x > y ? 1 : 0);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortTable(table, col, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter") sortTable(table, col, th);
      });
    });
  });

  /* ---- episode browser ---- */
  var source = document.getElementById("rsb-episodes");
  if (!source) return;
  var raw = JSON.parse(source.textContent);
  var C = {};
  raw.columns.forEach(function (c, i) { C[c] = i; });
  var rows = raw.rows, media = raw.media, N = rows.length;
  /* Columns and filters of one task kind only: left out when no episode is of that kind. */
  var hasGoals = rows.some(function (r) { return r[C.family] === "goal"; });
  var hasQuestions = rows.some(function (r) { return r[C.family] === "question"; });
  var QUESTION_ONLY = { choice: 1, verdict: 1, grasp_step: 1 };
  function kept(s) {
    return (hasGoals || s[0] !== "task") && (hasQuestions || !QUESTION_ONLY[s[0]]);
  }
  SHOWN = SHOWN.filter(kept);
  FILTERS = FILTERS.filter(kept);

  /* Integer codes per filter column: filtering compares integers, not strings. */
  var codes = {}, values = {}, counts = {};
  FILTERS.forEach(function (f) {
    var col = f[0], map = new Map(), arr = new Int32Array(N), cnt = [];
    for (var i = 0; i < N; i++) {
      var v = String(rows[i][C[col]]);
      var k = map.get(v);
      if (k === undefined) { k = map.size; map.set(v, k); cnt.push(0); }
      arr[i] = k;
      cnt[k]++;
    }
    codes[col] = arr;
    values[col] = Array.from(map.keys());
    counts[col] = cnt;
  });
  var haystack = null; /* lower-cased search text per row, built on the first search */

  var state = { filters: {}, search: "", sort: null, dir: 1, page: 0 };
  var current = [];
  var selected = -1;
  var api = { rows: N, lastFilterMs: null, visible: function () { return current.slice(); } };
  window.rsbReport = api;

  var filtersEl = document.getElementById("ep-filters");
  var statusEl = document.getElementById("ep-status");
  var table = document.getElementById("ep-table");
  var tbody = table.tBodies[0];
  var pager = document.getElementById("ep-pager");
  var detail = document.getElementById("ep-detail");

  function buildFilters() {
    var html = [];
    FILTERS.forEach(function (f) {
      var col = f[0], vals = values[col];
      if (OPTIONAL[col] && vals.length < 2) return;
      var order = vals.map(function (v, k) { return k; }).sort(function (a, b) {
        return vals[a] < vals[b] ? -1 : vals[a] > vals[b] ? 1 : 0;
      });
      var opts = ['<option value="-1">all (' + N.toLocaleString("en") + ")</option>"];
      order.forEach(function (k) {
        opts.push('<option value="' + k + '">' + esc(vals[k]) + " (" +
          counts[col][k].toLocaleString("en") + ")</option>");
      });
      html.push('<label>' + esc(f[1]) + '<select data-filter="' + col + '">' + opts.join("") +
        "</select></label>");
    });
    html.push('<label>search (instruction, reason, question, task)<input type="search" ' +
      'id="ep-search" placeholder="text"></label>');
    html.push('<button type="button" id="ep-reset">reset</button>');
    filtersEl.innerHTML = html.join("");
    Array.prototype.forEach.call(filtersEl.querySelectorAll("select"), function (sel) {
      sel.addEventListener("change", function () {
        var k = parseInt(sel.value, 10);
        if (k < 0) delete state.filters[sel.dataset.filter];
        else state.filters[sel.dataset.filter] = k;
        apply();
      });
    });
    document.getElementById("ep-search").addEventListener("input", function (e) {
      state.search = e.target.value.trim().toLowerCase();
      apply();
    });
    document.getElementById("ep-reset").addEventListener("click", function () {
      state.filters = {};
      state.search = "";
      Array.prototype.forEach.call(filtersEl.querySelectorAll("select"), function (s) {
        s.value = "-1";
      });
      document.getElementById("ep-search").value = "";
      apply();
    });
  }

  function buildHead() {
    var head = table.tHead.rows[0];
    head.innerHTML = '<th style="width:52px">#</th>' + SHOWN.map(function (s) {
      return '<th data-col="' + s[0] + '" tabindex="0" style="width:' + s[2] + 'px">' +
        esc(s[1]) + "</th>";
    }).join("");
    Array.prototype.forEach.call(head.cells, function (th) {
      if (!th.dataset.col) return;
      function go() {
        var col = th.dataset.col;
        state.dir = state.sort === col ? -state.dir : 1;
        state.sort = col;
        Array.prototype.forEach.call(head.cells, function (c) { c.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", state.dir === 1 ? "ascending" : "descending");
        apply();
      }
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") go(); });
    });
  }

  function search(i) {
    if (haystack === null) {
      haystack = new Array(N);
      for (var j = 0; j < N; j++) {
        var r = rows[j];
        haystack[j] = [r[C.instruction], r[C.reason], r[C.question_id], r[C.text] || "",
          r[C.error] || "", r[C.goal] ? r[C.goal].file : ""].join("\n").toLowerCase();
      }
    }
    return haystack[i].indexOf(state.search) !== -1;
  }

  function compare(col, dir) {
    var c = C[col];
    if (NUMERIC[col]) {
      return function (a, b) {
        var x = rows[a][c], y = rows[b][c];
        if (x === null) return y === null ? a - b : 1; /* missing values last */
        if (y === null) return -1;
        return dir * (x - y) || a - b;
      };
    }
    return function (a, b) {
      var x = String(rows[a][c]), y = String(rows[b][c]);
      return dir * (x < y ? -1 : x > y ? 1 : 0) || a - b;
    };
  }

  function apply() {
    var t0 = performance.now();
    var active = Object.keys(state.filters);
    var arrs = active.map(function (col) { return codes[col]; });
    var want = active.map(function (col) { return state.filters[col]; });
    var m = active.length, out = [];
    outer: for (var i = 0; i < N; i++) {
      for (var f = 0; f < m; f++) if (arrs[f][i] !== want[f]) continue outer;
      if (state.search && !search(i)) continue;
      out.push(i);
    }
    if (state.sort) out.sort(compare(state.sort, state.dir));
    current = out;
    state.page = 0;
    render();
    api.lastFilterMs = performance.now() - t0;
  }

  function outcomeCell(r) {
    return '<span class="o-' + esc(r[C.outcome]) + '">' + esc(r[C.outcome]) + "</span>";
  }

  function choiceCell(r) {
    if (r[C.goal]) return "-"; /* a goal task asks no question */
    return '<span class="v-' + esc(r[C.verdict]) + '">' + esc(r[C.choice]) + "</span> / " +
      esc(r[C.correct]);
  }

  function dash(value) {
    return esc(value === null || value === undefined ? "-" : value);
  }

  /* The table cell of column ``col`` of row ``r``. */
  function cell(col, r) {
    if (col === "index") return "<td>" + esc(r[C.split]) + " " + r[C.index] + "</td>";
    if (col === "outcome") return "<td>" + outcomeCell(r) + "</td>";
    if (col === "choice") return "<td>" + choiceCell(r) + "</td>";
    if (col === "reason") {
      return '<td class="reason" title="' + esc(r[C.reason]) + '">' + esc(r[C.reason]) + "</td>";
    }
    if (col === "task" && r[C.goal]) {
      return '<td title="' + esc(r[C.goal].file) + '">' + esc(r[C.task]) + "</td>";
    }
    return "<td>" + dash(r[C[col]]) + "</td>";
  }

  function render() {
    var pages = Math.max(1, Math.ceil(current.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    var start = state.page * PAGE, end = Math.min(current.length, start + PAGE);
    var html = [];
    for (var p = start; p < end; p++) {
      var i = current[p], r = rows[i];
      html.push('<tr data-row="' + i + '"' + (i === selected ? ' class="selected"' : "") +
        "><td>" + (p + 1) + "</td>" + SHOWN.map(function (s) { return cell(s[0], r); })
        .join("") + "</tr>");
    }
    tbody.innerHTML = html.join("");
    statusEl.textContent = current.length.toLocaleString("en") + " of " +
      N.toLocaleString("en") + " episodes" + (current.length ? "; showing " + (start + 1) +
      "-" + end : "");
    pager.innerHTML = '<button type="button" data-go="-1"' + (state.page ? "" : " disabled") +
      ">previous</button><span>page " + (state.page + 1) + " of " + pages +
      '</span><button type="button" data-go="1"' + (state.page + 1 < pages ? "" : " disabled") +
      ">next</button>";
  }

  pager.addEventListener("click", function (e) {
    var go = e.target.getAttribute && e.target.getAttribute("data-go");
    if (!go) return;
    state.page += parseInt(go, 10);
    render();
  });

  tbody.addEventListener("click", function (e) {
    var tr = e.target.closest("tr[data-row]");
    if (tr) show(parseInt(tr.getAttribute("data-row"), 10));
  });

  var twins = null; /* (suite, level, split, index, variant) -> row numbers */
  function keyOf(r) {
    return [r[C.suite], r[C.task], r[C.level], r[C.split], r[C.index], r[C.variant]]
      .join("\u0001");
  }

  function item(name, value) {
    return "<dt>" + esc(name) + "</dt><dd>" + value + "</dd>";
  }

  function show(i) {
    selected = i;
    var r = rows[i];
    Array.prototype.forEach.call(tbody.rows, function (tr) {
      tr.classList.toggle("selected", tr.getAttribute("data-row") === String(i));
    });
    if (twins === null) {
      twins = new Map();
      for (var j = 0; j < N; j++) {
        var k = keyOf(rows[j]);
        if (!twins.has(k)) twins.set(k, []);
        twins.get(k).push(j);
      }
    }
    var g = r[C.goal];
    var h = ['<button type="button" class="close" id="ep-close">close</button>',
      "<h3>" + esc(r[C.label]) + " &middot; " + esc(g ? r[C.task] : r[C.suite]) + " " +
      esc(r[C.level] === "-" ? "" : r[C.level]) + " &middot; " + esc(r[C.split]) + " row " +
      r[C.index] + "</h3>",
      '<div class="instruction">' + esc(r[C.instruction]) + "</div><dl>",
      item("outcome", outcomeCell(r))];
    if (g) {
      h.push(item("task file", esc(g.file)), item("suite", esc(r[C.suite])),
        item("tier", dash(g.tier)), item("predicates", dash(g.semantics)),
        item("objects", dash(g.objects)), item("failure class", esc(r[C.kind])));
    } else {
      h.push(item("choice / answer", choiceCell(r) + " (" +
        esc(r[C.chosen] || "nothing grasped") + " / " + esc(r[C.target]) + ")"));
    }
    h.push(item("failure reason", esc(r[C.reason] || "-")));
    if (!g) {
      h.push(item("grasped, in order", esc((r[C.grasped_candidates] || []).join(", ") || "-")),
        item("in zone at the end", esc((r[C.in_zone] || []).join(", ") || "-")),
        item("grasp step", dash(r[C.grasp_step])));
    }
    h.push(item("success step", dash(r[C.success_step])),
      item("steps", r[C.steps] + " of " + r[C.max_steps]),
      item("instruction variant", esc(r[C.variant])),
      item("perturbation", esc(r[C.perturbation])),
      item("cost", dash(r[C.cost])));
    var terms = r[C.cost_terms];
    if (terms) {
      Object.keys(terms).forEach(function (t) {
        var v = terms[t];
        h.push(item("cost term " + t, esc(v.kind + ": " + v.violations + " violations, cost " +
          v.cost)));
      });
    }
    if (r[C.text]) {
      h.push(item("text", esc(r[C.text])));
      h.push(item("text names", esc(r[C.text_choice] || "-")));
    }
    var a2a = r[C.a2a];
    if (a2a) {
      h.push(item("A2A item", esc(a2a.item + " (" + a2a.category + ", " + a2a.layout + ")")));
      h.push(item("chosen side", esc(a2a.chosen_side || "-")));
    }
    if (r[C.error]) h.push(item("error", esc(r[C.error])));
    h.push(item("seed", esc(r[C.seed])));
    if (!g) h.push(item("question", esc(r[C.question_id])));
    h.push(item("wall time", esc(r[C.wall_s]) + " s"), item("run", esc(r[C.run])), "</dl>");
    var m = r[C.media] === null ? null : media[r[C.media]];
    if (m) {
      h.push("<h4>Head camera</h4>");
      if (m.frames.length) {
        h.push('<div class="strip">' + m.frames.map(function (f) {
          return '<figure><img alt="step ' + f[0] + '" src="' + f[1] + '"><figcaption>step ' +
            f[0] + "</figcaption></figure>";
        }).join("") + "</div>");
      }
      h.push('<p><a class="link" href="' + esc(m.video) + '">video: ' + esc(m.file) +
        "</a> (an MP4 in the run folder, not in this page: the link holds while the page " +
        "stays in its report folder)</p>");
    }
    var others = (twins.get(keyOf(r)) || []).filter(function (j) { return j !== i; });
    if (others.length) {
      h.push("<h4>The same episode in the other rows</h4><dl>");
      others.forEach(function (j) {
        var o = rows[j];
        h.push(item(o[C.label], '<a class="link" data-show="' + j + '">' + outcomeCell(o) +
          "</a>, " + choiceCell(o)));
      });
      h.push("</dl>");
    }
    detail.innerHTML = h.join("");
    detail.hidden = false;
  }

  detail.addEventListener("click", function (e) {
    if (e.target.id === "ep-close") {
      detail.hidden = true;
      selected = -1;
      render();
      return;
    }
    var a = e.target.closest("[data-show]");
    if (a) show(parseInt(a.getAttribute("data-show"), 10));
  });

  buildFilters();
  buildHead();
  apply();
})();
