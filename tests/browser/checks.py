"""What every page must pass at each screen width (issue 23): nothing scrolls sideways, axe-core
finds no serious or critical problem, and every control is big enough to tap.

Tap targets (WCAG 2.2 §2.5.5 / §2.5.8, and the 44 px of Apple's and Google's guides): a
control (button, input, select, summary, a link that is the whole item) is at least 44×44 px;
a link inside running text (a sentence or a line of names: its block holds other words) is
exempt from that, but its line is at least 24 px tall. A link in a list's or a table's row
is not in running text (unless in a paragraph of the row): the row is a target a thumb aims
at, so it is 44 px tall (issue 37.5). A checkbox or radio counts with its
label, which is what a thumb presses.
"""

from __future__ import annotations

from typing import Any

# Widths every page is checked at: the narrowest phones, a common phone, a desktop.
WIDTHS = (360, 390, 1280)
HEIGHT = {360: 740, 390: 844, 1280: 800}
BLOCKING = {"serious", "critical"}
CONTROL_PX = 44
INLINE_LINK_PX = 24

SIDEWAYS_JS = """() => {
  const root = document.documentElement;
  if (root.scrollWidth <= root.clientWidth) return null;
  const past = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > root.clientWidth + 1)
    .slice(-4).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''));
  return `${root.scrollWidth} > ${root.clientWidth} px: ${past.join(', ')}`;
}"""

TAP_TARGETS_JS = """([control, inline]) => {
  const shown = e => {
    if (e.closest('[hidden], [aria-hidden=true], .visually-hidden, .skip-link, noscript')) return false;
    const s = getComputedStyle(e);
    if (s.visibility === 'hidden' || s.display === 'none') return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const blockOf = e => {
    let b = e.parentElement;
    while (b && getComputedStyle(b).display.startsWith('inline')) b = b.parentElement;
    return b;
  };
  // A row of a list or table is no sentence (issue 37.5): a link in it is the row's target,
  // unless it sits in a paragraph of the row.
  const PROSE = 'p, dd, blockquote, figcaption, label, legend, caption, .helptext';
  const inRow = a => {
    const row = a.closest('td, th, li');
    const prose = a.closest(PROSE);
    return !!row && !(prose && row.contains(prose));
  };
  const inRunningText = a => {
    if (inRow(a)) return false;
    const block = blockOf(a);
    if (!block) return false;
    const own = (a.textContent || '').replace(/\\s+/g, '');
    let rest = '';
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (a.contains(n) || n.parentElement.closest('a, button, script, style, .visually-hidden')) continue;
      rest += n.textContent;
    }
    return rest.replace(/[\\s·|,&–—-]+/g, '').length > 0 && !a.matches('.button');
  };
  const label = e => {
    let r = e.getBoundingClientRect();
    const wrap = e.closest('label') || (e.id && document.querySelector(`label[for="${e.id}"]`));
    if (wrap) {
      const l = wrap.getBoundingClientRect();
      r = {width: Math.max(r.width, l.width), height: Math.max(r.height, l.height)};
    }
    return r;
  };
  const name = e => (e.getAttribute('aria-label') || e.textContent || e.value || e.name || '')
    .replace(/\\s+/g, ' ').trim().slice(0, 40);
  const small = [];
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]';
  for (const e of document.querySelectorAll(sel)) {
    if (!shown(e)) continue;
    const tag = e.tagName.toLowerCase();
    const what = `${tag}${e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : ''} "${name(e)}"`;
    if (tag === 'a' && inRunningText(e)) {
      const line = parseFloat(getComputedStyle(e).lineHeight) || 0;
      const h = Math.max(e.getBoundingClientRect().height, line);
      if (h < inline - 0.5) small.push(`${what} in running text: line ${h.toFixed(0)} px`);
      continue;
    }
    const r = (e.type === 'checkbox' || e.type === 'radio') ? label(e) : e.getBoundingClientRect();
    if (r.width < control - 0.5 || r.height < control - 0.5) {
      small.push(`${what}: ${r.width.toFixed(0)}×${r.height.toFixed(0)} px`);
    }
  }
  return small;
}"""


def sideways(page: Any) -> str | None:
    """Why the page scrolls sideways (the widest elements past the edge), or None."""
    return page.evaluate(SIDEWAYS_JS)


def small_targets(page: Any) -> list[str]:
    """The controls smaller than a thumb (44×44 px; a link in running text: a 24 px line)."""
    return page.evaluate(TAP_TARGETS_JS, [CONTROL_PX, INLINE_LINK_PX])


def make_axe() -> Any:
    """axe-core (shipped in axe-playwright-python, injected: no network): a function giving
    the serious and critical violations on a page."""
    from axe_playwright_python.sync_playwright import Axe

    runner = Axe()

    def run(page: Any) -> list[str]:
        violations = runner.run(page).response["violations"]
        return [
            f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in violations
            if v["impact"] in BLOCKING
        ]

    return run


def check_widths(page: Any, axe: Any, where: str, widths: tuple[int, ...] = WIDTHS) -> list[str]:
    """The page as loaded, at each width (resized, not reloaded): what is wrong."""
    problems = []
    for width in widths:
        page.set_viewport_size({"width": width, "height": HEIGHT.get(width, 800)})
        here = f"{where} at {width}px"
        if why := sideways(page):
            problems.append(f"{here} scrolls sideways: {why}")
        problems += [f"{here}: small target {t}" for t in small_targets(page)]
        problems += [f"{here}: {v}" for v in axe(page)]
    return problems
