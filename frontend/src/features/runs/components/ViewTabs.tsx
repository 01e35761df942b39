import { useRef, type KeyboardEvent, type ReactNode } from "react";

export interface Tab<K extends string> {
  key: K;
  label: string;
}

const tabId = (key: string) => `run-tab-${key}`;
const panelId = (key: string) => `run-panel-${key}`;

/**
 * ARIA tabs (one tab stop, the selected tab; ←/→, Home and End move between tabs and select them). The
 * panels are ``TabPanel``s with the same keys.
 */
export function TabList<K extends string>({
  label,
  tabs,
  selected,
  onSelect,
}: {
  label: string;
  tabs: readonly Tab<K>[];
  selected: K;
  onSelect: (key: K) => void;
}) {
  const buttons = useRef(new Map<K, HTMLButtonElement>());
  const choose = (index: number) => {
    const tab = tabs[(index + tabs.length) % tabs.length]!;
    onSelect(tab.key);
    buttons.current.get(tab.key)?.focus();
  };
  const onKey = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const to = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    choose(to);
  };
  return (
    <div role="tablist" aria-label={label} className="run-tabs">
      {tabs.map((tab, index) => (
        <button
          key={tab.key}
          ref={(el) => {
            if (el) buttons.current.set(tab.key, el);
            else buttons.current.delete(tab.key);
          }}
          type="button"
          role="tab"
          id={tabId(tab.key)}
          aria-selected={tab.key === selected}
          aria-controls={panelId(tab.key)}
          tabIndex={tab.key === selected ? 0 : -1}
          onClick={() => onSelect(tab.key)}
          onKeyDown={(e) => onKey(e, index)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** A tab's panel: kept in the page while hidden (its state, and what the tests read, stay). */
export function TabPanel({ tab, selected, children }: { tab: string; selected: boolean; children: ReactNode }) {
  return (
    <div role="tabpanel" id={panelId(tab)} aria-labelledby={tabId(tab)} hidden={!selected} data-testid={`run-panel-${tab}`}>
      {children}
    </div>
  );
}
