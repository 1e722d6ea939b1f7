// A table's scrolling wrapper with a "Download CSV" button above it: exports the rows shown, header first.
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { tableRows, toCsv } from '../lib/csv';

export function TableExport({ name, children }: { name: string; children: ComponentChildren }) {
  const wrapper = useRef<HTMLDivElement>(null);
  function download() {
    const table = wrapper.current?.querySelector('table');
    if (table === null || table === undefined) return;
    const url = URL.createObjectURL(new Blob([toCsv(tableRows(table))], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${name}-${new Date().toISOString().slice(0, 10)}.csv`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
  return (
    <div ref={wrapper} class="table-export">
      <div class="row">
        <button type="button" onClick={download} aria-label={`Download ${name} as CSV`}>
          Download CSV
        </button>
      </div>
      <div class="table-wrap">{children}</div>
    </div>
  );
}
