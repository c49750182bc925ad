/*
 * faircode views: render a profile result (SPEC section 6) or a comparison (section 8)
 * into DOM. One renderer for the website (site/index.html) and for the self-contained
 * report of `faircode profile FILE --html OUT` / `faircode compare A B --html OUT`.
 *
 * Every text that comes from the data (labels, column names, flags) goes into the DOM
 * as text (createTextNode / textContent), inside <bdi> so a bidi override (U+202E)
 * cannot reorder the text around it; no innerHTML, no attribute built from data other
 * than data-* attributes (set through dataset, which cannot run script). Widths are set
 * through the CSSOM (element.style), which a Content-Security-Policy without
 * 'unsafe-inline' allows. Dependency-free; a classic script defining `FaircodeViews`.
 *
 *   FaircodeViews.renderProfile(result, {name}) -> HTMLElement
 *   FaircodeViews.renderCompare(result, {nameA, nameB}) -> HTMLElement
 */
(function (root) {
  'use strict';

  const SVG = 'http://www.w3.org/2000/svg';

  /** h('div', {className, dataset, attrs}, child...) with text children as text nodes. */
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    if (props) {
      if (props.className) el.className = props.className;
      if (props.dataset) for (const [k, v] of Object.entries(props.dataset)) el.dataset[k] = String(v);
      if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) el.setAttribute(k, String(v));
      if (props.title !== undefined) el.title = String(props.title);
    }
    append(el, children);
    return el;
  }

  function append(el, children) {
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else if (typeof c === 'string' || typeof c === 'number') el.appendChild(document.createTextNode(String(c)));
      else el.appendChild(c);
    }
  }

  // Controls, bidi and invisible characters (as faircode/safetext.py): shown as visible
  // escapes, so a U+202E cannot make 'evil' read 'live', nor U+2028 hide a line break,
  // nor a zero-width joiner or NBSP make two groups both read 'Male'. The exact text
  // stays in data-* attributes and the JSON.
  const UNSAFE = new RegExp('[\\x00-\\x1f\\x7f-\\xa0\\xad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2' +
    '\\u115f\\u1160\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u2064\\u2066-\\u206f' +
    '\\u3000\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb\\u{110bd}\\u{110cd}\\u{13430}-\\u{1343f}' +
    '\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0001}\\u{e0020}-\\u{e007f}]', 'gu');
  const NAMED = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

  function shown(text) {
    return String(text).replace(UNSAFE, (ch) => {
      if (NAMED[ch]) return NAMED[ch];
      const code = ch.codePointAt(0);
      if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
      return code < 0x10000 ? `\\u${code.toString(16).padStart(4, '0')}`
        : `\\U${code.toString(16).padStart(8, '0')}`;
    });
  }

  /** Text from the data: as text (never parsed), escapes for controls, bidi-isolated. */
  function data(text, className) {
    const b = document.createElement('bdi');
    if (className) b.className = className;
    b.textContent = shown(text);
    return b;
  }

  /** fmt(x, dp) of SPEC 13: integer arithmetic, ties up; never toFixed, which rounds
   * ties differently (the HTML report holds no engine, so the views keep their twin;
   * tests/js/views-format.test.js checks it equals the engine's). */
  function fmt(x, dp) {
    const f = [1, 10, 100, 1000, 10000][dp];
    const t = Math.floor(x * f + 0.5);
    const a = Math.abs(t);
    const r = a % f;
    const whole = (t < 0 ? '-' : '') + String((a - r) / f);
    return dp === 0 ? whole : whole + '.' + String(r).padStart(dp, '0');
  }

  /** SPEC 13's P(x) without its sign: the digits of x's 4-dp rounding as a percentage with
   * two decimals (the engine's pct), so the page shows JSON's number, rounded once. */
  function pctDigits(x) {
    const t = Math.floor(x * 10000 + 0.5);
    const a = Math.abs(t);
    const r = a % 100;
    return (t < 0 ? '-' : '') + String((a - r) / 100) + '.' + String(r).padStart(2, '0');
  }

  function pct(x) {
    if (x === null || x === undefined) return 'n/a';
    return pctDigits(x) + '%';
  }

  /** The engine's pctNotZero (SPEC 8): `<0.01` for a value known not to be 0 (sign its
   * sign, else 0) whose digits read 0.00, so one row of 30,000 is not "0.00%"; `>99.99`
   * for a share known to be below 1 (belowOne) whose digits read 100.00. */
  function pctNotZero(x, sign, belowOne = false) {
    const t = pctDigits(x);
    if (sign && t === '0.00') return sign < 0 ? '-<0.01' : '<0.01';
    if (belowOne && t === '100.00') return '>99.99';
    return t;
  }

  /** numerics.py share_text: `P(x)%` of a share or rate count / n, `<0.01%` or `>99.99%`
   * where it would read 0.00% or 100.00% but some rows are in and some out (SPEC 8, 9). */
  function shareText(x, count, n) {
    return pctNotZero(x, count > 0 ? 1 : 0, count < n) + '%';
  }

  /** numerics.py compare_group_cells: a compared group's A, B and change as shown (SPEC 8):
   * a side where it has rows never reads 0.00%, nor 100.00% when another of its
   * dimension's groups has rows there too; an appeared or disappeared group's change
   * never 0. */
  function compareGroupCells(g, groups) {
    const moved = g.status === 'appeared' ? 1 : g.status === 'disappeared' ? -1 : 0;
    const rowsA = groups.filter((o) => o.status !== 'appeared').length; // groups with rows on A
    const rowsB = groups.filter((o) => o.status !== 'disappeared').length;
    const a = pctNotZero(g.share_a, g.status !== 'appeared' ? 1 : 0, rowsA > 1) + '%';
    const b = pctNotZero(g.share_b, g.status !== 'disappeared' ? 1 : 0, rowsB > 1) + '%';
    const tiny = moved && pctDigits(g.share_delta) === '0.00';
    return [a, b, !tiny ? pts(g.share_delta) : moved > 0 ? '+<0.01 pts ↑' : '-<0.01 pts ↓'];
  }

  /** numerics.py shift_cells: a compared label rate's or missing share's A, B and change
   * as shown (SPEC 17.6), counts its [c_a, n_a, c_b, n_b]: each side as shareText, and a
   * change that would read 0.00 where one side has none (or all) of its rows counted and
   * the other not `+<0.01 pts ↑` or `-<0.01 pts ↓`; without counts (undefined: a result
   * saved before compare wrote them) the plain numbers. */
  function shiftCells(a, b, delta, counts) {
    if (counts.some((c) => c === undefined)) return [pct(a), pct(b), pts(delta)];
    const [ca, na, cb, nb] = counts;
    const moved = (ca === 0) !== (cb === 0) || (ca === na) !== (cb === nb);
    const up = cb * na - ca * nb; // the sign of cb / nb - ca / na, exactly
    const tiny = moved && up !== 0 && pctDigits(delta) === '0.00';
    return [shareText(a, ca, na), shareText(b, cb, nb), !tiny ? pts(delta) : up > 0 ? '+<0.01 pts ↑' : '-<0.01 pts ↓'];
  }

  /** A change of a share or rate in percentage points, signed, with its direction:
   * `+2.40 pts ↑` (issue 27: deltas read as "%", and colour said good or bad). */
  function pts(x) {
    if (x === null || x === undefined) return 'n/a';
    const t = pctDigits(x);
    if (/^-?0\.00$/.test(t)) return '0.00 pts';
    return x > 0 ? `+${t} pts ↑` : `${t} pts ↓`;
  }

  let numFormat = null; // Intl.NumberFormat('en-US'), made on first use
  /** x with thousands separators, as Number(x).toLocaleString('en-US') (the same
   * formatter, made once: toLocaleString makes one per call, 25 us each, which was
   * 2 s of a 20,000-column result's drawing). */
  function num(x) {
    if (x === null || x === undefined) return 'n/a';
    if (numFormat === null) numFormat = new Intl.NumberFormat('en-US');
    return numFormat.format(Number(x));
  }

  const FOUND_BY = {
    name: 'found by name',
    values: 'found by its values',
    override: 'declared (kind chosen)',
    label_count: 'scored as a categorical (score categoricals)',
  };

  const GRADE_MEANING = {
    A: 'well balanced across detected demographics',
    B: 'mostly balanced, minor under-representation',
    C: 'noticeable imbalance in one or more dimensions',
    D: 'strong imbalance or sparse subgroups',
    F: 'severe imbalance or single-group dimensions',
  };

  /** The score ring: an SVG arc proportional to the score, the score and grade inside. */
  function scoreRing(score, grade) {
    const wrap = h('div', { className: 'ring', dataset: { score: score === null ? '' : score, grade: grade === null ? '' : grade },
      attrs: { role: 'img', 'aria-label': score === null ? 'score not measured' : `score ${score} of 100, grade ${grade}` } });
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 120 120');
    svg.setAttribute('aria-hidden', 'true');
    const r = 52;
    const c = 2 * Math.PI * r;
    const bg = document.createElementNS(SVG, 'circle');
    for (const [k, v] of [['cx', 60], ['cy', 60], ['r', r], ['class', 'ring-bg']]) bg.setAttribute(k, v);
    const fg = document.createElementNS(SVG, 'circle');
    const frac = score === null ? 0 : Math.max(0, Math.min(100, score)) / 100;
    for (const [k, v] of [['cx', 60], ['cy', 60], ['r', r], ['class', 'ring-fg grade-' + (grade || 'none')],
      ['stroke-dasharray', `${(frac * c).toFixed(2)} ${c.toFixed(2)}`], ['transform', 'rotate(-90 60 60)']]) {
      fg.setAttribute(k, v);
    }
    svg.appendChild(bg);
    svg.appendChild(fg);
    wrap.appendChild(svg);
    wrap.appendChild(h('div', { className: 'ring-text' },
      h('span', { className: 'ring-score' }, score === null ? '–' : String(score)),
      h('span', { className: 'ring-grade' }, grade === null ? 'not measured' : 'grade ' + grade)));
    return wrap;
  }

  function flagList(flags, title) {
    const sec = h('section', { className: 'flags', attrs: { 'aria-label': title || 'Flags' } },
      h('h2', null, (title || 'Flags') + ` (${flags.length})`));
    if (!flags.length) sec.appendChild(h('p', { className: 'muted' }, 'No flags.'));
    const ul = h('ul', { className: 'flag-list' });
    for (const f of flags) ul.appendChild(h('li', { className: 'flag', dataset: { flag: f } }, data(f)));
    sec.appendChild(ul);
    return sec;
  }

  /** A score, or 'not scored' for a dimension whose rows cannot support one (SPEC 5). */
  function scoreOrNot(x) { return x === null ? 'not scored' : String(x); }

  /** A finding's interval end (SPEC 18): a ratio as 4.17x, a share or difference as %. */
  function findingEnd(x, kind) {
    if (x === null) return 'inf';
    // SPEC 21.4: a difference of means is in the outcome column's units
    if (kind === 'outcome_gap') return Math.abs(x) >= 1 ? fmt(x, 2) : fmt(x, 4);
    return kind === 'imbalance' ? `${fmt(x, 2)}x` : pct(x);
  }

  /** Findings and notes (SPEC 18): each line with its verdict; a finding's interval, n
   * and threshold; the family's line on top. The lines keep the flag list's classes. */
  function findingList(result) {
    const findings = result.findings;
    const ev = result.evidence;
    const sec = h('section', { className: 'flags findings', attrs: { 'aria-label': 'Findings' } },
      h('h2', null, `Findings and notes (${findings.length})`));
    if (ev) {
      sec.appendChild(h('p', { className: 'evidence', dataset: { tests: ev.tests, confirmed: ev.confirmed, possible: ev.possible } },
        `${num(ev.confirmed)} confirmed, ${num(ev.possible)} possible, of ${num(ev.tests)} tests ` +
        `(Holm, family-wise alpha ${pct(ev.alpha)})`));
    }
    if (!findings.length) sec.appendChild(h('p', { className: 'muted' }, 'No findings.'));
    const ul = h('ul', { className: 'flag-list' });
    for (const f of findings) {
      const verdict = f.verdict || 'note';
      const li = h('li', { className: 'flag verdict-' + verdict, dataset: { flag: f.text, kind: f.kind, verdict } },
        h('span', { className: 'pill verdict' }, verdict), ' ', data(f.text));
      if (f.severity === 'finding' && f.ci_low !== null) {
        // as faircode/render.py evidence_of: a difference in points; a comparison's
        // findings carry their interval in their text, so only their n
        const shift = ['share_shift', 'rate_shift', 'missing_shift'].includes(f.kind);
        const ci = shift ? '' : f.kind === 'label_gap'
          ? ` 95% CI ${pct(f.ci_low).slice(0, -1)} to ${pct(f.ci_high).slice(0, -1)} pts,`
          : f.kind === 'outcome_gap'
            ? ` 95% CI ${findingEnd(f.ci_low, f.kind)} to ${findingEnd(f.ci_high, f.kind)},`
            : ` 95% CI ${findingEnd(f.ci_low, f.kind)}-${findingEnd(f.ci_high, f.kind)},`;
        li.appendChild(h('span', { className: 'muted evidence-of' }, `${ci} n=${num(f.n)}`));
      }
      ul.appendChild(li);
    }
    sec.appendChild(ul);
    return sec;
  }

  /** One group's bar: share, Wilson interval whisker, count and marks. */
  function groupRow(dimName, g, under, maxShare) {
    const scale = maxShare > 0 ? 1 / maxShare : 1;
    const isUnder = under.has(g.label);
    const row = h('div', {
      className: 'bar-row' + (isUnder ? ' under' : '') + (g.small_group ? ' small' : ''),
      dataset: { dim: dimName, label: g.label, count: g.count, share: g.share, ciLow: g.ci_low,
        ciHigh: g.ci_high, smallGroup: g.small_group ? 'true' : 'false', under: isUnder ? 'true' : 'false' },
      attrs: { role: 'listitem' },
    });
    const label = h('div', { className: 'bar-label' }, data(g.label));
    const track = h('div', { className: 'bar-track', attrs: { 'aria-hidden': 'true' } });
    const fill = h('div', { className: 'bar-fill' });
    fill.style.width = Math.min(100, g.share * scale * 100).toFixed(2) + '%';
    const whisker = h('div', { className: 'whisker' });
    whisker.style.left = Math.min(100, g.ci_low * scale * 100).toFixed(2) + '%';
    whisker.style.width = Math.max(0.3, Math.min(100, (g.ci_high - g.ci_low) * scale * 100)).toFixed(2) + '%';
    track.appendChild(fill);
    track.appendChild(whisker);
    const marks = [];
    if (isUnder) marks.push(h('span', { className: 'mark mark-under', title: 'under-represented (below the minimum share)' }, 'under-represented'));
    if (g.small_group) marks.push(h('span', { className: 'mark mark-small', title: 'fewer rows than the minimum group size' }, 'small group'));
    const value = h('div', { className: 'bar-value' },
      h('span', { className: 'share' }, pct(g.share)),
      h('span', { className: 'ci' }, ` [${pct(g.ci_low)}–${pct(g.ci_high)}]`),
      h('span', { className: 'count' }, ` n=${num(g.count)}`), ...marks);
    row.appendChild(label);
    row.appendChild(track);
    row.appendChild(value);
    return row;
  }

  const GROUPS_SHOWN = 40; // groups drawn at once per dimension
  const RESTS_ON_SHOWN = 8; // names in "the grade rests on" (render.py RESTS_ON_SHOWN)
  const GROUPS_LISTED = 1000; // groups drawn at most, when the rest is opened

  function referenceTable(dim) {
    const ref = dim.reference;
    const box = h('div', { className: 'reference', dataset: { deviation: ref.deviation === null ? '' : ref.deviation } },
      h('h4', null, 'Reference: ', ref.deviation === null ? 'no label matches the reference'
        : `deviation ${pctDigits(ref.deviation)} pts (total variation)`, ref.ages ? ` over ages ${ref.ages[0]}–${ref.ages[1]}` : ''));
    if (!ref.groups.length) return box;
    const table = h('table', { className: 'ref-table' },
      h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' } }, 'group'), h('th', { attrs: { scope: 'col' } }, 'expected'),
        h('th', { attrs: { scope: 'col' } }, 'actual'), h('th', { attrs: { scope: 'col' } }, 'delta'))));
    const body = h('tbody');
    const n = ref.groups.reduce((m, g) => m + (g.count === undefined ? 0 : g.count), 0);
    for (const g of ref.groups) {
      // an actual share of some rows but not all never reads 0.00% or 100.00% (SPEC 9)
      const actual = g.count === undefined ? pct(g.actual) : shareText(g.actual, g.count, n);
      body.appendChild(h('tr', { className: g.delta < 0 ? 'neg' : 'pos', dataset: { label: g.label, expected: g.expected, actual: g.actual, delta: g.delta, count: g.count === undefined ? '' : g.count } },
        h('td', null, data(g.label)), h('td', null, pct(g.expected)), h('td', null, actual),
        h('td', null, pts(g.delta))));
    }
    table.appendChild(body);
    box.appendChild(table);
    return box;
  }

  function dimensionCard(dim) {
    const under = new Set(dim.under_represented);
    const card = h('article', {
      className: 'card dim',
      dataset: { dim: dim.name, kind: dim.kind, detectedBy: dim.detected_by, score: dim.dimension_score === null ? "" : dim.dimension_score,
        nGroups: dim.n_groups, missingPct: dim.missing_pct, missingCount: dim.missing_count,
        skewness: dim.skewness === null ? '' : dim.skewness, ageMode: dim.age_mode === null ? '' : dim.age_mode },
      attrs: { 'aria-label': `dimension ${dim.name}` },
    });
    card.appendChild(h('header', { className: 'card-head' },
      h('h3', null, data(dim.name)),
      h('span', { className: 'pill kind' }, dim.kind + (dim.age_mode ? ` (${dim.age_mode})` : '')),
      h('span', { className: 'pill found' }, FOUND_BY[dim.detected_by] || dim.detected_by),
      h('span', { className: 'dim-score', title: dim.score_note ? `not scored: ${dim.score_note}` : 'dimension score (0-100) and its 95% interval' },
        dim.dimension_score === null ? 'not scored'
          : `score ${dim.dimension_score}` + (dim.score_ci ? ` [${dim.score_ci[0]}-${dim.score_ci[1]}]` : ''))));
    const facts = [`${dim.n_groups} group${dim.n_groups === 1 ? '' : 's'}`, `missing ${pct(dim.missing_pct)} (${num(dim.missing_count)})`,
      `entropy ratio ${dim.entropy_ratio}`, `imbalance ratio ${dim.imbalance_ratio === null ? 'n/a' : dim.imbalance_ratio}`];
    if (dim.implausible_count) facts.push(`${num(dim.implausible_count)} implausible ages treated as missing`);
    if (dim.skewness !== null) facts.push(`skewness ${dim.skewness}`);
    card.appendChild(h('p', { className: 'facts' }, facts.join(' · ')));
    const list = h('div', { className: 'bars', attrs: { role: 'list', 'aria-label': `groups of ${dim.name}` } });
    const maxShare = dim.groups.reduce((m, g) => Math.max(m, g.ci_high), 0);
    const shown = dim.groups.slice(0, GROUPS_SHOWN);
    for (const g of shown) list.appendChild(groupRow(dim.name, g, under, maxShare));
    card.appendChild(list);
    if (dim.groups.length > GROUPS_SHOWN) {
      // The rest is drawn when opened (a zip code dimension has 30,000 groups), at most
      // GROUPS_LISTED rows in all; the exported JSON has every group.
      const more = h('details', { className: 'more-groups' }, h('summary', null, moreGroupsText(dim.groups.length - GROUPS_SHOWN)));
      more.addEventListener('toggle', () => {
        if (!more.open || more.dataset.drawn) return;
        more.dataset.drawn = 'true';
        const rest = h('div', { className: 'bars', attrs: { role: 'list' } });
        for (const g of dim.groups.slice(GROUPS_SHOWN, GROUPS_LISTED)) rest.appendChild(groupRow(dim.name, g, under, maxShare));
        more.appendChild(rest);
        if (dim.groups.length > GROUPS_LISTED) {
          more.appendChild(h('p', { className: 'muted not-listed', dataset: { notListed: dim.groups.length - GROUPS_LISTED } },
            `${moreGroupsText(dim.groups.length - GROUPS_LISTED)} ${dim.groups.length - GROUPS_LISTED === 1 ? 'is' : 'are'} not drawn (the JSON export has them all).`));
        }
      });
      card.appendChild(more);
    }
    if (dim.reference) card.appendChild(referenceTable(dim));
    return card;
  }

  /** The intersection as a heat table: absent cells and near-empty cells marked (the
   * result lists the gaps only; a cell not listed holds at least the floor's rows). */
  function intersectionTable(result) {
    const sec = h('section', { className: 'intersections', attrs: { 'aria-label': 'Intersections' } },
      h('h2', null, 'Intersections'));
    if (!result.intersections.length) {
      sec.appendChild(h('p', { className: 'muted' }, result.intersection_not_counted
        ? `${result.intersection_not_counted.join(' x ')}: not counted while reading (choose them as the cross to count them).`
        : 'No intersection (fewer than two dimensions, or the cross is not a dimension).'));
      return sec;
    }
    for (const it of result.intersections) {
      const [A, B] = it.dims;
      const dimA = result.dimensions.find((d) => d.name === A);
      const dimB = result.dimensions.find((d) => d.name === B);
      const gaps = new Map();
      for (const c of it.cells) gaps.set(c.a + '\u0000' + c.b, c);
      sec.appendChild(h('p', { className: 'facts' }, data(A), ' x ', data(B),
        `: ${it.n_cells} cells, ${it.cells.length + (it.cells_not_listed || 0)} sparse (absent or below the floor)`));
      const wrap = h('div', { className: 'heat-wrap' });
      const table = h('table', { className: 'heat', dataset: { a: A, b: B, nCells: it.n_cells } });
      const head = h('tr', null, h('th', { attrs: { scope: 'col' } }, data(A), ' \\ ', data(B)));
      const bLabels = dimB ? dimB.groups.map((g) => g.label) : [];
      const aLabels = dimA ? dimA.groups.map((g) => g.label) : [];
      const MAXC = 30;
      for (const lb of bLabels.slice(0, MAXC)) head.appendChild(h('th', { attrs: { scope: 'col' } }, data(lb)));
      table.appendChild(h('thead', null, head));
      const body = h('tbody');
      // The JSON lists the first 1,000 gaps in A's then B's group order (SPEC 4): a cell
      // past the last listed one, when more are not listed, may be a gap or not.
      const last = it.cells_not_listed ? it.cells[it.cells.length - 1] : null;
      const lastA = last ? aLabels.indexOf(last.a) : -1;
      const lastB = last ? bLabels.indexOf(last.b) : -1;
      const known = (ka, kb) => last === null || ka < lastA || (ka === lastA && kb <= lastB);
      for (const [ka, la] of aLabels.slice(0, MAXC).entries()) {
        const tr = h('tr', null, h('th', { attrs: { scope: 'row' } }, data(la)));
        for (const [kb, lb] of bLabels.slice(0, MAXC).entries()) {
          const g = gaps.get(la + '\u0000' + lb);
          let td;
          if (!g && !known(ka, kb)) td = h('td', { className: 'cell unlisted', dataset: { a: la, b: lb, state: 'not-listed' }, title: 'not listed: the JSON lists the first 1,000 sparse cells' }, '?');
          else if (!g) td = h('td', { className: 'cell ok', dataset: { a: la, b: lb, state: 'filled' }, title: 'at or above the floor' }, '✓');
          else if (g.count === 0) td = h('td', { className: 'cell absent', dataset: { a: la, b: lb, state: 'absent', count: 0 }, title: 'absent' }, 'absent');
          else td = h('td', { className: 'cell near', dataset: { a: la, b: lb, state: 'near-empty', count: g.count, share: g.share }, title: 'near-empty' }, `${num(g.count)} (${pct(g.share)})`);
          tr.appendChild(td);
        }
        body.appendChild(tr);
      }
      table.appendChild(body);
      wrap.appendChild(table);
      sec.appendChild(wrap);
      if (aLabels.length > MAXC || bLabels.length > MAXC) sec.appendChild(h('p', { className: 'muted' }, `Showing the first ${MAXC} groups of each side.`));
      if (it.cells_not_listed) sec.appendChild(h('p', { className: 'muted' }, `${num(it.cells_not_listed)} more sparse cells not listed (? in the table: not known from the JSON).`));
    }
    return sec;
  }

  function unscoredList(result) {
    const sec = h('section', { className: 'unscored', attrs: { 'aria-label': 'Not scored' } },
      h('h2', null, `Not scored (${result.unscored.length})`));
    if (!result.unscored.length) {
      sec.appendChild(h('p', { className: 'muted' }, 'Every small categorical column is a scored dimension.'));
    }
    const ul = h('ul', { className: 'unscored-list' });
    for (const u of result.unscored) {
      const top = u.groups.slice(0, 3).map((g) => `${g.label} ${num(g.count)}`).join(', ') + (u.groups.length > 3 ? ', …' : '');
      ul.appendChild(h('li', { dataset: { column: u.name, nGroups: u.n_groups, why: u.why } },
        h('strong', null, data(u.name)), `: ${u.n_groups} labels, ${num(u.missing_count)} missing, `, data(u.why), ' (', data(top), ')'));
    }
    sec.appendChild(ul);
    if (result.dropped.length) {
      sec.appendChild(h('h3', null, `Dropped (${result.dropped.length})`));
      const dl = h('ul', { className: 'dropped-list' });
      for (const d of result.dropped) {
        dl.appendChild(h('li', { dataset: { column: d.name } }, h('strong', null, data(d.name)),
          d.why !== undefined ? `: ${d.why}` // nested values (SPEC 0.4)
            : `: ${d.kind}, ${d.n_groups === null ? `more than ${num(d.more_than)}` : num(d.n_groups)} groups (too many to be a distribution)`));
      }
      sec.appendChild(dl);
    }
    return sec;
  }

  /** "The grade rests on sex, race": the dimensions with a score (render.py size_line). */
  function restsOn(result) {
    const scored = result.dimensions.filter((d) => d.dimension_score !== null);
    if (result.overall_score === null || !scored.length) return null;
    const parts = ['The grade rests on '];
    scored.slice(0, RESTS_ON_SHOWN).forEach((d, i) => parts.push(i ? ', ' : '', data(d.name)));
    if (scored.length > RESTS_ON_SHOWN) parts.push(` and ${scored.length - RESTS_ON_SHOWN} more`);
    return h('p', { className: 'rests-on' }, ...parts, '.');
  }

  function renderProfile(result, ctx) {
    ctx = ctx || {};
    const view = h('div', { className: 'view profile-view', dataset: { view: 'profile', nRows: result.n_rows,
      nCols: result.n_cols, score: result.overall_score === null ? '' : result.overall_score,
      grade: result.grade === null ? '' : result.grade, formatVersion: result.format_version } });
    const head = h('section', { className: 'summary-head' }, scoreRing(result.overall_score, result.grade),
      h('div', { className: 'headline' },
        h('h2', null, ctx.name ? data(ctx.name) : 'Profile'),
        h('p', { className: 'facts' }, `${num(result.n_rows)} rows · ${num(result.n_cols)} columns · ${result.dimensions.length} ${result.dimensions.length === 1 ? 'dimension' : 'dimensions'} profiled · ${result.unscored.length} not scored`),
        restsOn(result),
        result.grade ? h('p', { className: 'grade-meaning' }, `Grade ${result.grade}: ${GRADE_MEANING[result.grade]}` +
          (result.overall_ci ? ` (score ${result.overall_score}, interval ${result.overall_ci[0]}-${result.overall_ci[1]})` : ''))
          : h('p', null, result.dimensions.length ? 'No score: no dimension has enough rows to score.' : 'No score: no demographic column was scored.')));
    view.appendChild(head);
    // the result first (issue 27): the score, then the findings, then the dimensions
    view.appendChild(result.findings ? findingList(result) : flagList(result.flags));
    const dims = h('section', { className: 'dims', attrs: { 'aria-label': 'Dimensions' } }, h('h2', null, `Dimensions (${result.dimensions.length})`));
    for (const d of result.dimensions) dims.appendChild(dimensionCard(d));
    view.appendChild(dims);
    view.appendChild(intersectionTable(result));
    view.appendChild(unscoredList(result));
    if (result.label_rates) view.appendChild(labelRatesSection(result.label_rates));
    for (const block of result.outcomes || []) view.appendChild(outcomeSection(block));
    if (result.missing_by_group) view.appendChild(missingSection(result.missing_by_group, result.n_rows));
    if (result.proxy_hints) view.appendChild(proxySection(result.proxy_hints));
    else if (ctx.proxyWhere) view.appendChild(proxyWhere());
    return view;
  }

  /** A reported p-value (faircode/proxy_stats.py p_text): 4 decimals from 0.0001 up, else
   * Python's `{p:.3g}` (1.7e-05: three significant digits, zeros dropped). */
  function pText(p) {
    if (p >= 0.0001) return fmt(p, 4);
    if (p === 0) return '0';
    const [mant, exp] = p.toExponential(2).split('e'); // three significant digits
    const e = Number(exp);
    if (e >= -4) { // %g writes 1.00e-04 (a p just under 0.0001, rounded up) as 0.0001
      return ('0.' + '0'.repeat(-e - 1) + mant.replace('.', '')).replace(/0+$/, '');
    }
    const m = mant.replace(/\.?0+$/, '');
    return `${m}e-${String(-e).padStart(2, '0')}`;
  }

  const PROXY_SHOWN = 20; // rows of each proxy table, as the terminal and Markdown

  /** SPEC 16 (the Python engine's `--proxy-hints`): the pairs of dimensions and the
   * columns associated with a dimension, strongest evidence first, as the terminal. */
  function proxySection(block) {
    const sec = h('section', { className: 'proxy-hints', attrs: { 'aria-label': 'Proxy hints' },
      dataset: { alpha: block.alpha, correction: block.correction, hints: block.hints.length } },
    h('h2', null, 'Proxy hints'));
    const exact = block.exact ? `; exact: Fisher for 2x2, else ${num(block.permutations)} permutations, seed ${block.seed}` : '';
    sec.appendChild(h('p', { className: 'muted' }, `Chi-squared tests of independence between the dimensions, alpha ${block.alpha}, ` +
      `p adjusted by ${block.correction}${exact}. Associated: a column that can stand in for a dimension.`));
    for (const ho of block.held_out || []) {
      sec.appendChild(h('p', { className: 'facts held-out' }, 'held-out column ', data(ho.name), `: ${num(ho.rows)} rows`,
        ho.key ? [', joined by ', data(ho.key)] : ', aligned by row order'));
    }
    const table = (head, rows, total, what) => {
      const t = h('table', { className: 'missing-table proxy-table' }, h('thead', null, h('tr', null, ...head.map(th))));
      const body = h('tbody');
      for (const r of rows.slice(0, PROXY_SHOWN)) body.appendChild(r);
      t.appendChild(body);
      const wrap = h('div', { className: 'heat-wrap' }, t);
      if (total > PROXY_SHOWN) wrap.appendChild(h('p', { className: 'muted' }, `${num(total - PROXY_SHOWN)} more ${what} (the JSON lists all)`));
      return wrap;
    };
    const marks = (t) => [t.significant ? 'associated' : '', t.small_expected ? 'small expected counts' : ''].filter(Boolean).join(', ');
    const hintRow = (t) => h('tr', { className: t.significant ? 'has-flagged' : '',
      dataset: { a: t.a, b: t.b, cramersV: t.cramers_v, pAdjusted: t.p_adjusted, significant: t.significant ? 'true' : 'false' } },
    h('th', { attrs: { scope: 'row' } }, data(t.a), ' × ', data(t.b)), h('td', { className: 'num' }, fmt(t.cramers_v, 4)),
    h('td', { className: 'num' }, pText(t.p_adjusted)), h('td', null, t.method), h('td', { className: 'num' }, num(t.n)), h('td', null, marks(t)));
    if (!block.hints.length) sec.appendChild(h('p', { className: 'muted' }, 'No pair of dimensions tested.'));
    else sec.appendChild(table(['pair', 'Cramér’s V', 'p adjusted', 'test', 'n', ''], block.hints.map(hintRow), block.hints.length, 'pairs'));
    for (const nt of block.not_tested) {
      sec.appendChild(h('p', { className: 'muted not-tested', dataset: { a: nt.a, b: nt.b } }, 'not tested: ', data(nt.a), ' × ', data(nt.b), ' (', data(nt.why), ')'));
    }
    const features = block.features || [];
    const skipped = block.features_not_tested || [];
    if (features.length) {
      sec.appendChild(h('h3', null, 'Columns associated with a dimension'));
      const featureRow = (t) => h('tr', { className: t.significant ? 'has-flagged' : '',
        dataset: { a: t.a, b: t.b, method: t.method, pAdjusted: t.p_adjusted, significant: t.significant ? 'true' : 'false' } },
      h('th', { attrs: { scope: 'row' } }, data(t.a)), h('td', null, data(t.b)),
      h('td', { className: 'num' }, t.method === 'anova' ? `eta squared ${fmt(t.eta_squared, 4)}` : `V ${fmt(t.cramers_v, 4)}`),
      h('td', { className: 'num' }, pText(t.p_adjusted)), h('td', null, t.method), h('td', { className: 'num' }, num(t.n)),
      h('td', null, t.significant ? 'associated' : ''));
      sec.appendChild(table(['dimension', 'column', 'association', 'p adjusted', 'test', 'n', ''], features.map(featureRow), features.length, 'columns'));
    }
    if (skipped.length) sec.appendChild(h('p', { className: 'muted' }, `not tested: ${num(skipped.length)} dimension × column pairs (the JSON says why)`));
    return sec;
  }

  /** The website's browser engine computes no proxy hints (SPEC 16): one line says where
   * they come from rather than leave the block out unsaid. */
  function proxyWhere() {
    return h('section', { className: 'proxy-hints proxy-where', attrs: { 'aria-label': 'Proxy hints' } },
      h('p', { className: 'muted' }, 'Proxy hints (columns that stand in for a dimension) are computed by the Python engine: ',
        h('code', null, 'faircode profile FILE --proxy-hints'), '.'));
  }

  /** A diverging bar: the share delta, left (negative) or right (positive) of zero. */
  function deltaBar(delta, scale) {
    const track = h('div', { className: 'div-track', attrs: { 'aria-hidden': 'true' } }, h('div', { className: 'div-zero' }));
    const bar = h('div', { className: 'div-bar ' + (delta < 0 ? 'neg' : 'pos') });
    const w = Math.min(50, (Math.abs(delta) / scale) * 50);
    bar.style.width = w.toFixed(2) + '%';
    bar.style.left = (delta < 0 ? 50 - w : 50).toFixed(2) + '%';
    track.appendChild(bar);
    return track;
  }

  function renderCompare(result, ctx) {
    ctx = ctx || {};
    const view = h('div', { className: 'view compare-view', dataset: { view: 'compare',
      scoreDelta: result.score_delta === null ? '' : result.score_delta } });
    view.appendChild(h('section', { className: 'summary-head' },
      h('div', { className: 'side', dataset: { side: 'a' } }, scoreRing(result.a.overall_score, result.a.grade),
        h('p', null, 'A (baseline): ', ctx.nameA ? data(ctx.nameA) : '', ` ${num(result.a.n_rows)} rows`)),
      h('div', { className: 'side', dataset: { side: 'b' } }, scoreRing(result.b.overall_score, result.b.grade),
        h('p', null, 'B (current): ', ctx.nameB ? data(ctx.nameB) : '', ` ${num(result.b.n_rows)} rows`)),
      h('p', { className: 'headline facts' }, result.score_delta === null ? 'score change: not measured'
        : `score change ${result.score_delta > 0 ? '+' : ''}${result.score_delta}`)));
    const dims = h('section', { className: 'dims', attrs: { 'aria-label': 'Drift per dimension' } }, h('h2', null, `Shared dimensions (${result.dimensions.length})`));
    for (const d of result.dimensions) {
      // SPEC 8: a side without a row holding a value has no shares: not compared, no PSI
      const level = d.drift_level === null ? 'not-compared' : d.drift_level;
      // SPEC 8: the level's verdict (its chi-squared test); none under the PSI band alone
      const verdict = d.drift_verdict === undefined || d.drift_verdict === null ? '' : d.drift_verdict;
      const pill = d.drift_level === null ? 'not compared'
        : `${d.drift_level} drift${verdict ? `, ${verdict}` : ''}`;
      const card = h('article', { className: 'card drift drift-' + level + (verdict ? ' verdict-' + verdict : ''),
        dataset: { dim: d.name, psi: d.psi === null ? '' : d.psi, tvd: d.tvd === null ? '' : d.tvd, driftLevel: d.drift_level === null ? '' : d.drift_level, driftVerdict: verdict, driftP: d.drift_p === undefined || d.drift_p === null ? '' : d.drift_p, scoreDelta: d.dimension_score_delta === null ? '' : d.dimension_score_delta } },
      h('header', { className: 'card-head' }, h('h3', null, data(d.name)),
        h('span', { className: 'pill level-' + level }, pill),
        h('span', null, `PSI ${d.psi === null ? '-' : d.psi}${d.drift_p === undefined || d.drift_p === null ? '' : ` (Holm-adjusted p ${d.drift_p})`} · TVD ${d.tvd === null ? '-' : d.tvd} · score ${scoreOrNot(d.dimension_score_a)} → ${scoreOrNot(d.dimension_score_b)}`)));
      const scale = d.groups.reduce((m, g) => Math.max(m, Math.abs(g.share_delta)), 0) || 1;
      const list = h('div', { className: 'bars', attrs: { role: 'list' } });
      for (const g of d.groups.slice(0, GROUPS_SHOWN)) {
        const cells = compareGroupCells(g, d.groups);
        list.appendChild(h('div', { className: 'bar-row status-' + g.status, attrs: { role: 'listitem' },
          dataset: { label: g.label, shareA: g.share_a, shareB: g.share_b, shareDelta: g.share_delta, status: g.status } },
        h('div', { className: 'bar-label' }, data(g.label)), deltaBar(g.share_delta, scale),
        h('div', { className: 'bar-value' }, `${cells[0]} → ${cells[1]} (${cells[2]})`,
          g.status !== 'shifted' ? h('span', { className: 'mark mark-' + g.status }, g.status) : null)));
      }
      card.appendChild(list);
      if (d.groups.length > GROUPS_SHOWN) card.appendChild(h('p', { className: 'muted' }, moreGroupsText(d.groups.length - GROUPS_SHOWN)));
      dims.appendChild(card);
    }
    view.appendChild(dims);
    const ar = h('section', { className: 'added-removed' }, h('h2', null, 'Added and removed dimensions'));
    const ul = h('ul');
    for (const n of result.added_dimensions) ul.appendChild(h('li', { dataset: { added: n } }, 'added: ', data(n)));
    for (const n of result.removed_dimensions) ul.appendChild(h('li', { dataset: { removed: n } }, 'removed: ', data(n)));
    if (!result.added_dimensions.length && !result.removed_dimensions.length) ar.appendChild(h('p', { className: 'muted' }, 'None.'));
    ar.appendChild(ul);
    view.appendChild(ar);
    if (result.label_rates) view.appendChild(labelRateShifts(result.label_rates));
    if (result.missing_by_group) view.appendChild(missingShifts(result.missing_by_group, result.a.n_rows, result.b.n_rows));
    view.appendChild(result.findings ? findingList(result) : flagList(result.flags));
    return view;
  }

  // ---- SPEC 17: label base rates and missing data by group -----------------------------
  // The columns a dimension's missing-data table lists, as faircode/render.py
  // (missing_columns_shown): those with a flagged group, else the few whose groups are
  // farthest apart; the rest open in a <details>.
  const MISSING_COLUMNS_SHOWN = 8;
  const MISSING_SPREAD_SHOWN = 3;
  const MISSING_SHIFT_COLUMNS = 5;

  /** The label of a dimension's missing group, as faircode/numerics.py
   * missing_group_label (SPEC 17.4, 17.5). */
  function missingGroupLabel(dim) { return `(missing ${dim})`; }

  /** A column's groups with rows, then its missing group (labelled '(missing DIM)'),
   * which takes part in lowest, highest and the tie, as faircode/render.py
   * missing_groups. */
  function missingGroups(c, dim) {
    const gs = c.groups.filter((g) => g.count);
    if (c.missing_group && dim !== undefined) gs.push(Object.assign({ label: missingGroupLabel(dim) }, c.missing_group));
    return gs;
  }

  function missingSpread(c, dim) {
    const gs = missingGroups(c, dim);
    if (gs.length < 2) return -Infinity;
    return Math.max(...gs.map((g) => g.ci_low)) - Math.min(...gs.map((g) => g.ci_high));
  }

  /** The column's lowest and highest group (SPEC 17.5: by share among the groups of the
   * flag rule's size, the missing group among them), [null, null] when fewer than two are
   * that large, as faircode/render.py missing_extremes; a saved profile made before the
   * keys reads them by share among the groups with rows. */
  function missingExtremes(c, dim) {
    const gs = missingGroups(c, dim);
    if (!('highest' in c)) {
      if (gs.length < 2) return [null, null];
      let high = gs[0];
      let low = gs[0];
      for (const g of gs.slice(1)) {
        if (g.missing * high.count > high.missing * g.count) high = g;
        if (g.missing * low.count < low.missing * g.count) low = g;
      }
      return [low === high ? gs[1] : low, high];
    }
    const absent = c.missing_group && dim !== undefined ? gs[gs.length - 1] : null;
    const byLabel = new Map();
    for (const g of gs) if (g !== absent && !byLabel.has(g.label)) byLabel.set(g.label, g);
    // a label no listed group has is the missing group's (capped apart from its
    // dimension's name when the name is long, SPEC 0.9)
    const pick = (lab) => (lab === null ? null : byLabel.get(lab) || absent);
    return [pick(c.lowest), pick(c.highest)];
  }

  function missingColumnsShown(entry) {
    const cols = entry.columns;
    const flagged = cols.filter((c) => c.flagged.length);
    if (flagged.length) {
      let rule = `${flagged.length} with a flagged group`;
      if (flagged.length > MISSING_COLUMNS_SHOWN) rule += `, the first ${MISSING_COLUMNS_SHOWN} shown`;
      return [flagged.slice(0, MISSING_COLUMNS_SHOWN), rule];
    }
    // stable sort by spread, descending, then back to column order
    const ranked = cols.map((c, i) => [missingSpread(c, entry.dimension), i]).sort((x, y) => (y[0] - x[0]) || (x[1] - y[1]))
      .slice(0, MISSING_SPREAD_SHOWN).map((x) => x[1]).sort((x, y) => x - y);
    const picked = ranked.map((i) => cols[i]);
    if (cols.length <= MISSING_SPREAD_SHOWN) return [picked, 'no group flagged'];
    return [picked, `no group flagged; the ${picked.length} with the widest spread between groups`];
  }

  function th(text) { return h('th', { attrs: { scope: 'col' } }, text); }

  // faircode/render.py ALIKE_SHOWN: the groups not told apart from the lowest that are named.
  const ALIKE_SHOWN = 3;

  /** faircode/render.py alike_text: after a label-rate or outcome block's lowest group, the
   * groups whose rate or mean the 95% interval does not place above it (SPEC 17.4, 21.3). */
  function alikeNodes(block) {
    const alike = (block.gap && block.gap.lowest_alike) || [];
    if (alike.length === 0) return [];
    const out = [' (not told apart from '];
    alike.slice(0, ALIKE_SHOWN).forEach((k, i) => {
      if (i) out.push(', ');
      out.push(Array.isArray(k) ? [data(k[0]), ' × ', data(k[1])] : data(k));
    });
    const more = alike.length - ALIKE_SHOWN;
    out.push(`${more > 0 ? ` and ${more} more` : ''} at 95%)`);
    return out;
  }

  function spreadText(block, high, low) {
    if (block.max_difference === null) return 'not measurable: fewer than two groups of the minimum group size';
    const r2 = (x) => fmt(x, 2);
    const gap = block.gap;
    const diffCi = gap ? ` [${pct(gap.ci_low).slice(0, -1)}-${pct(gap.ci_high).slice(0, -1)}]` : '';
    const ratioCi = gap && gap.ratio_ci_low !== null ? ` [${r2(gap.ratio_ci_low)}-${r2(gap.ratio_ci_high)}]` : '';
    return ['highest ', high, ', lowest ', low, alikeNodes(block), `: difference ${pct(block.max_difference).slice(0, -1)} pts${diffCi}`,
      `, ratio ${block.min_ratio === null ? 'n/a' : r2(block.min_ratio)}${ratioCi}`, gap ? `; ${gap.verdict}` : ''];
  }

  /** One group's (or cell's) rate: a bar on a 0-100% scale, its Wilson whisker, n,
   * label missing and marks. */
  function rateRow(labelNodes, r, high, low, dataset) {
    const row = h('div', { className: 'bar-row rate-row' + (r.small_group ? ' small' : ''), attrs: { role: 'listitem' },
      dataset: Object.assign({ n: r.n, positive: r.positive, rate: r.rate === null ? '' : r.rate,
        labelMissing: r.label_missing, smallGroup: r.small_group ? 'true' : 'false', highest: high ? 'true' : 'false',
        lowest: low ? 'true' : 'false' }, dataset) });
    const track = h('div', { className: 'bar-track', attrs: { 'aria-hidden': 'true' } });
    if (r.rate !== null) {
      const fill = h('div', { className: 'bar-fill' });
      fill.style.width = (Math.min(1, r.rate) * 100).toFixed(2) + '%';
      const whisker = h('div', { className: 'whisker' });
      whisker.style.left = (r.ci_low * 100).toFixed(2) + '%';
      whisker.style.width = Math.max(0.3, (r.ci_high - r.ci_low) * 100).toFixed(2) + '%';
      track.appendChild(fill);
      track.appendChild(whisker);
    }
    const marks = [];
    if (high) marks.push(h('span', { className: 'mark mark-high', title: 'the highest rate among the compared groups' }, 'highest'));
    if (low) marks.push(h('span', { className: 'mark mark-low', title: 'the lowest rate among the compared groups' }, 'lowest'));
    if (dataset && dataset.missingGroup) marks.push(h('span', { className: 'mark mark-missing', title: 'rows whose group is missing: shown, never compared' }, 'not compared'));
    if (r.small_group) marks.push(h('span', { className: 'mark mark-small', title: 'fewer labelled rows than the minimum group size' }, 'small group'));
    row.appendChild(h('div', { className: 'bar-label' }, labelNodes));
    row.appendChild(track);
    row.appendChild(h('div', { className: 'bar-value' },
      h('span', { className: 'share' }, r.rate === null ? 'n/a' : pct(r.rate)),
      r.rate === null ? null : h('span', { className: 'ci' }, ` [${pct(r.ci_low)}–${pct(r.ci_high)}]`),
      h('span', { className: 'count' }, ` n=${num(r.n)}`),
      r.label_missing ? h('span', { className: 'count' }, ` · ${num(r.label_missing)} label missing`) : null, ...marks));
    return row;
  }

  /** The note under a card that draws GROUPS_SHOWN of its `listed` rows when the JSON
   * counts `notListed` more (it lists at most 1,000 groups or cells: SPEC 17.4), as
   * faircode/numerics.py more_text; null if all show. */
  /** "1 more group", "2 more groups". */
  function moreGroupsText(k) {
    return `${num(k)} more group${k === 1 ? '' : 's'}`;
  }

  function moreNote(listed, notListed) {
    const hidden = Math.max(0, listed - GROUPS_SHOWN) + notListed;
    if (hidden <= 0) return null;
    const where = notListed ? `the JSON export lists the first ${num(listed)}` : 'the JSON export has them all';
    return h('p', { className: 'muted more-note' }, `${num(hidden)} more (${where})`);
  }

  function rateCard(title, facts, rows, notListed, dataset, tail) {
    const card = h('article', { className: 'card rates', dataset });
    card.appendChild(h('header', { className: 'card-head' }, h('h3', null, title)));
    card.appendChild(h('p', { className: 'facts' }, facts));
    const list = h('div', { className: 'bars', attrs: { role: 'list' } });
    for (const r of rows.slice(0, GROUPS_SHOWN)) list.appendChild(r);
    card.appendChild(list);
    const more = moreNote(rows.length, notListed);
    if (more) card.appendChild(more);
    // the missing group, after the groups and their "more" note (SPEC 6.1, 17.4)
    if (tail) card.appendChild(h('div', { className: 'bars', attrs: { role: 'list' } }, tail));
    return card;
  }

  /** A dimension past the columns reading counts these tables for; the flags say why
   * (the engine's text, not repeated here). */
  function notCountedText() {
    return 'not counted while reading (see the flags)';
  }

  function labelRatesSection(block) {
    const sec = h('section', { className: 'label-rates', attrs: { 'aria-label': 'Label rates' },
      dataset: { label: block.label, positive: block.positive, positiveFrom: block.positive_from, rate: block.rate === null ? '' : block.rate } },
    h('h2', null, 'Label rates: ', data(block.label), ' = ', data(block.positive)));
    const facts = [`${pct(block.rate)} positive`, block.rate === null ? '' : ` [${pct(block.ci_low)}–${pct(block.ci_high)}]`,
      ` of ${num(block.n)} rows with a label · positive value: `,
      block.positive_from === 'option' ? 'given with --positive' : 'the larger of its two values'];
    if (block.label_missing) facts.push(` · ${num(block.label_missing)} rows with a missing label are left out`);
    sec.appendChild(h('p', { className: 'facts' }, facts));
    sec.appendChild(h('p', { className: 'muted ratio-note' }, data(block.ratio_note)));
    for (const d of block.dimensions) {
      if (d.not_counted) {
        sec.appendChild(h('p', { className: 'muted not-counted', dataset: { dim: d.name } }, data(d.name), ': ', notCountedText()));
        continue;
      }
      const rows = d.groups.map((g) => rateRow([data(g.label)], g, g.label === d.highest, g.label === d.lowest,
        { dim: d.name, label: g.label }));
      const tail = d.missing_group ? rateRow([data(missingGroupLabel(d.name))], d.missing_group, false, false,
        { dim: d.name, missingGroup: 'true', count: d.missing_group.count }) : null;
      sec.appendChild(rateCard(data(d.name), spreadText(d, data(d.highest === null ? '' : d.highest), data(d.lowest === null ? '' : d.lowest)),
        rows, d.groups_not_listed || 0, { dim: d.name, maxDifference: d.max_difference === null ? '' : d.max_difference,
          minRatio: d.min_ratio === null ? '' : d.min_ratio }, tail));
    }
    const it = block.intersection;
    if (it) {
      const [A, B] = it.dims;
      const same = (p, q) => p !== null && p[0] === q[0] && p[1] === q[1];
      const pair = (p) => (p === null ? '' : [data(p[0]), ' × ', data(p[1])]);
      const rows = it.cells.map((c) => rateRow([data(c.a), ' × ', data(c.b)], c, same(it.highest, [c.a, c.b]),
        same(it.lowest, [c.a, c.b]), { a: c.a, b: c.b }));
      sec.appendChild(rateCard([data(A), ' × ', data(B)], spreadText(it, pair(it.highest), pair(it.lowest)), rows,
        it.cells_not_listed || 0, { dims: `${A}\u0000${B}`, intersection: 'true' }));
    }
    return sec;
  }

  /** SPEC 21.4: a numeric outcome like label rates: its mean, then per dimension and
   * the intersection the largest difference (Welch) and a table of group means. */
  function outcomeSection(block) {
    const dp = block.decimals;
    const f = (x) => (x === null ? 'n/a' : fmt(x, dp));
    const meanCi = (r) => (r.mean === null ? 'n/a' : r.ci_low === null ? f(r.mean) : `${f(r.mean)} [${f(r.ci_low)}–${f(r.ci_high)}]`);
    const sec = h('section', { className: 'outcome', attrs: { 'aria-label': 'Outcome ' + block.column },
      dataset: { column: block.column, mean: block.mean === null ? '' : block.mean } },
    h('h2', null, 'Outcome: ', data(block.column)));
    const left = block.missing + block.non_numeric;
    sec.appendChild(h('p', { className: 'facts' }, `mean ${meanCi(block)} · sd ${f(block.sd)} · ${num(block.n)} rows with a value` +
      (left ? ` · ${num(block.missing)} missing, ${num(block.non_numeric)} not a number (left out)` : '')));
    sec.appendChild(h('p', { className: 'muted' }, `Means with Student’s t 95% intervals; the largest difference with Welch’s. A difference above ${f(block.threshold)} is a finding.`));
    const gapText = (d, hi, lo) => {
      if (d.gap === null) return 'difference not measurable: fewer than two groups of the minimum group size';
      const df = d.gap.df === null ? 'both groups constant' : `Welch df ${fmt(d.gap.df, 1)}`;
      return ['highest ', hi, ', lowest ', lo, alikeNodes(d), `: difference ${f(d.gap.difference)} [${f(d.gap.ci_low)}–${f(d.gap.ci_high)}] (${df}); ${d.gap.verdict}`];
    };
    const table = (rows) => {
      const t = h('table', { className: 'missing-table outcome-table' },
        h('thead', null, h('tr', null, th('group'), th('n'), th('mean [95% CI]'), th('sd'), th('missing'), th(''))));
      const body = h('tbody');
      for (const [label, r, marks] of rows.slice(0, GROUPS_SHOWN)) {
        body.appendChild(h('tr', { dataset: { n: r.n, mean: r.mean === null ? '' : r.mean } },
          h('th', { attrs: { scope: 'row' } }, label), h('td', { className: 'num' }, num(r.n)),
          h('td', { className: 'num' }, meanCi(r)), h('td', { className: 'num' }, f(r.sd)), h('td', { className: 'num' }, num(r.missing)),
          h('td', null, [...marks, r.small_group ? 'small group' : ''].filter(Boolean).join(', '))));
      }
      t.appendChild(body);
      return h('div', { className: 'heat-wrap' }, t);
    };
    const card = (title, facts, rows, notListed, dataset) => {
      const c = h('article', { className: 'card outcome-card', dataset });
      c.appendChild(h('header', { className: 'card-head' }, h('h3', null, title)));
      c.appendChild(h('p', { className: 'facts' }, facts));
      c.appendChild(table(rows));
      const more = moreNote(rows.length, notListed);
      if (more) c.appendChild(more);
      return c;
    };
    for (const d of block.dimensions) {
      if (d.not_counted) {
        sec.appendChild(h('p', { className: 'muted not-counted', dataset: { dim: d.name } }, data(d.name), ': ', notCountedText()));
        continue;
      }
      const rows = d.groups.map((g) => [data(g.label), g, [g.label === d.highest ? 'highest' : '', g.label === d.lowest ? 'lowest' : '']]);
      sec.appendChild(card(data(d.name), gapText(d, data(d.highest || ''), data(d.lowest || '')), rows,
        d.groups_not_listed || 0, { dim: d.name }));
    }
    const it = block.intersection;
    if (it) {
      const [A, B] = it.dims;
      const same = (p, q) => p !== null && p[0] === q[0] && p[1] === q[1];
      const pair = (p) => (p === null ? '' : [data(p[0]), ' × ', data(p[1])]);
      const rows = it.cells.map((c) => [[data(c.a), ' × ', data(c.b)], c,
        [same(it.highest, [c.a, c.b]) ? 'highest' : '', same(it.lowest, [c.a, c.b]) ? 'lowest' : '']]);
      sec.appendChild(card([data(A), ' × ', data(B)], gapText(it, pair(it.highest), pair(it.lowest)), rows,
        it.cells_not_listed || 0, { dims: `${A}\u0000${B}`, intersection: 'true' }));
    }
    return sec;
  }

  /** render.py missing_share: a group's share of cells missing, never 0.00% or 100.00%
   * when some of its rows have the cell and some not (SPEC 17.5). */
  function missingShare(g) {
    return shareText(g.missing_pct, g.missing, g.count);
  }

  function groupPct(g) {
    return g === null ? '–' : [data(g.label), ` ${missingShare(g)}`];
  }

  /** What shows instead of a lowest and a highest group when they cannot differ, as
   * faircode/render.py missing_tie: every group with rows at one share (compared as
   * counts), or one group with rows. */
  function missingTie(c, dim) {
    const gs = missingGroups(c, dim);
    if (gs.length === 1) return `only '${gs[0].label}'`;
    if (gs.length && gs.every((g) => g.missing * gs[0].count === gs[0].missing * g.count)) return 'all groups equal';
    return null;
  }

  /** faircode/render.py extremes_scope_text: the lowest and highest group are among the
   * groups the JSON lists, when it lists only the first ones (SPEC 17.5). */
  function extremesScopeText(columns) {
    const c = columns.find((x) => x.groups_not_listed);
    if (!c) return null;
    const n = c.groups.length;
    return `lowest and highest among the first ${num(n)} of ${num(n + c.groups_not_listed)} groups, those the JSON lists`;
  }

  function missingRow(dimName, c, nRows) {
    const [low, high] = missingExtremes(c, dimName);
    const tie = missingTie(c, dimName);
    const named = new Map(c.groups.map((g) => [g.label, g]));
    const flagged = [];
    for (const lab of c.flagged) {
      if (flagged.length) flagged.push(', ');
      const g = named.get(lab); // a flagged group past the listed ones: its name alone
      flagged.push(h('span', { className: 'flagged', dataset: { label: lab } }, g ? groupPct(g) : data(lab)));
    }
    return h('tr', { className: c.flagged.length ? 'has-flagged' : '', dataset: { dim: dimName, column: c.name,
      missingPct: c.missing_pct, missingCount: c.missing_count, flagged: c.flagged.length } },
    h('th', { attrs: { scope: 'row' } }, data(c.name)), h('td', { className: 'num' }, shareText(c.missing_pct, c.missing_count, nRows)),
    ...(tie === null ? [h('td', null, groupPct(low)), h('td', null, groupPct(high))]
      : [h('td', { className: 'tie', attrs: { colspan: '2' } }, `${missingShare(missingGroups(c, dimName)[0])} ${tie}`)]),
    h('td', null, flagged));
  }

  function missingTable(dimName, columns, nRows) {
    const table = h('table', { className: 'missing-table' },
      h('thead', null, h('tr', null, th('column'), th('overall'), th('lowest group'), th('highest group'), th('flagged'))));
    const body = h('tbody');
    for (const c of columns) body.appendChild(missingRow(dimName, c, nRows));
    table.appendChild(body);
    return h('div', { className: 'heat-wrap' }, table);
  }

  /** faircode/render.py missing_extremes_rule: how a column's lowest and highest group
   * were chosen (SPEC 17.5), naming the size floor the entries carry, so a `-` reads
   * with its reason; `--min-group-size` alone for a profile saved before they carried it. */
  function missingExtremesRule(entries) {
    const e = entries.find((x) => x.min_group_size !== undefined);
    const size = e ? `${num(e.min_group_size)} rows (--min-group-size)` : '--min-group-size rows';
    return `lowest and highest by share among the groups of at least ${size}, - where fewer than two are that large`;
  }

  function missingSection(entries, nRows) {
    const sec = h('section', { className: 'missing-by-group', attrs: { 'aria-label': 'Missing data by group' } },
      h('h2', null, 'Missing data by group'));
    if (!entries.some((e) => (e.columns && e.columns.length) || e.not_counted)) {
      sec.appendChild(h('p', { className: 'muted' }, 'No column has missing cells.'));
      return sec;
    }
    sec.appendChild(h('p', { className: 'muted' }, `The share of a column’s cells that are missing, per group; ${missingExtremesRule(entries)}.`));
    for (const e of entries) {
      if (e.not_counted) {
        sec.appendChild(h('p', { className: 'muted not-counted', dataset: { dim: e.dimension } }, data(e.dimension), ': ', notCountedText()));
        continue;
      }
      const card = h('article', { className: 'card missing', dataset: { dim: e.dimension, nColumns: e.columns.length } });
      card.appendChild(h('header', { className: 'card-head' }, h('h3', null, data(e.dimension))));
      if (!e.columns.length) {
        card.appendChild(h('p', { className: 'muted' }, 'No other column has missing cells.'));
        sec.appendChild(card);
        continue;
      }
      const [picked, rule] = missingColumnsShown(e);
      const absent = e.columns.find((c) => c.missing_group);
      card.appendChild(h('p', { className: 'facts' }, `${e.columns.length} columns with missing cells, ${rule}`,
        absent ? ['; ', data(missingGroupLabel(e.dimension)), `: ${num(absent.missing_group.count)} rows`] : ''));
      const scope = extremesScopeText(e.columns);
      if (scope) card.appendChild(h('p', { className: 'muted extremes-scope' }, scope));
      card.appendChild(missingTable(e.dimension, picked, nRows));
      if (picked.length < e.columns.length) {
        const more = h('details', { className: 'more-columns' }, h('summary', null, `all ${e.columns.length} columns with missing cells`));
        more.addEventListener('toggle', () => {
          if (!more.open || more.dataset.drawn) return;
          more.dataset.drawn = 'true';
          more.appendChild(missingTable(e.dimension, e.columns, nRows));
        });
        card.appendChild(more);
      }
      sec.appendChild(card);
    }
    return sec;
  }

  function shiftRow(label, cells, delta, dataset, scale) {
    return h('div', { className: 'bar-row', attrs: { role: 'listitem' }, dataset },
      h('div', { className: 'bar-label' }, label), deltaBar(delta, scale),
      h('div', { className: 'bar-value' }, `${cells[0]} → ${cells[1]} (${cells[2]})`));
  }

  function labelRateShifts(block) {
    const sec = h('section', { className: 'label-rates', attrs: { 'aria-label': 'Label rate shifts' },
      dataset: { label: block.label, positive: block.positive } },
    h('h2', null, 'Label rates, A → B: ', data(block.label), ' = ', data(block.positive)));
    if (!block.dimensions.length) sec.appendChild(h('p', { className: 'muted' }, 'No shared dimension with rates on both sides.'));
    for (const d of block.dimensions) {
      const scale = d.groups.reduce((m, g) => Math.max(m, Math.abs(g.rate_delta)), 0) || 1;
      const list = h('div', { className: 'bars', attrs: { role: 'list' } });
      for (const g of d.groups.slice(0, GROUPS_SHOWN)) {
        const cells = shiftCells(g.rate_a, g.rate_b, g.rate_delta, [g.positive_a, g.n_a, g.positive_b, g.n_b]);
        list.appendChild(shiftRow(data(g.label), cells, g.rate_delta,
          { dim: d.name, label: g.label, rateA: g.rate_a, rateB: g.rate_b, rateDelta: g.rate_delta }, scale));
      }
      const card = h('article', { className: 'card rates', dataset: { dim: d.name } },
        h('header', { className: 'card-head' }, h('h3', null, data(d.name))), list);
      if (d.groups.length > GROUPS_SHOWN) card.appendChild(h('p', { className: 'muted' }, moreGroupsText(d.groups.length - GROUPS_SHOWN)));
      sec.appendChild(card);
    }
    return sec;
  }

  function missingShifts(entries, nA, nB) {
    const sec = h('section', { className: 'missing-by-group', attrs: { 'aria-label': 'Missing data shifts' } },
      h('h2', null, 'Missing data by group, A → B'));
    const any = entries.some((e) => e.columns.some((c) => c.groups.length));
    if (!any) {
      sec.appendChild(h('p', { className: 'muted' }, 'No column has missing cells on either side.'));
      return sec;
    }
    sec.appendChild(h('p', { className: 'muted' }, `Per dimension the ${MISSING_SHIFT_COLUMNS} columns whose groups moved most.`));
    for (const e of entries) {
      const cols = e.columns.filter((c) => c.groups.length)
        .map((c, i) => [Math.abs(c.groups[0].missing_delta), i, c]).sort((x, y) => (y[0] - x[0]) || (x[1] - y[1])).map((x) => x[2]);
      if (!cols.length) continue;
      const table = h('table', { className: 'missing-table' },
        h('thead', null, h('tr', null, th('column'), th('overall A → B'), th('most moved group'), th('A → B'))));
      const body = h('tbody');
      for (const c of cols.slice(0, MISSING_SHIFT_COLUMNS)) {
        const g = c.groups[0];
        const all = shiftCells(c.missing_pct_a, c.missing_pct_b, c.missing_delta, [c.missing_count_a, nA, c.missing_count_b, nB]);
        const most = shiftCells(g.missing_pct_a, g.missing_pct_b, g.missing_delta, [g.missing_a, g.count_a, g.missing_b, g.count_b]);
        body.appendChild(h('tr', { dataset: { dim: e.dimension, column: c.name, label: g.label, missingDelta: g.missing_delta } },
          h('th', { attrs: { scope: 'row' } }, data(c.name)), h('td', null, `${all[0]} → ${all[1]}`),
          h('td', null, data(g.label)), h('td', null, `${most[0]} → ${most[1]}`)));
      }
      table.appendChild(body);
      const card = h('article', { className: 'card missing', dataset: { dim: e.dimension } },
        h('header', { className: 'card-head' }, h('h3', null, data(e.dimension))), h('div', { className: 'heat-wrap' }, table));
      if (cols.length > MISSING_SHIFT_COLUMNS) card.appendChild(h('p', { className: 'muted' }, `${cols.length - MISSING_SHIFT_COLUMNS} more columns`));
      sec.appendChild(card);
    }
    return sec;
  }

  /** The HTML report's start: the result JSON from <script type="application/json">. */
  function boot() {
    const holder = document.getElementById('faircode-result');
    const mount = document.getElementById('report');
    if (!holder || !mount) return;
    const payload = JSON.parse(holder.textContent);
    const view = payload.kind === 'compare' ? renderCompare(payload.result, payload.context)
      : renderProfile(payload.result, payload.context);
    mount.replaceChildren(view);
  }

  const api = { shown, GROUPS_SHOWN, GROUPS_LISTED, renderProfile, renderCompare, scoreRing, h, data, fmt, pct, pts, pctNotZero, shareText, missingShare, missingExtremes, missingExtremesRule, compareGroupCells, shiftCells, num, pText, boot };
  root.FaircodeViews = api;
  if (typeof document !== 'undefined' && document.getElementById && document.getElementById('faircode-result')) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
    else boot();
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);
