// The docs page's search, run in the reader's browser: as the reader types, it lists the
// operations, schemas and other answers whose name, path or text holds every word typed (names
// first, then paths, then text), in place of the table of contents. Enter follows the first
// hit, the down arrow moves into the list, Escape clears the search. The page reads completely
// without it: the search box stays hidden unless this script runs.
(() => {
  const MAX_HITS = 20;
  const box = document.getElementById('search');
  const field = document.getElementById('search-field');
  const status = document.getElementById('search-status');
  const results = document.getElementById('search-results');
  const contents = document.querySelector('nav .toc');

  // What a reader reads of an entry, without its JSON examples and schemas: they repeat every
  // field name and would make every entry match.
  const readableText = (element) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement.closest('pre') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const parts = [];
    while (walker.nextNode()) parts.push(walker.currentNode.data);
    return parts.join(' ').toLowerCase();
  };

  // Built on the first search, not on load: most readers never search.
  let entries;
  const index = () => {
    entries ??= [...document.querySelectorAll('main [data-name]')].map((element, order) => ({
      id: element.id,
      name: element.dataset.name,
      kind: element.dataset.kind,
      path: element.dataset.path ?? '',
      text: readableText(element),
      order,
    }));
    return entries;
  };

  // 0 when a word is missing; otherwise more for words in the name, then in the path.
  const score = (entry, words) => {
    let total = entry.kind === 'operation' ? 1 : 0;
    for (const word of words) {
      if (entry.name.toLowerCase().includes(word)) total += 8;
      else if (entry.path.toLowerCase().includes(word)) total += 4;
      else if (entry.text.includes(word)) total += 1;
      else return 0;
    }
    return total;
  };

  const span = (className, text) => {
    const element = document.createElement('span');
    element.className = className;
    element.textContent = text;
    return element;
  };

  // A path may wrap after its slashes, like the table of contents' paths, and nowhere else.
  const pathSpan = (path) => {
    const element = span('path', '');
    path.split(/(?<=\/)/).forEach((part, at) => {
      if (at > 0) element.append(document.createElement('wbr'));
      element.append(part);
    });
    return element;
  };

  const show = () => {
    const words = field.value.toLowerCase().split(/\s+/).filter(Boolean);
    contents.hidden = words.length > 0;
    results.replaceChildren();
    if (words.length === 0) {
      status.textContent = '';
      return;
    }
    const hits = index()
      .map((entry) => ({ entry, score: score(entry, words) }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.entry.order - b.entry.order);
    status.textContent =
      hits.length === 0
        ? 'Nothing matches.'
        : `${hits.length} ${hits.length === 1 ? 'match' : 'matches'}${hits.length > MAX_HITS ? `, the first ${MAX_HITS} shown` : ''}.`;
    for (const { entry } of hits.slice(0, MAX_HITS)) {
      const link = document.createElement('a');
      link.href = `#${entry.id}`;
      // Text only (textContent): what the document says never becomes markup.
      link.append(entry.name, ' ', span('kind', entry.kind), pathSpan(entry.path));
      const item = document.createElement('li');
      item.append(link);
      results.append(item);
    }
  };

  // Where a hit leads, the focus follows (to its heading), so that the keyboard and a screen
  // reader carry on from there rather than from the search box.
  results.addEventListener('click', (event) => {
    const link = event.target.closest('a');
    const heading = link && document.getElementById(link.hash.slice(1))?.querySelector('h2, h3');
    if (!heading) return;
    // After the browser's own jump to the anchor, which leaves the focus nowhere.
    setTimeout(() => {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    });
  });
  field.addEventListener('input', show);
  field.addEventListener('keydown', (event) => {
    const first = results.querySelector('a');
    if (event.key === 'Enter' && first) {
      event.preventDefault();
      first.click();
    } else if (event.key === 'ArrowDown' && first) {
      event.preventDefault();
      first.focus();
    } else if (event.key === 'Escape') {
      field.value = '';
      show();
    }
  });
  box.hidden = false;
})();
