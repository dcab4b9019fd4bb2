// toolcoach dashboard: vanilla JS over the REST API (the key is sent as a Bearer token), charts with uPlot.
(function () {
  'use strict';
  const KEY_STORAGE = 'toolcoach.apiKey';
  const CATEGORY_COLORS = {
    argument_mismatch: '#f79009',
    out_of_range: '#7a5af8',
    overflow: '#ee46bc',
    unknown_tool: '#667085',
    timeout: '#2e90fa',
    runtime_error: '#f04438',
    unknown: '#98a2b3',
  };
  const view = document.getElementById('view');
  const keyInput = document.getElementById('api-key');
  const rangeSelect = document.getElementById('range');
  const charts = [];

  const esc = (value) =>
    String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const pct = (rate) => (rate === null || rate === undefined ? '–' : (rate * 100).toFixed(1) + '%');
  const num = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'));
  const ms = (n) => (n === null || n === undefined ? '–' : n.toFixed(n < 10 ? 1 : 0) + ' ms');
  const when = (iso) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '–');
  const apiKey = () => localStorage.getItem(KEY_STORAGE) || '';
  const clip = (text, max) => (text.length > max ? text.slice(0, max - 1) + '…' : text);

  // The events explorer's address with these filters set: every number on the page links to the events behind it.
  function eventsHref(filters) {
    const query = Object.entries(filters)
      .filter(([, value]) => value !== undefined && value !== null && value !== '')
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    return '#/events' + (query ? '?' + query : '');
  }
  const eventsLink = (filters, text) => `<a class="events-link" href="${esc(eventsHref(filters))}">${text}</a>`;

  // The selected range as occurredAt bounds for the explorer (the stats are bucketed by the same clock).
  function rangeFilters() {
    const days = Number(rangeSelect.value);
    const to = new Date();
    return { from: new Date(to.getTime() - days * 86400000).toISOString(), to: to.toISOString() };
  }

  // The project the key belongs to, shown in the header so nobody reads another project's numbers by mistake.
  async function showProject() {
    const target = document.getElementById('project');
    target.textContent = '';
    if (!apiKey()) return;
    const project = await api('/v1/project').catch(() => null);
    target.textContent = project ? 'project ' + project.name : '';
  }

  // A real message of each group (its newest sample's) instead of the fingerprint template with <str> and <int>.
  async function withSampleMessages(groups) {
    const details = await Promise.all(groups.map((g) => api('/v1/error-groups/' + g.id).catch(() => null)));
    return groups.map((g, i) => {
      const sample = details[i] && details[i].samples.find((s) => s.error);
      return { ...g, sampleMessage: sample ? sample.error.message : null };
    });
  }

  async function api(path, options = {}) {
    const response = await fetch(path, {
      method: options.method || 'GET',
      headers: { authorization: 'Bearer ' + apiKey(), ...(options.body ? { 'content-type': 'application/json' } : {}) },
      body: options.body ? JSON.stringify(options.body) : undefined,
    });
    const body = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) throw new Error((body && body.error && body.error.message) || 'HTTP ' + response.status);
    return body;
  }

  function rangeQuery() {
    const days = Number(rangeSelect.value);
    const to = new Date();
    const from = new Date(to.getTime() - days * 86400000);
    const bucket = days <= 2 ? 'hour' : 'day';
    return `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}&bucket=${bucket}`;
  }

  function clearCharts() {
    while (charts.length) charts.pop().destroy();
  }

  function lineChart(target, title, series, lines) {
    const x = series.map((p) => Date.parse(p.start) / 1000);
    const width = Math.max(300, target.clientWidth - 10);
    const options = {
      title,
      width,
      height: 240,
      scales: { x: { time: true } },
      series: [
        {},
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color,
          width: 2,
          fill: l.fill,
          points: { show: series.length < 60 },
          scale: l.scale || 'y',
          value: l.format,
        })),
      ],
      axes: [
        {},
        ...(lines.some((l) => (l.scale || 'y') === 'y') ? [{ scale: 'y' }] : []),
        ...(lines.some((l) => l.scale === '%')
          ? [{ scale: '%', side: 1, values: (u, v) => v.map((n) => n + '%'), grid: { show: false } }]
          : []),
      ],
    };
    if (lines.some((l) => l.scale === '%')) options.scales['%'] = { range: [0, 100] };
    charts.push(new uPlot(options, [x, ...lines.map((l) => series.map(l.value))], target));
  }

  function deltaHtml(value, isPoints, isGoodWhenUp) {
    if (value === null || value === undefined) return '<span class="delta">no previous data</span>';
    const shown = isPoints ? (value * 100).toFixed(1) + ' pts' : (value * 100).toFixed(0) + '%';
    const good = isGoodWhenUp ? value >= 0 : value <= 0;
    return `<span class="delta ${value === 0 ? '' : good ? 'up' : 'down'}">${value > 0 ? '+' : ''}${shown} vs previous period</span>`;
  }

  function toolsTableHtml(items) {
    if (items.length === 0) return '<p class="hint">No calls in this range.</p>';
    const categories = [...new Set(items.flatMap((t) => Object.keys(t.errorsByCategory)))].sort();
    return `<table data-testid="tools-table"><thead><tr><th>tool</th><th class="num">calls</th><th class="num">errors</th><th class="num">success rate</th><th class="num">p50</th><th class="num">p95</th><th>errors by category</th></tr></thead><tbody>${items
      .map(
        (t) =>
          `<tr data-tool="${esc(t.tool)}"><td><a href="#/tools/${encodeURIComponent(t.tool)}">${esc(t.tool)}</a></td><td class="num" data-field="calls">${eventsLink({ ...rangeFilters(), tool: t.tool }, num(t.calls))}</td><td class="num" data-field="errors">${eventsLink({ ...rangeFilters(), tool: t.tool, status: 'error' }, num(t.errors))}</td><td class="num ${t.successRate !== null && t.successRate < 0.9 ? 'rate-bad' : ''}" data-field="successRate">${pct(t.successRate)}</td><td class="num">${ms(t.latencyP50Ms)}</td><td class="num">${ms(t.latencyP95Ms)}</td><td>${categories
            .filter((c) => t.errorsByCategory[c])
            .map(
              (c) =>
                `<span class="pill"><i class="dot" data-category="${esc(c)}"></i>${esc(c)} ${eventsLink({ ...rangeFilters(), tool: t.tool, category: c }, num(t.errorsByCategory[c]))}</span>`,
            )
            .join(' ')}</td></tr>`,
      )
      .join('')}</tbody></table>`;
  }

  // The page's Content-Security-Policy refuses style attributes in markup; colours set through the DOM are allowed.
  function paintCategoryDots(root) {
    for (const dot of root.querySelectorAll('.dot[data-category]')) dot.style.background = CATEGORY_COLORS[dot.dataset.category] || '#999';
  }

  function groupsTableHtml(groups, showTool) {
    if (groups.length === 0) return '<p class="hint">No error groups.</p>';
    return `<table data-testid="error-groups"><thead><tr>${showTool ? '<th>tool</th>' : ''}<th>category</th><th>message</th><th class="num">count</th>${showTool ? '' : '<th>last seen</th>'}<th>status</th></tr></thead><tbody>${groups
      .map(
        (g) =>
          `<tr>${showTool ? `<td><a href="#/tools/${encodeURIComponent(g.tool)}">${esc(g.tool)}</a></td>` : ''}<td>${esc(g.category)}${g.subtype ? ' / ' + esc(g.subtype) : ''}${g.argumentPath ? ` <code>${esc(g.argumentPath)}</code>` : ''}</td><td class="msg" data-field="message">${esc(clip(g.sampleMessage || g.messageTemplate, 200))}</td><td class="num">${eventsLink({ errorGroup: g.id }, num(g.count))}</td>${showTool ? '' : `<td>${when(g.lastSeen)}</td>`}<td><span class="pill ${esc(g.status)}">${esc(g.status)}</span></td></tr>`,
      )
      .join('')}</tbody></table>`;
  }

  async function renderOverview() {
    const seq = routeSeq;
    const query = rangeQuery();
    const [overview, tools, registry, incidents, cost] = await Promise.all([
      api('/v1/stats/overview?' + query),
      api('/v1/stats/tools?sort=errors&limit=200&' + query.replace(/&bucket=\w+/, '')),
      // notes come with every page of the tools list: the smallest page is enough
      api('/v1/tools?format=raw&limit=1').catch(() => ({ notes: [] })),
      api('/v1/alerts/incidents?status=open&limit=20').catch(() => ({ items: [] })),
      api('/v1/description-cost?limit=1').catch(() => null),
    ]);
    const t = overview.totals;
    const topGroups = await withSampleMessages(overview.topErrorGroups);
    const confusions = await loadConfusions('/v1/confusions');
    show(
      seq,
      `
      ${incidentsHtml(incidents.items)}
      ${notesHtml(registry.notes || [])}
      <div class="cards">
        <div class="card"><div class="label">calls</div><div class="value" data-testid="total-calls">${eventsLink(rangeFilters(), num(t.calls))}</div>${deltaHtml(overview.trend.callsChange, false, true)}</div>
        <div class="card"><div class="label">success rate</div><div class="value" data-testid="success-rate">${pct(t.successRate)}</div>${deltaHtml(overview.trend.successRateChange, true, true)}</div>
        <div class="card"><div class="label">errors</div><div class="value" data-testid="total-errors">${eventsLink({ ...rangeFilters(), status: 'error' }, num(t.errors))}</div>${deltaHtml(overview.trend.errorsChange, false, false)}</div>
        <div class="card"><div class="label">latency p50 / p95</div><div class="value">${ms(t.latencyP50Ms)} <span class="muted">/ ${ms(t.latencyP95Ms)}</span></div></div>
        <div class="card"><div class="label">tokens added by warnings</div><div class="value" data-testid="warning-tokens-total">${num(cost && cost.project.warningTokens)} <span class="muted">/ ${num(cost && cost.project.descriptionTokens)}</span></div></div>
      </div>
      <div class="panel" id="overview-chart" data-testid="success-rate-chart"></div>
      <div class="grid2">
        <div class="panel"><h2>Top failing tools</h2>${toolsTableHtml(overview.topFailingTools).replace('tools-table', 'top-failing-tools')}</div>
        <div class="panel"><h2>Top error groups</h2>${groupsTableHtml(topGroups, true)}</div>
      </div>
      ${confusionsHtml(confusions)}
      <h2>Tools</h2>
      <div class="panel">${toolsTableHtml(tools.items)}</div>`,
    );
    paintCategoryDots(view);
    lineChart(document.getElementById('overview-chart'), 'Success rate and calls over time', overview.series, [
      {
        label: 'success rate',
        color: '#12b76a',
        scale: '%',
        value: (p) => (p.successRate === null ? null : +(p.successRate * 100).toFixed(2)),
        format: (u, v) => (v === null ? '–' : v + '%'),
      },
      { label: 'calls', color: '#2e6be6', value: (p) => p.calls },
      { label: 'errors', color: '#f04438', value: (p) => p.errors },
    ]);
  }

  // Open alert incidents (docs/alerts.md): what the project's alert rules say is wrong now.
  function incidentsHtml(incidents) {
    if (incidents.length === 0) return '';
    const items = incidents
      .map(
        (incident) =>
          `<li data-testid="open-incident" data-kind="${esc(incident.ruleKind)}">${esc(incident.summary)} <span class="muted">${esc(incident.ruleName)}, open since ${when(incident.openedAt)}</span></li>`,
      )
      .join('');
    return `<div class="panel notes" data-testid="open-incidents"><h2>Open incidents</h2><ul>${items}</ul></div>`;
  }

  // Project-level notes the nightly job left for people (e.g. calls to a tool name that is like no registered tool).
  function notesHtml(notes) {
    if (notes.length === 0) return '';
    const items = notes
      .map(
        (note) =>
          `<li data-testid="project-note" data-kind="${esc(note.kind)}">${esc(note.text)} <span class="muted">last seen ${when(note.evidence.lastSeen)}</span></li>`,
      )
      .join('');
    return `<div class="panel notes" data-testid="project-notes"><h2>Notes</h2><ul>${items}</ul></div>`;
  }

  // What holds a proposed recommendation (GET /v1/recommendations, waitingFor), in words.
  function waitingText(waiting) {
    switch (waiting.reason) {
      case 'canary':
        return `the running canary of ${waiting.tool} (since ${when(waiting.since)})`;
      case 'review':
        return `a person's review${waiting.reviewReason ? ': ' + waiting.reviewReason : ''}`;
      case 'auto_apply_off':
        return 'auto-apply, which is off';
      case 'kind_not_auto_applied':
        return `auto-apply of ${waiting.kind}, which the policy leaves out`;
      case 'below_thresholds':
        return `more occurrences (${waiting.count} of ${waiting.minOccurrences})`;
      case 'proposal_only':
        return 'a person: it is not applicable as a warning';
      case 'restates_applied':
        return 'the applied warning about the same mistakes to go: it says the same';
      case 'awaiting_approval':
        return "a person's approval (review mode)";
      default:
        return 'the next nightly run';
    }
  }

  function effectHtml(effect) {
    if (!effect) return '<span class="muted">not measured yet</span>';
    const w = effect.withWarning || {};
    const wo = effect.withoutWarning || {};
    const rate = (side) => (side.calls ? ((side.mistakes / side.calls) * 100).toFixed(1) + '%' : '–');
    // with the SDK guard on, the mistakes made with the warning include those the guard caught (README "Guarded execution")
    const guard =
      w.preventedCount || w.correctedCount
        ? ` <span class="muted" data-testid="effect-guard">of which the guard prevented ${num(w.preventedCount)}; it corrected ${num(w.correctedCount)} calls</span>`
        : '';
    return `<span class="pill ${esc(effect.verdict)}" data-testid="effect-verdict">${esc(effect.verdict)}</span> mistake rate ${rate(w)} with the warning (${num(w.calls)} calls) vs ${rate(wo)} without (${num(wo.calls)} calls)${guard}${breakdownHtml(effect.breakdown)}`;
  }

  // The same comparison per model and per framework (docs/rollout-statistics.md): one line per value with enough calls
  // on each side, beside the overall verdict; a divided one (helped for one value, worse for another) says so.
  function breakdownHtml(breakdown) {
    if (!breakdown) return '';
    const rate = (side) => (side.calls ? ((side.mistakes / side.calls) * 100).toFixed(1) + '%' : '–');
    const lines = ['model', 'framework'].flatMap((dimension) =>
      (breakdown[dimension] || []).map(
        (v) =>
          `<div data-testid="effect-breakdown-value" data-dimension="${dimension}" data-value="${esc(v.value)}">${dimension} <code>${esc(v.value)}</code>: <span class="pill ${esc(v.verdict)}">${esc(v.verdict)}</span> ${rate(v.withWarning)} with (${num(v.withWarning.calls)} calls) vs ${rate(v.withoutWarning)} without (${num(v.withoutWarning.calls)} calls)</div>`,
      ),
    );
    const omitted = breakdown.omitted.model + breakdown.omitted.framework;
    const note = `<div class="muted">${omitted ? `${num(omitted)} more with fewer than ${num(breakdown.minCallsPerSide)} calls on a side` : `values with at least ${num(breakdown.minCallsPerSide)} calls on each side`}</div>`;
    const divided = breakdown.isDivided ? '<div data-testid="effect-divided"><strong>helps some and hurts others</strong></div>' : '';
    return lines.length || omitted ? `<div class="breakdown" data-testid="effect-breakdown">${divided}${lines.join('')}${note}</div>` : '';
  }

  // The tool's canaries (docs/rollout.md): a running one with its design, which version everyone is served until the
  // next nightly look, each warning's calls and mistakes per side at the last look, when it is decided at the latest,
  // and buttons to promote or stop it; the ended ones with their decision.
  function canariesHtml(canaries) {
    if (canaries.length === 0) return '';
    const side = (s) => (s ? `${num(s.mistakes)}/${num(s.calls)} (v${s.version})` : '–');
    const rows = canaries
      .map((c) => {
        const warnings = (c.decision && c.decision.warnings) || (c.state && c.state.warnings) || [];
        const numbers = warnings.length
          ? warnings
              .map(
                (w) =>
                  `<div data-testid="canary-warning">${side(w.canary)} with it, ${side(w.previous)} without: ${esc(w.reason)}${breakdownHtml(w.breakdown)}</div>`,
              )
              .join('')
          : c.sides
            ? `<div data-testid="canary-warning">${side(c.sides.canary)} with it, ${side(c.sides.previous)} without (every failure, live)</div>`
            : '<span class="muted">not looked at yet</span>';
        const serving =
          c.status === 'running'
            ? c.design === 'alternating'
              ? `everyone gets v${c.state && c.state.servedUntilNextLook === 'previous' ? c.previousVersion : c.canaryVersion} until the next nightly`
              : `${Math.round(c.share * 100)}% of sticky ids get v${c.canaryVersion}`
            : '';
        const actions =
          c.status === 'running'
            ? `<button data-canary="${esc(c.id)}" data-canary-action="promote">Promote</button><button data-canary="${esc(c.id)}" data-canary-action="stop">Stop</button>`
            : '';
        return `<tr data-testid="canary" data-status="${esc(c.status)}"><td>v${c.canaryVersion} against v${c.previousVersion}<br><span class="muted">${esc(c.design)}, look ${num(c.looks)} of ${num(c.maxLooks)}</span></td><td><span class="pill ${esc(c.status)}" data-field="status">${esc(c.status)}</span><br><span class="muted" data-testid="canary-serving">${esc(serving)}</span></td><td>${numbers}${c.expectedDecision ? `<div class="muted" data-testid="canary-expected">decided ${esc(c.expectedDecision.text)}</div>` : ''}</td><td class="actions">${actions}</td></tr>`;
      })
      .join('');
    return `<div class="panel" data-testid="canaries"><h2>Canaries</h2><table><thead><tr><th>versions</th><th>status</th><th>mistakes per side</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`;
  }

  // Tools the sessions confused (docs/tool-confusion.md): a call of one answered by an error or nothing, then the other
  // with the same values. Each pair with its rate per session and example sessions, which open in the events explorer.
  function loadConfusions(path) {
    const days = Math.min(Number(rangeSelect.value), 90);
    const to = new Date();
    const from = new Date(to.getTime() - days * 86400000);
    const query = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}&limit=20`;
    return api(`${path}?${query}`)
      .then((page) => page.items)
      .catch(() => []);
  }

  function confusionsHtml(pairs) {
    if (pairs.length === 0) return '';
    const rows = pairs
      .map(
        (p) =>
          `<tr data-testid="confused-pair" data-tool="${esc(p.tool)}" data-confused-with="${esc(p.confusedWith)}"><td><a href="#/tools/${encodeURIComponent(p.tool)}">${esc(p.tool)}</a></td><td><a href="#/tools/${encodeURIComponent(p.confusedWith)}">${esc(p.confusedWith)}</a></td><td class="num" data-field="confusions">${num(p.confusions)}</td><td class="num">${num(p.confusedSessions)} / ${num(p.sessions)} <span class="muted">${pct(p.confusionRate)}</span></td><td class="muted">${p.versions
            .map((v) => `v${v.version}: ${num(v.confusedSessions)}/${num(v.sessions)}`)
            .join(', ')}</td><td class="msg">${p.exampleSessionIds
            .map((id) => eventsLink({ session: id }, esc(clip(id, 24))))
            .join(' ')}</td></tr>`,
      )
      .join('');
    return `<div class="panel" data-testid="confusions"><h2>Tool confusion</h2><table><thead><tr><th>called first</th><th>then, with the same values</th><th class="num">confusions</th><th class="num">sessions confused / calling either</th><th>per version of the first</th><th>example sessions</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  }

  // The registered definition judged before any mistake (docs/tool-quality.md): score and findings, worst first.
  function qualityHtml(report) {
    if (!report) return '';
    const rows = report.findings
      .map(
        (f) =>
          `<tr><td><span class="pill">${esc(f.severity)}</span></td><td>${esc(f.message)}<br><span class="muted">${esc(f.kind)} at ${esc(f.path)}</span></td><td>${esc(f.addition || f.fix)}</td></tr>`,
      )
      .join('');
    return `<div class="panel" data-testid="tool-quality"><h2>Definition quality: <span data-testid="quality-score">${num(report.score)}</span>/100</h2>${
      rows
        ? `<table><thead><tr><th>severity</th><th>finding</th><th>fix</th></tr></thead><tbody>${rows}</tbody></table>`
        : '<p class="hint">No findings.</p>'
    }</div>`;
  }

  // What the SDKs' guard did to this tool's calls (README "Guarded execution"): corrections by kind and prevented calls
  // per day, from GET /v1/tools/:name/guard-stats, which answers at most 31 days.
  const GUARD_STATS_MAX_DAYS = 31;
  async function loadGuardStats(tool) {
    const days = Math.min(Number(rangeSelect.value), GUARD_STATS_MAX_DAYS);
    const to = new Date();
    const from = new Date(to.getTime() - days * 86400000);
    const query = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
    return api(`/v1/tools/${tool}/guard-stats?${query}`)
      .then((stats) => ({ ...stats, days }))
      .catch(() => null);
  }

  function guardHtml(stats) {
    if (!stats) return '';
    const { totals, series, days } = stats;
    const kinds = Object.keys(totals.byKind).sort();
    const window = days < Number(rangeSelect.value) ? ` <span class="muted">(last ${days} days)</span>` : '';
    const cards = `<div class="cards">
        <div class="card"><div class="label">corrected calls</div><div class="value" data-testid="guard-corrected">${num(totals.corrected)}</div></div>
        <div class="card"><div class="label">prevented calls</div><div class="value" data-testid="guard-prevented">${num(totals.prevented)}</div></div>
        ${kinds.map((k) => `<div class="card"><div class="label">${esc(k)}</div><div class="value" data-testid="guard-kind" data-kind="${esc(k)}">${num(totals.byKind[k])}</div></div>`).join('')}
      </div>`;
    const rows = series
      .slice()
      .reverse()
      .map(
        (d) =>
          `<tr data-testid="guard-day"><td>${esc(d.day.slice(0, 10))}</td><td class="num">${num(d.corrected)}</td>${kinds
            .map((k) => `<td class="num">${num(d.byKind[k] || 0)}</td>`)
            .join('')}<td class="num">${num(d.prevented)}</td></tr>`,
      )
      .join('');
    const table = rows
      ? `<table><thead><tr><th>day (UTC)</th><th class="num">corrected</th>${kinds.map((k) => `<th class="num">${esc(k)}</th>`).join('')}<th class="num">prevented</th></tr></thead><tbody>${rows}</tbody></table>`
      : '<p class="hint">The guard corrected or prevented no call of this tool in this range.</p>';
    return `<div class="panel" data-testid="tool-guard"><h2>Guarded execution${window}</h2>${cards}${table}</div>`;
  }

  async function renderTool(name) {
    const seq = routeSeq;
    const tool = encodeURIComponent(name);
    const query = rangeQuery();
    const [stats, groups, description, recommendations, versions] = await Promise.all([
      api(`/v1/tools/${tool}/stats?${query}`),
      api(`/v1/tools/${tool}/error-groups?limit=20`),
      api(`/v1/tools/${tool}/description`).catch(() => null),
      api(`/v1/recommendations?tool=${tool}&limit=200`),
      api(`/v1/tools/${tool}/version-history?limit=20`).catch(() => ({ items: [] })),
    ]);
    const quality = await api(`/v1/tools?format=raw&names=${tool}`)
      .then((list) => (list.quality || []).find((q) => q.tool === name))
      .catch(() => undefined);
    const guardStats = await loadGuardStats(tool);
    const confusions = await loadConfusions(`/v1/tools/${tool}/confusions`);
    const canaries = await api(`/v1/rollout/canaries?tool=${tool}&limit=5`)
      .then((page) => page.items)
      .catch(() => []);
    const effectByWarning = new Map(recommendations.items.filter((r) => r.warningId).map((r) => [r.warningId, r]));
    const t = stats.totals;
    const categories = [...new Set(stats.series.flatMap((p) => Object.keys(p.errorsByCategory)))].sort();
    show(
      seq,
      `
      <h2 data-testid="tool-name">${esc(name)}</h2>
      <div class="cards">
        <div class="card"><div class="label">calls</div><div class="value" data-testid="tool-calls">${eventsLink({ ...rangeFilters(), tool: name }, num(t.calls))}</div></div>
        <div class="card"><div class="label">success rate</div><div class="value" data-testid="tool-success-rate">${pct(t.successRate)}</div></div>
        <div class="card"><div class="label">errors</div><div class="value" data-testid="tool-errors">${eventsLink({ ...rangeFilters(), tool: name, status: 'error' }, num(t.errors))}</div></div>
        <div class="card"><div class="label">latency p50 / p95</div><div class="value">${ms(t.latencyP50Ms)} <span class="muted">/ ${ms(t.latencyP95Ms)}</span></div></div>
        <div class="card"><div class="label">tokens added by warnings</div><div class="value" data-testid="tool-warning-tokens">${num(versions.items[0] && versions.items[0].warningTokens)} <span class="muted">/ ${num(versions.items[0] && versions.items[0].descriptionTokens)}</span></div></div>
      </div>
      <div class="panel" id="tool-chart"></div>
      ${qualityHtml(quality)}
      ${guardHtml(guardStats)}
      ${confusionsHtml(confusions)}
      ${canariesHtml(canaries)}
      <h2>Error groups</h2><div class="panel" id="tool-groups"></div>
      <div class="grid2">
        <div class="panel"><h2>Live description${description ? ' (version ' + description.version + ')' : ''}</h2>${
          description
            ? `<pre data-testid="live-description">${esc(description.description)}</pre><h2>Warnings</h2>${
                (description.warnings || []).length === 0
                  ? '<p class="hint">No active warnings.</p>'
                  : `<table data-testid="warnings"><tbody>${description.warnings
                      .map(
                        (w) =>
                          `<tr><td>${esc(w.text)}<br><span class="muted">${esc(w.kind || '')}</span></td><td>${effectHtml((effectByWarning.get(w.id) || {}).effect)}</td></tr>`,
                      )
                      .join('')}</tbody></table>`
              }`
            : '<p class="hint">This tool is not registered.</p>'
        }</div>
        <div class="panel"><h2>Version history</h2>${
          versions.items.length === 0
            ? '<p class="hint">No versions.</p>'
            : `<table data-testid="versions"><thead><tr><th>version</th><th>created</th><th class="num">warnings</th><th class="num">warning tokens</th><th class="num">calls</th><th class="num">error rate</th><th class="num">calls / session</th><th class="num">steps / session</th><th class="num">repeats / session</th></tr></thead><tbody>${versions.items
                .map(
                  (v) =>
                    `<tr><td>v${v.version}</td><td>${when(v.createdAt)}</td><td class="num">${(v.warnings || []).length}</td><td class="num" data-testid="warning-tokens">${num(v.warningTokens)}</td><td class="num">${num(v.calls)}</td><td class="num">${pct(v.errorRate)}</td><td class="num">${num(v.callsPerSession)}</td><td class="num">${num(v.stepsPerSession)}</td><td class="num" data-testid="repeats-per-session">${num(v.repeatsPerSession)}</td></tr>`,
                )
                .join('')}</tbody></table>`
        }</div>
      </div>`,
    );
    lineChart(document.getElementById('tool-chart'), 'Errors by category and success rate', stats.series, [
      {
        label: 'success rate',
        color: '#12b76a',
        scale: '%',
        value: (p) => (p.successRate === null ? null : +(p.successRate * 100).toFixed(2)),
      },
      { label: 'calls', color: '#2e6be6', value: (p) => p.calls },
      ...categories.map((c) => ({ label: c, color: CATEGORY_COLORS[c] || '#999', value: (p) => p.errorsByCategory[c] || 0 })),
    ]);
    view.querySelectorAll('button[data-canary]').forEach((button) =>
      button.addEventListener('click', async () => {
        button.disabled = true;
        await api(`/v1/rollout/canaries/${button.dataset.canary}/${button.dataset.canaryAction}`, { method: 'POST' }).catch(
          () => undefined,
        );
        route();
      }),
    );
    renderGroups(document.getElementById('tool-groups'), await withSampleMessages(groups.items));
  }

  function renderGroups(target, groups) {
    if (groups.length === 0) {
      target.innerHTML = '<p class="hint">No error groups.</p>';
      return;
    }
    target.innerHTML = groups
      .map(
        (g) =>
          `<details data-group="${esc(g.id)}"><summary><span class="pill ${esc(g.status)}">${esc(g.status)}</span> <b>${esc(g.category)}${g.subtype ? ' / ' + esc(g.subtype) : ''}</b> ${g.argumentPath ? `<code>${esc(g.argumentPath)}</code> ` : ''}<span data-field="message">${esc(clip(g.sampleMessage || g.messageTemplate, 200))}</span> <span class="muted">× ${eventsLink({ errorGroup: g.id }, num(g.count))}, since ${when(g.firstSeen)}</span></summary><div class="group-body muted">loading…</div></details>`,
      )
      .join('');
    target.querySelectorAll('details').forEach((el) => el.addEventListener('toggle', () => el.open && loadGroup(el), { once: false }));
  }

  async function loadGroup(el) {
    const body = el.querySelector('.group-body');
    const group = await api('/v1/error-groups/' + el.dataset.group);
    body.classList.remove('muted');
    body.innerHTML = `<p class="actions">${['open', 'resolved', 'ignored']
      .filter((s) => s !== group.status)
      .map((s) => `<button data-status="${s}">mark ${s}</button>`)
      .join('')}</p>
      <p><b>Argument values that failed:</b> ${group.failedArguments.map((a) => `<code>${esc(a.path || 'arguments')} = ${esc(JSON.stringify(a.value))}</code>`).join(', ') || '–'}</p>
      ${group.samples.map((s) => `<pre>${esc(when(s.occurredAt))} ${esc(s.agent || '')} ${esc(s.model || '')}\narguments: ${esc(JSON.stringify(s.arguments))}\n${esc(s.error ? (s.error.type ? s.error.type + ': ' : '') + s.error.message : '')}</pre>`).join('')}`;
    body.querySelectorAll('button[data-status]').forEach((button) =>
      button.addEventListener('click', async () => {
        await api('/v1/error-groups/' + group.id, { method: 'PATCH', body: { status: button.dataset.status } });
        route();
      }),
    );
  }

  function recommendationRow(r) {
    const isAwaitingApproval = r.status === 'proposed' && r.waitingFor && r.waitingFor.reason === 'awaiting_approval';
    const actions = isAwaitingApproval
      ? '<button class="primary" data-action="approve">Approve</button>'
      : r.status === 'proposed' && !r.evidence.proposalOnly
        ? '<button class="primary" data-action="apply">Apply</button>'
        : '';
    return `<tr data-recommendation="${esc(r.id)}"><td><a href="#/tools/${encodeURIComponent(r.tool)}">${esc(r.tool)}</a></td><td>${esc(r.text)}<br><span class="muted">${esc(r.kind)}${r.evidence.proposalOnly ? ` (not applicable as a warning: ${esc(r.evidence.proposalOnly)})` : ''}</span></td><td class="num">${(r.confidence * 100).toFixed(0)}%</td><td><span class="pill ${esc(r.status)}" data-field="status">${esc(r.status)}</span></td><td>${r.status === 'applied' ? effectHtml(r.effect) : r.status === 'proposed' && r.waitingFor ? `<span class="muted" data-testid="waiting-for">waits for ${esc(waitingText(r.waitingFor))}</span>` : ''}</td><td class="actions">${actions}${r.status !== 'dismissed' ? '<button data-action="dismiss">Dismiss</button>' : ''}</td></tr>`;
  }

  const RECOMMENDATIONS_HEAD =
    '<thead><tr><th>tool</th><th>recommendation</th><th class="num">confidence</th><th>status</th><th>effect</th><th></th></tr></thead>';

  async function renderRecommendations() {
    const seq = routeSeq;
    // review mode: what waits for a person's approval is listed first, from the proposed ones
    const [list, proposed] = await Promise.all([
      api('/v1/recommendations?limit=200'),
      api('/v1/recommendations?status=proposed&limit=200'),
    ]);
    const awaiting = proposed.items.filter((r) => r.waitingFor && r.waitingFor.reason === 'awaiting_approval');
    const rest = list.items.filter((r) => !awaiting.some((a) => a.id === r.id));
    show(
      seq,
      `<h2>Recommendations</h2>${
        awaiting.length === 0
          ? ''
          : `<div class="panel"><h3>Waits for your review</h3><p class="hint">Review mode is on: each of these is applied (as a canary while the rollout policy is on) once approved.</p><table data-testid="awaiting-review">${RECOMMENDATIONS_HEAD}<tbody>${awaiting.map(recommendationRow).join('')}</tbody></table></div>`
      }<div class="panel">${
        list.items.length === 0
          ? '<p class="hint">Nothing learned yet: the nightly job writes recommendations.</p>'
          : `<table data-testid="recommendations">${RECOMMENDATIONS_HEAD}<tbody>${rest.map(recommendationRow).join('')}</tbody></table>`
      }</div>`,
    );
    view.querySelectorAll('button[data-action]').forEach((button) =>
      button.addEventListener('click', async () => {
        const id = button.closest('tr').dataset.recommendation;
        button.disabled = true;
        try {
          await api(`/v1/recommendations/${id}/${button.dataset.action}`, { method: 'POST' });
          await renderRecommendations();
        } catch (error) {
          button.insertAdjacentHTML('afterend', `<span class="error">${esc(error.message)}</span>`);
        }
      }),
    );
  }

  // The unknown lane (docs/unknown-lane.md): templates of failures left unknown, each labelled with one pick.
  const LABEL_CHOICES = [
    ...['missing_argument', 'unknown_argument', 'type_mismatch', 'malformed_arguments'].map((s) => ['argument_mismatch', s]),
    ...['above_maximum', 'below_minimum', 'not_in_enum', 'invalid_format'].map((s) => ['out_of_range', s]),
    ...['overflow', 'unknown_tool', 'timeout', 'runtime_error'].map((c) => [c, null]),
  ];

  async function renderUnknown() {
    const seq = routeSeq;
    const page = await api('/v1/unknown-templates?limit=100');
    const options = LABEL_CHOICES.map(([c, s]) => `<option value="${c}|${s || ''}">${c}${s ? ' / ' + s : ''}</option>`).join('');
    show(
      seq,
      `<h2>Unknown lane</h2><div class="panel">${
        page.items.length === 0
          ? '<p class="hint">No failure was left unknown.</p>'
          : `<table data-testid="unknown-templates"><thead><tr><th>template</th><th class="num">count</th><th>last seen</th><th>label</th></tr></thead><tbody>${page.items
              .map(
                (t) =>
                  `<tr data-template="${esc(t.id)}"><td><code data-field="template">${esc(t.template)}</code><br><span class="muted">${esc(t.example.tool)}: ${esc(clip(t.example.message, 200))}</span></td><td class="num" data-field="count">${num(t.count)}</td><td>${when(t.lastSeen)}</td><td>${t.label ? `<span class="pill" data-field="label">${esc(t.label.category)}${t.label.subtype ? ' / ' + esc(t.label.subtype) : ''}</span>` : `<select aria-label="label">${options}</select> <button class="primary" data-action="label">Label</button>`}</td></tr>`,
              )
              .join('')}</tbody></table>`
      }</div>`,
    );
    view.querySelectorAll('button[data-action="label"]').forEach((button) =>
      button.addEventListener('click', async () => {
        const row = button.closest('tr');
        const [category, subtype] = row.querySelector('select').value.split('|');
        button.disabled = true;
        try {
          await api(`/v1/unknown-templates/${row.dataset.template}/label`, {
            method: 'POST',
            body: { category, subtype: subtype || null },
          });
          await renderUnknown();
        } catch (error) {
          button.insertAdjacentHTML('afterend', `<span class="error">${esc(error.message)}</span>`);
        }
      }),
    );
  }

  // Tool page: download the tool's failures in the selected range as JSON lines (GET /v1/events/export).
  function addExportButton(name) {
    const heading = document.querySelector('[data-testid="tool-name"]');
    if (!heading) return;
    heading.insertAdjacentHTML(
      'afterend',
      '<p class="actions"><button data-testid="export-failures">Export failures (JSONL)</button> <span class="muted" id="export-status"></span></p>',
    );
    const button = document.querySelector('[data-testid="export-failures"]');
    button.addEventListener('click', async () => {
      const status = document.getElementById('export-status');
      button.disabled = true;
      try {
        const query = Object.entries({ status: 'error', tool: name, ...rangeFilters() })
          .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
          .join('&');
        const response = await fetch('/v1/events/export?' + query, { headers: { authorization: 'Bearer ' + apiKey() } });
        if (!response.ok) throw new Error('export answered HTTP ' + response.status);
        const fileName = (/filename="([^"]+)"/.exec(response.headers.get('content-disposition') || '') || [])[1] || 'export.jsonl';
        const url = URL.createObjectURL(await response.blob());
        const link = document.createElement('a');
        link.href = url;
        link.download = fileName;
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10000);
        status.textContent = 'saved ' + fileName;
      } catch (error) {
        status.textContent = error.message;
      } finally {
        button.disabled = false;
      }
    });
  }

  const EVENT_FILTERS = [
    'tool',
    'status',
    'category',
    'agent',
    'model',
    'session',
    'errorGroup',
    'from',
    'to',
    'receivedFrom',
    'receivedTo',
  ];

  // The events explorer: every filter of GET /v1/events, a page at a time; a row opens the event, which can follow its session.
  async function renderEvents(params) {
    const seq = routeSeq;
    const filters = Object.fromEntries(EVENT_FILTERS.filter((name) => params.get(name)).map((name) => [name, params.get(name)]));
    const input = (name, placeholder) =>
      `<label>${name}<input name="${name}" value="${esc(filters[name] || '')}" placeholder="${esc(placeholder)}"></label>`;
    const select = (name, values) =>
      `<label>${name}<select name="${name}"><option value="">any</option>${values
        .map((v) => `<option${filters[name] === v ? ' selected' : ''}>${esc(v)}</option>`)
        .join('')}</select></label>`;
    show(
      seq,
      `
      <h2>Events</h2>
      <form class="panel filters" id="event-filters" data-testid="event-filters">
        ${input('tool', 'tool name')}${select('status', ['success', 'error'])}${select('category', Object.keys(CATEGORY_COLORS))}
        ${input('agent', 'agent')}${input('model', 'model')}${input('session', 'session id')}
        ${input('from', 'occurredAt from (ISO)')}${input('to', 'occurredAt to (ISO)')}
        ${filters.errorGroup ? `<input type="hidden" name="errorGroup" value="${esc(filters.errorGroup)}"><span class="pill">error group ${esc(filters.errorGroup.slice(0, 8))}</span>` : ''}
        ${filters.receivedFrom ? `<input type="hidden" name="receivedFrom" value="${esc(filters.receivedFrom)}"><input type="hidden" name="receivedTo" value="${esc(filters.receivedTo || '')}"><span class="pill">received ${when(filters.receivedFrom)} – ${when(filters.receivedTo)}</span>` : ''}
        <button class="primary" type="submit">Filter</button> <a href="#/events">clear</a>
      </form>
      <div class="grid-explorer">
        <div class="panel"><table data-testid="events-table"><thead><tr><th>occurred</th><th>tool</th><th>status</th><th>category</th><th>agent / model</th><th>session</th><th>error</th></tr></thead><tbody></tbody></table>
          <p><button id="more-events" hidden>Load more</button> <span class="muted" id="events-count"></span></p></div>
        <div class="panel" id="event-detail" data-testid="event-detail"><p class="hint">Open an event to see its arguments, error and diagnosis.</p></div>
      </div>`,
    );
    document.getElementById('event-filters').addEventListener('submit', (event) => {
      event.preventDefault();
      const form = new FormData(event.target);
      location.hash = eventsHref(Object.fromEntries([...form.entries()].filter(([, v]) => v !== '')));
    });
    const body = view.querySelector('[data-testid="events-table"] tbody');
    const more = document.getElementById('more-events');
    let shown = 0;
    const loadPage = async (cursor) => {
      const query = new URLSearchParams({ ...filters, limit: '50', ...(cursor ? { cursor } : {}) });
      const page = await api('/v1/events?' + query.toString());
      body.insertAdjacentHTML('beforeend', page.items.map(eventRowHtml).join(''));
      shown += page.items.length;
      document.getElementById('events-count').textContent = shown === 0 ? 'No events match.' : `${num(shown)} shown`;
      more.hidden = !page.nextCursor;
      more.onclick = () => loadPage(page.nextCursor);
      paintCategoryDots(body);
    };
    body.addEventListener('click', (event) => {
      const row = event.target.closest('tr[data-event]');
      if (row && !event.target.closest('a')) openEvent(row.dataset.event);
    });
    await loadPage();
  }

  function eventRowHtml(e) {
    const message = e.error ? clip(e.error.message, 140) : '';
    return `<tr data-event="${esc(e.id)}" class="clickable"><td>${when(e.occurredAt)}</td><td>${esc(e.tool)}</td><td><span class="pill ${e.status === 'error' ? 'regressed' : 'resolved'}">${esc(e.status)}</span>${guardPill(e)}</td><td>${e.category ? `<i class="dot" data-category="${esc(e.category)}"></i>${esc(e.category)}` : ''}</td><td>${esc(e.agent || '–')}<br><span class="muted">${esc(e.model || '')}</span></td><td class="msg">${e.sessionId ? eventsLink(sessionFilters(e), esc(clip(e.sessionId, 40))) : ''}</td><td class="msg">${esc(message)}</td></tr>`;
  }

  // What an SDK's guard did to the call, as the event reported it: refused it (the tool never ran) or corrected it.
  function guardPill(e) {
    if (e.prevented) return ' <span class="pill" data-guard="prevented">prevented</span>';
    return e.correction ? ' <span class="pill" data-guard="corrected">corrected</span>' : '';
  }

  function guardText(e) {
    if (e.prevented) return 'prevented: the guard refused the call, the tool never ran';
    return e.correction ? `corrected (${e.correction.kinds.map(esc).join(', ')}): the tool ran with the corrected arguments` : '–';
  }

  // A session's events: by session id, within a day either side of when this event was received (partition pruning).
  function sessionFilters(e) {
    const received = Date.parse(e.receivedAt);
    return {
      session: e.sessionId,
      receivedFrom: new Date(received - 86400000).toISOString(),
      receivedTo: new Date(received + 86400000).toISOString(),
    };
  }

  async function openEvent(id) {
    const target = document.getElementById('event-detail');
    const e = await api('/v1/events/' + encodeURIComponent(id));
    const field = (label, value) => `<tr><th>${label}</th><td class="msg">${value}</td></tr>`;
    target.innerHTML = `<h2>Event <code data-testid="event-id">${esc(e.id)}</code></h2><table><tbody>
      ${field('tool', `<a href="#/tools/${encodeURIComponent(e.tool)}">${esc(e.tool)}</a>`)}
      ${field('status', esc(e.status))}
      ${field('occurred / received', `${when(e.occurredAt)} / ${when(e.receivedAt)}`)}
      ${field('description version', `<span data-testid="event-version">${e.descriptionVersion === null ? 'not reported' : 'v' + e.descriptionVersion}</span>`)}
      ${field('category', `<span data-testid="event-category">${esc(e.category || '–')}</span>${e.subtype ? ' / ' + esc(e.subtype) : ''}${e.argumentPath ? ` at <code>${esc(e.argumentPath)}</code>` : ''}`)}
      ${field('evidence', esc(e.evidence || '–') + (e.resultRule ? ` <span data-testid="event-result-rule">(rule ${esc(e.resultRule)}: reported as a success)</span>` : '') + (e.intendedArgument ? ` (meant <code>${esc(e.intendedArgument)}</code>)` : ''))}
      ${field('guard', `<span data-testid="event-guard">${guardText(e)}</span>`)}
      ${field('agent / model', `${esc(e.agent || '–')} / ${esc(e.model || '–')}`)}
      ${field('session', e.sessionId ? `${esc(e.sessionId)} ${eventsLink(sessionFilters(e), 'follow session')}` : '–')}
      </tbody></table>
      <h2>Arguments</h2><pre data-testid="event-arguments">${esc(JSON.stringify(e.arguments, null, 2))}</pre>
      ${e.correction ? `<h2>Correction</h2><p class="muted">as the model sent them</p><pre data-testid="event-correction-original">${esc(JSON.stringify(e.correction.original, null, 2))}</pre><p class="muted">as the tool got them</p><pre data-testid="event-correction-corrected">${esc(JSON.stringify(e.correction.corrected, null, 2))}</pre>` : ''}
      ${e.error ? `<h2>Error</h2><pre data-testid="event-error">${esc((e.error.type ? e.error.type + ': ' : '') + e.error.message)}</pre>` : ''}`;
    target.querySelector('a.events-link')?.setAttribute('data-testid', 'follow-session');
  }

  // Success rate and error mix per agent and per model (rollups by agent and model), each number linking to its events.
  async function renderAgents() {
    const seq = routeSeq;
    const range = rangeFilters();
    const query = `from=${encodeURIComponent(range.from)}&to=${encodeURIComponent(range.to)}&limit=200`;
    const [agents, models] = await Promise.all([api('/v1/stats/agents?' + query), api('/v1/stats/models?' + query)]);
    const table = (dimension, rows) =>
      rows.length === 0
        ? '<p class="hint">No calls in this range.</p>'
        : `<table data-testid="${dimension}-table"><thead><tr><th>${dimension}</th><th class="num">calls</th><th class="num">errors</th><th class="num">success rate</th><th>errors by category</th></tr></thead><tbody>${rows
            .map((r) => {
              const only = r.name === null ? {} : { [dimension]: r.name };
              return `<tr data-name="${esc(r.name === null ? '' : r.name)}"><td>${r.name === null ? '<span class="muted">not reported</span>' : esc(r.name)}</td><td class="num" data-field="calls">${r.name === null ? num(r.calls) : eventsLink({ ...range, ...only }, num(r.calls))}</td><td class="num" data-field="errors">${r.name === null ? num(r.errors) : eventsLink({ ...range, ...only, status: 'error' }, num(r.errors))}</td><td class="num ${r.successRate !== null && r.successRate < 0.9 ? 'rate-bad' : ''}" data-field="successRate">${pct(r.successRate)}</td><td>${Object.entries(
                r.errorsByCategory,
              )
                .sort((a, b) => b[1] - a[1])
                .map(([c, n]) => `<span class="pill"><i class="dot" data-category="${esc(c)}"></i>${esc(c)} ${num(n)}</span>`)
                .join(' ')}</td></tr>`;
            })
            .join('')}</tbody></table>`;
    show(
      seq,
      `<h2>Agents</h2><div class="panel">${table('agent', agents.items)}</div><h2>Models</h2><div class="panel">${table('model', models.items)}</div>`,
    );
    paintCategoryDots(view);
  }

  // Each route() starts a render; renders of earlier routes may still be waiting for their data. Only the latest may
  // write the page: a slow page left behind (the overview, say) must not replace the one the user went to since.
  let routeSeq = 0;
  /** Discarded renders, counted on the view (data-stale-renders) so a test can tell one was discarded. */
  let staleRenders = 0;
  class StaleRender extends Error {}

  /** Writes the view for the render that started as route `seq`, or stops that render if a later route began. */
  function show(seq, html) {
    if (seq !== routeSeq) throw new StaleRender();
    view.innerHTML = html;
  }

  async function route() {
    const seq = ++routeSeq;
    const hash = location.hash || '#/';
    document.querySelectorAll('nav a').forEach((a) => a.classList.toggle('active', hash.split('?')[0] === a.getAttribute('href')));
    if (!apiKey()) {
      view.innerHTML = '<p class="hint">Enter your project\'s API key to see its dashboard.</p>';
      return;
    }
    clearCharts();
    view.setAttribute('aria-busy', 'true');
    try {
      if (hash.startsWith('#/tools/')) {
        const name = decodeURIComponent(hash.slice('#/tools/'.length));
        await renderTool(name);
        addExportButton(name);
      } else if (hash === '#/events' || hash.startsWith('#/events?'))
        await renderEvents(new URLSearchParams(hash.slice('#/events'.length)));
      else if (hash === '#/agents') await renderAgents();
      else if (hash === '#/recommendations') await renderRecommendations();
      else if (hash === '#/unknown') await renderUnknown();
      else await renderOverview();
    } catch (error) {
      if (error instanceof StaleRender || seq !== routeSeq) view.dataset.staleRenders = String(++staleRenders);
      else view.innerHTML = `<p class="error">${esc(error.message)}</p>`;
    } finally {
      if (seq === routeSeq) view.setAttribute('aria-busy', 'false');
    }
  }

  document.getElementById('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    localStorage.setItem(KEY_STORAGE, keyInput.value.trim());
    keyInput.value = '';
    showProject();
    route();
  });
  rangeSelect.addEventListener('change', route);
  window.addEventListener('hashchange', route);
  showProject();
  route();
})();
