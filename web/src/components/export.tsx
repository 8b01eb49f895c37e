import { useState } from 'react';
import { api } from '../api/client.ts';
import { errorMessage } from '../lib/errors.ts';
import { useFeatures } from '../lib/features.ts';
import { Button } from './ui.tsx';

/**
 * Download buttons for the export formats (CSV, XLSX …) the service offers for a report, when it
 * offers any (detected from its OpenAPI document); nothing otherwise.
 */
export function ExportButtons(props: {
  path: string;
  url: string;
  query: Record<string, string>;
  filename: string;
}) {
  const formats = useFeatures().exports[props.path] ?? [];
  const [error, setError] = useState<string | null>(null);
  if (formats.length === 0) return null;
  const download = async (format: string) => {
    try {
      // The path is one of the report paths; its `format` values are not in the generated types yet.
      const result = await api.GET(
        props.url as never,
        { params: { query: { ...props.query, format } }, parseAs: 'blob' } as never,
      );
      const { data, response } = result as { data?: Blob; response: Response };
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
