// WAI-ARIA tabs: arrow keys, Home and End move between tabs. A person's choice is reported to
// onChoose (which updates the URL); mark() reflects the URL without reporting back.

export function setUpTabs(tablist, onChoose) {
  const tabs = [...tablist.querySelectorAll('[role="tab"]')];
  const nameOf = (tab) => tab.id.replace(/^tab-/, '');

  function mark(name) {
    for (const tab of tabs) {
      const selected = nameOf(tab) === name;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      document.getElementById(tab.getAttribute('aria-controls')).hidden = !selected;
    }
  }

  tablist.addEventListener('click', (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (!tab) return;
    mark(nameOf(tab));
    onChoose(nameOf(tab));
  });
  tablist.addEventListener('keydown', (event) => {
    const index = tabs.indexOf(document.activeElement);
    if (index < 0) return;
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length];
    tab.focus();
    mark(nameOf(tab));
    onChoose(nameOf(tab));
  });

  return { mark };
}
