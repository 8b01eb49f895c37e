import { useState } from 'react';
import type { paths } from '../api/schema.ts';
import { errorMessage } from '../lib/errors.ts';
import { useFeatures } from '../lib/features.ts';
import { Button } from './ui.tsx';

/** The report paths whose `format` query parameter offers files besides JSON. */
export type ExportPath = {
  [P in keyof paths]: paths[P] extends { get: { parameters: { query?: { format?: infer F } } } }
    ? 'csv' extends F
      ? P
      : never
    : never;
}[keyof paths];

/** The file formats of the reports (`csv`, `xlsx`). */
export type ExportFormat = Exclude<
  NonNullable<NonNullable<paths[ExportPath]['get']['parameters']['query']>['format']>,
  'json'
>;

const FORMATS: readonly string[] = ['csv', 'xlsx'] satisfies ExportFormat[];
const isExportFormat = (f: string): f is ExportFormat => FORMATS.includes(f);

/** What the typed client answers for a report requested with `parseAs: 'blob'`. */
export interface Download {
  data?: Blob;
  response: Response;
}

/**
 * Download buttons for the export formats (CSV, XLSX …) the service offers for a report, when it
 * offers any (detected from its OpenAPI document); nothing otherwise. `download` makes the typed
 * request of that report in the given format.
 */
export function ExportButtons(props: {
  path: ExportPath;
  download: (format: ExportFormat) => Promise<Download>;
  filename: string;
}) {
  const formats = (useFeatures().exports[props.path] ?? []).filter(isExportFormat);
  const [error, setError] = useState<string | null>(null);
  if (formats.length === 0) return null;
  const download = async (format: ExportFormat) => {
    try {
      const { data, response } = await props.download(format);
      if (!response.ok || !data) throw new Error(`Export failed (${response.status})`);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(data);
      link.download = `${props.filename}.${format}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <span className="export-buttons">
      {formats.map((f) => (
        <Button key={f} size="sm" onClick={() => download(f)}>
          Download {f.toUpperCase()}
        </Button>
      ))}
      {error ? <span className="error-text">{error}</span> : null}
    </span>
  );
}
