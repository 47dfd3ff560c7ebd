/**
 * Source and sync selection: the sources list, and for the chosen source its syncs as checkboxes (completed ones can
 * be merged; the newest completed one is picked by default).
 */
import type { Api, Source, SyncRun } from './api.ts';
import { el } from './dom.ts';

export interface Picker {
  loadSources(preferId?: string): Promise<Source | undefined>;
  loadSyncs(sourceId: string, select?: string[]): Promise<string[]>;
  selectedSource(): string | undefined;
  selectedSyncs(): string[];
  /** How people name a sync: its time and ref (`27/11/2026, 21:05 @ main`), from the syncs last listed. */
  syncName(syncId: string): string;
  onSourceChange(listener: () => void): void;
  onSyncsChange(listener: (syncIds: string[]) => void): void;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '');

export function createPicker(
  sourceSelect: HTMLSelectElement,
  syncBox: HTMLElement,
  syncSummary: HTMLElement,
  api: Api,
): Picker {
  const sourceListeners: Array<() => void> = [];
  const listed = new Map<string, SyncRun>();
  const nameOf = (s: SyncRun) => `${when(s.created_at)}${s.ref ? ` @ ${s.ref}` : ''}`;
  const syncListeners: Array<(syncIds: string[]) => void> = [];
  const boxes = () => [...syncBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
  const summarise = () => {
    const n = boxes().filter((b) => b.checked).length;
    syncSummary.textContent = n === 1 ? '1 sync' : `${n} syncs`;
  };
  const selected = () =>
    boxes()
      .filter((b) => b.checked)
      .map((b) => b.value);
  sourceSelect.addEventListener('change', () => sourceListeners.forEach((l) => l()));
  syncBox.addEventListener('change', () => {
    summarise();
    const ids = selected();
    syncListeners.forEach((l) => l(ids));
  });

  return {
    async loadSources(preferId) {
      const { items } = await api.get<{ items: Source[] }>('/api/sources', { limit: 200 });
      const keep = preferId ?? sourceSelect.value;
      sourceSelect.replaceChildren(...items.map((s) => el('option', { value: s.id }, `${s.owner}/${s.name}`)));
      const chosen = items.find((s) => s.id === keep) ?? items.find((s) => s.last_sync_id) ?? items[0];
      if (chosen) sourceSelect.value = chosen.id;
      return chosen;
    },
    async loadSyncs(sourceId, select) {
      const { items } = await api.get<{ items: SyncRun[] }>('/api/syncs', { source_id: sourceId, limit: 50 });
      for (const s of items) listed.set(s.id, s);
      const completed = items.filter((s) => s.status === 'completed');
      const wanted = new Set(select?.length ? select : completed.slice(0, 1).map((s) => s.id));
      syncBox.replaceChildren(
        ...items.map((s) => {
          const box = el('input', { type: 'checkbox', value: s.id, 'data-status': s.status });
          box.checked = wanted.has(s.id) && s.status === 'completed';
          box.disabled = s.status !== 'completed';
          return el(
            'label',
            { class: `sync sync-${s.status}`, title: s.id },
            box,
            ` ${when(s.completed_at ?? s.created_at)} · ${s.status}${s.ref ? ` · ${s.ref}` : ''}`,
          );
        }),
      );
      if (items.length === 0) syncBox.append(el('p', { class: 'muted' }, 'No syncs yet.'));
      summarise();
      return selected();
    },
    selectedSource: () => sourceSelect.value || undefined,
    selectedSyncs: selected,
    syncName: (syncId) => {
      const s = listed.get(syncId);
      return s ? nameOf(s) : syncId.slice(0, 8);
    },
    onSourceChange: (l) => sourceListeners.push(l),
    onSyncsChange: (l) => syncListeners.push(l),
  };
}
