// Small building blocks every page uses: headings, notices, labelled fields, buttons, pager, key-value lists.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { errorText } from '../lib/format';
import { RpcError } from '../lib/rpc';
import { hasNavigated } from '../lib/router';

export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // Focus moves to the new page's heading, so keyboard and screen-reader users land on what changed.
  useEffect(() => {
    if (hasNavigated) ref.current?.focus();
  }, []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card" aria-label={title}>
      <div class="card-head">
        <h2>{title}</h2>
        {actions === undefined ? null : <div class="actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** An error from a call, in words; `-32601` and `unavailable` read as "not available". */
export function ErrorNotice({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const text = error instanceof RpcError && error.code === -32601 ? 'Not available on this gateway.' : errorText(error);
  return (
    <p class="notice error" role="alert">
      {text}
    </p>
  );
}

export function Notice({ children, tone = 'info' }: { children: ComponentChildren; tone?: 'info' | 'ok' | 'error' }) {
  return (
    <p class={`notice ${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

export function Loading({ isLoading }: { isLoading: boolean }) {
  return isLoading ? (
    <p class="muted" role="status">
      Loading…
    </p>
  ) : null;
}

interface FieldProps {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => JSX.Element;
}

/** A form's submit button (disabled while it saves) and, when the form can be left, Cancel. */
export function FormActions({
  submitLabel,
  isBusy = false,
  onCancel,
}: {
  submitLabel: string;
  isBusy?: boolean;
  onCancel?: (() => void) | undefined;
}) {
  return (
    <div class="row">
      <button type="submit" class="primary" disabled={isBusy}>
        {submitLabel}
      </button>
      {onCancel === undefined ? null : (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

/** A label, the control, and its validation error right next to it (announced through aria-describedby). */
export function Field({ id, label, error, hint, children }: FieldProps) {
  const describedBy = [error === undefined ? '' : `${id}-error`, hint === undefined ? '' : `${id}-hint`]
    .filter((part) => part !== '')
    .join(' ');
  return (
    <div class={`field${error === undefined ? '' : ' has-error'}`}>
      <label for={id}>{label}</label>
      {children({
        id,
        'aria-invalid': error !== undefined,
        'aria-describedby': describedBy === '' ? undefined : describedBy,
      })}
      {hint === undefined ? null : (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {error === undefined ? null : (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

export function Pager({ page, hasNext, onPage }: { page: number; hasNext: boolean; onPage: (page: number) => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span aria-live="polite">Page {page + 1}</span>
      <button type="button" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function KeyValues({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="kv">
      {rows.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Raw JSON, collapsed by default: for details the page does not render field by field. */
export function JsonDetails({ summary, value }: { summary: string; value: unknown }) {
  return (
    <details class="json">
      <summary>{summary}</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}
