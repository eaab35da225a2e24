(function () {
  'use strict';
  var CLASSES = ['unknown', 'safe', 'safe', 'p-rule', 'p-request', 'p-freq', 'p-zero', 'p-single', 'p-single',
    'p-manual', 'protected', 'secondary', 'secondary', 'empty', 'empty'];
  var LABELS = ['Unknown', 'Safe', 'Safe (manual)', 'Unsafe', 'Unsafe (request)', 'Unsafe (freq)', 'Unsafe (zero cell)',
    'Unsafe (singleton)', 'Unsafe (singleton) (manual)', 'Unsafe (manual)', 'Protected', 'Secondary',
    'Secondary (from manual)', 'Empty (non-struct.)', 'Empty'];
  var MAX_CELLS = 20000; // cells drawn at once; more rows are paged

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }
  function hidden(s) { return s >= 3 && s <= 9 || s === 11 || s === 12; }

  function View(sec) {
    this.sec = sec;
    this.d = JSON.parse(sec.querySelector('script.data').textContent);
    var n = this.d.dims.length;
    this.stride = [];
    for (var k = n - 1, m = 1; k >= 0; k--) { this.stride[k] = m; m *= this.d.dims[k].codes.length; }
    this.row = 0; this.col = n > 1 ? 1 : -1; this.page = 0;
    this.fix = []; this.collapsed = [];
    for (var i = 0; i < n; i++) { this.fix.push(0); this.collapsed.push(this.initialCollapse(i)); }
    this.controls();
    this.render();
  }

  // initialCollapse folds the deeper levels of long code lists.
  View.prototype.initialCollapse = function (k) {
    var codes = this.d.dims[k].codes, c = {};
    if (codes.length <= 60) { return c; }
    for (var i = 1; i < codes.length; i++) { if (codes[i][1] >= 1 && this.hasChildren(k, i)) { c[i] = true; } }
    return c;
  };
  View.prototype.hasChildren = function (k, i) {
    var codes = this.d.dims[k].codes;
    return i + 1 < codes.length && codes[i + 1][2] === i;
  };
  View.prototype.visible = function (k) {
    var codes = this.d.dims[k].codes, col = this.collapsed[k], out = [];
    for (var i = 0; i < codes.length; i++) {
      var p = codes[i][2], shown = true;
      while (p >= 0) { if (col[p]) { shown = false; break; } p = codes[p][2]; }
      if (shown) { out.push(i); }
    }
    return out;
  };

  View.prototype.select = function (label, options, value, onchange) {
    var l = document.createElement('label'), s = document.createElement('select');
    l.textContent = label + ' ';
    options.forEach(function (o, i) {
      var op = document.createElement('option'); op.value = i; op.textContent = o; s.appendChild(op);
    });
    s.value = value;
    s.addEventListener('change', function () { onchange(+s.value); });
    l.appendChild(s);
    return l;
  };

  // controls draws the selectors: rows, columns and the code of every
  // other dimension (the slice).
  View.prototype.controls = function () {
    var self = this, box = this.sec.querySelector('.controls'), names = this.d.dims.map(function (x) { return x.name; });
    box.textContent = '';
    box.appendChild(this.select('Rows', names, this.row, function (v) { self.setAxes(v, self.col); }));
    if (names.length > 1) {
      box.appendChild(this.select('Columns', names, this.col, function (v) { self.setAxes(self.row, v); }));
    }
    box.appendChild(this.button('expand all', function () { self.fold(false); }));
    box.appendChild(this.button('fold all', function () { self.fold(true); }));
    this.d.dims.forEach(function (dim, k) {
      if (k === self.row || k === self.col) { return; }
      var labels = dim.codes.map(function (c) { return new Array(c[1] + 1).join('\u00a0\u00a0') + c[0]; });
      box.appendChild(self.select(dim.name, labels, self.fix[k], function (v) { self.fix[k] = v; self.render(); }));
    });
  };
  View.prototype.button = function (label, onclick) {
    var b = document.createElement('button');
    b.textContent = label;
    b.addEventListener('click', onclick);
    return b;
  };
  // fold folds (or unfolds) every code with children below the total, in
  // the rows and the columns.
  View.prototype.fold = function (on) {
    var self = this;
    [this.row, this.col].forEach(function (k) {
      if (k < 0) { return; }
      self.collapsed[k] = {};
      if (!on) { return; }
      for (var i = 1; i < self.d.dims[k].codes.length; i++) { if (self.hasChildren(k, i)) { self.collapsed[k][i] = true; } }
    });
    this.page = 0;
    this.render();
  };
  View.prototype.setAxes = function (r, c) {
    if (r === c) { c = this.row === r ? this.col : this.row; }
    this.row = r; this.col = c; this.page = 0;
    this.controls(); this.render();
  };

  View.prototype.cell = function (i) {
    var d = this.d, s = parseInt(d.st.charAt(i), 36), sh = d.sh.charAt(i), text, cls = CLASSES[s] || 'unknown';
    if (sh === 'v') { text = (+d.v[i]).toFixed(d.dec); } else if (sh === 'x') { text = 'x'; } else if (sh === 'i') {
      text = '[' + (+d.lo[i]).toFixed(d.dec) + '; ' + (+d.hi[i]).toFixed(d.dec) + ']';
    } else { text = '-'; }
    var title = LABELS[s] || 'Unknown';
    if (d.st2) {
      var s2 = parseInt(d.st2.charAt(i), 36), a = hidden(s), b = hidden(s2);
      cls = a && b ? 'c-both' : a ? 'c-a' : b ? 'c-b' : (cls === 'empty' ? 'empty' : 'safe');
      if (a && !b && d.sh2.charAt(i) === 'v') { text = (+d.v2[i]).toFixed(d.dec); }
      title = 'A: ' + title + ', B: ' + (LABELS[s2] || 'Unknown');
    }
    return '<td class="' + cls + '" title="' + esc(title) + '">' + esc(text) + '</td>';
  };

  View.prototype.header = function (k, i) {
    var c = this.d.dims[k].codes[i], t = '';
    if (this.hasChildren(k, i)) {
      t = '<button class="tg" data-dim="' + k + '" data-code="' + i + '">' + (this.collapsed[k][i] ? '\u25b8' : '\u25be') + '</button>';
    }
    return t + esc(c[0]);
  };

  // render draws the current slice: rows × columns at the fixed codes of
  // the other dimensions, one page of rows at a time.
  View.prototype.render = function () {
    var self = this, base = 0, k;
    for (k = 0; k < this.fix.length; k++) { if (k !== this.row && k !== this.col) { base += this.fix[k] * this.stride[k]; } }
    var rows = this.visible(this.row), cols = this.col >= 0 ? this.visible(this.col) : [-1];
    var per = Math.max(10, Math.floor(MAX_CELLS / cols.length)), pages = Math.ceil(rows.length / per);
    if (this.page >= pages) { this.page = Math.max(0, pages - 1); }
    var html = ['<table><thead><tr><th>' + esc(this.d.dims[this.row].name) + (this.col >= 0 ? ' \\ ' + esc(this.d.dims[this.col].name) : '') + '</th>'];
    cols.forEach(function (j) {
      html.push(j < 0 ? '<th>Value</th>' : '<th class="lv' + self.d.dims[self.col].codes[j][1] + '">' + self.header(self.col, j) + '</th>');
    });
    html.push('</tr></thead><tbody>');
    rows.slice(this.page * per, (this.page + 1) * per).forEach(function (i) {
      var lv = self.d.dims[self.row].codes[i][1];
      html.push('<tr><th class="row lv' + lv + '" style="padding-left:' + (0.4 + lv * 1.2) + 'em">' + self.header(self.row, i) + '</th>');
      cols.forEach(function (j) { html.push(self.cell(base + i * self.stride[self.row] + (j < 0 ? 0 : j * self.stride[self.col]))); });
      html.push('</tr>');
    });
    html.push('</tbody></table>');
    var grid = this.sec.querySelector('.grid');
    grid.innerHTML = this.pager(pages) + html.join('');
    grid.querySelectorAll('button.tg').forEach(function (b) {
      b.addEventListener('click', function () {
        var dk = +b.getAttribute('data-dim'), ci = +b.getAttribute('data-code');
        self.collapsed[dk][ci] = !self.collapsed[dk][ci];
        self.render();
      });
    });
    grid.querySelectorAll('button.pg').forEach(function (b) {
      b.addEventListener('click', function () { self.page += +b.getAttribute('data-step'); self.render(); });
    });
  };
  View.prototype.pager = function (pages) {
    if (pages <= 1) { return ''; }
    return '<div class="pager"><button class="pg" data-step="-1"' + (this.page === 0 ? ' disabled' : '') + '>previous rows</button> ' +
      'rows page ' + (this.page + 1) + ' of ' + pages +
      ' <button class="pg" data-step="1"' + (this.page + 1 >= pages ? ' disabled' : '') + '>next rows</button></div>';
  };

  function start() {
    document.querySelectorAll('section.tbl').forEach(function (sec) {
      try { new View(sec); } catch (e) { sec.querySelector('.grid').textContent = 'The grid could not be drawn: ' + e; }
    });
    document.body.setAttribute('data-rendered', 'yes');
    document.body.setAttribute('data-render-ms', String(Math.round(window.performance.now())));
  }
  // The summary is painted first; the grid after it.
  window.setTimeout(start, 0);
}());
